/**
 * A PowerShell tokenizer that knows exactly what decides structure: comments, every string
 * form (including here-strings and `$(...)` inside double-quoted strings), variables,
 * brackets, separators and newlines. Everything else is a `word`. It never throws and never
 * loops without progress: problems become `errors`.
 */

export type TokenKind =
  | 'comment'
  | 'newline'
  | 'string'
  | 'variable'
  | 'word'
  | 'open'
  | 'close'
  | 'comma'
  | 'semicolon'
  | 'pipe'
  | 'equals'
  | 'end';

export interface Token {
  kind: TokenKind;
  /** The source text of the token. */
  text: string;
  start: number;
  end: number;
  /** 1-based line where the token starts. */
  line: number;
  /** 1-based line where the token ends. */
  endLine: number;
  /** Strings: the decoded value (for expandable strings, with `$...` left as written). Variables: the name. */
  value?: string;
  /** Double-quoted strings that interpolate `$name`, `${...}` or `$(...)`: not constants. */
  expandable?: boolean;
  /** Brackets: the index of the matching bracket token. */
  match?: number;
}

export interface ParseProblem {
  message: string;
  line: number;
}

export interface TokenizeResult {
  tokens: Token[];
  errors: ParseProblem[];
}

const SINGLE_QUOTES = new Set(["'", '\u2018', '\u2019', '\u201A', '\u201B']);
const DOUBLE_QUOTES = new Set(['"', '\u201C', '\u201D', '\u201E']);
/** Characters that end a bare word (besides whitespace and quotes). */
const WORD_STOPS = new Set(['(', ')', '{', '}', '[', ']', ',', ';', '|', '=', '$']);
/** Deeper `"$( "$( ...` nesting than any real script: stops a hostile input from exhausting the stack. */
const MAX_STRING_NESTING = 100;
const OPENERS: Record<string, string> = {
  '(': ')',
  '@(': ')',
  '$(': ')',
  '{': '}',
  '@{': '}',
  '[': ']',
};

function isNewline(ch: string): boolean {
  return ch === '\n' || ch === '\r';
}

function isSpace(ch: string): boolean {
  if (ch === ' ' || ch === '\t') return true;
  if (ch < '\x80') return ch === '\f' || ch === '\v';
  // PowerShell also treats NBSP, BOMs and other Unicode spaces as whitespace.
  return ch === '\uFEFF' || ch === '\u200B' || /\s/.test(ch);
}

function isVariableChar(ch: string): boolean {
  if (ch < '\x80')
    return (
      (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') || ch === '_'
    );
  return /[\p{L}\p{N}_]/u.test(ch);
}

function isQuote(ch: string): boolean {
  return SINGLE_QUOTES.has(ch) || DOUBLE_QUOTES.has(ch);
}

const ESCAPES: Record<string, string> = {
  '0': '\0',
  a: '\x07',
  b: '\b',
  e: '\x1b',
  f: '\f',
  n: '\n',
  r: '\r',
  t: '\t',
  v: '\v',
};

class Tokenizer {
  readonly source: string;
  pos = 0;
  line = 1;
  private nesting = 0;
  /**
   * Where a bare word (with any variables glued to it, `par$a`) ends: a `<#` right there is
   * part of that word, as PowerShell scans a generic token, not the start of a comment.
   */
  private wordEnd = -1;
  readonly errors: ParseProblem[] = [];

  constructor(source: string) {
    this.source = source;
  }

  run(): Token[] {
    const tokens: Token[] = [];
    for (;;) {
      const token = this.next();
      tokens.push(token);
      if (token.kind === 'end') return tokens;
      if (token.kind === 'word' && !/^[\d.]/.test(token.text)) this.wordEnd = token.end;
      else if (
        token.start === this.wordEnd &&
        (token.kind === 'variable' || token.text === '[' || token.text === ']')
      )
        this.wordEnd = token.end;
      else this.wordEnd = -1;
    }
  }

  private make(kind: TokenKind, start: number, line: number, extra: Partial<Token> = {}): Token {
    return {
      kind,
      text: this.source.slice(start, this.pos),
      start,
      end: this.pos,
      line,
      endLine: this.line,
      ...extra,
    };
  }

  /** Consumes one line break (`\r\n`, `\n` or `\r`) at `pos`. */
  private consumeNewline(): void {
    if (this.source[this.pos] === '\r' && this.source[this.pos + 1] === '\n') this.pos += 2;
    else this.pos += 1;
    this.line += 1;
  }

  next(): Token {
    const s = this.source;
    for (;;) {
      if (this.pos >= s.length) {
        return {
          kind: 'end',
          text: '',
          start: s.length,
          end: s.length,
          line: this.line,
          endLine: this.line,
        };
      }
      const ch = s[this.pos] as string;
      if (isNewline(ch)) {
        const start = this.pos;
        const line = this.line;
        this.consumeNewline();
        return {
          kind: 'newline',
          text: s.slice(start, this.pos),
          start,
          end: this.pos,
          line,
          endLine: line,
        };
      }
      if (ch === '`' && isNewline(s[this.pos + 1] ?? '')) {
        // Line continuation: the line break is whitespace.
        this.pos += 1;
        this.consumeNewline();
        continue;
      }
      if (isSpace(ch)) {
        this.pos += 1;
        continue;
      }
      break;
    }

    const start = this.pos;
    const line = this.line;
    const ch = s[this.pos] as string;
    const next = s[this.pos + 1] ?? '';

    if (ch === '<' && next === '#' && start !== this.wordEnd) return this.blockComment(start, line);
    if (ch === '#') {
      while (this.pos < s.length && !isNewline(s[this.pos] as string)) this.pos += 1;
      return this.make('comment', start, line);
    }
    if (SINGLE_QUOTES.has(ch)) return this.singleQuoted(start, line);
    if (DOUBLE_QUOTES.has(ch)) return this.doubleQuoted(start, line);
    if (ch === '@') {
      if (isQuote(next)) return this.hereString(start, line);
      if (next === '(' || next === '{') {
        this.pos += 2;
        return this.make('open', start, line);
      }
      if (isVariableChar(next) || next === '?') {
        this.pos += 1;
        while (this.pos < s.length && isVariableChar(s[this.pos] as string)) this.pos += 1;
        return this.make('variable', start, line, { value: s.slice(start + 1, this.pos) });
      }
    }
    if (ch === '$') {
      if (next === '(') {
        this.pos += 2;
        return this.make('open', start, line);
      }
      if (next === '{') return this.bracedVariable(start, line);
      if (isVariableChar(next)) return this.variable(start, line);
      if (next === '$' || next === '?' || next === '^') {
        this.pos += 2;
        return this.make('variable', start, line, { value: next });
      }
    }
    if (ch === '(' || ch === '{' || ch === '[') {
      this.pos += 1;
      return this.make('open', start, line);
    }
    if (ch === ')' || ch === '}' || ch === ']') {
      this.pos += 1;
      return this.make('close', start, line);
    }
    if (ch === ',') {
      this.pos += 1;
      return this.make('comma', start, line);
    }
    if (ch === ';') {
      this.pos += 1;
      return this.make('semicolon', start, line);
    }
    if (ch === '|') {
      this.pos += 1;
      return this.make('pipe', start, line);
    }
    if (ch === '=') {
      this.pos += 1;
      return this.make('equals', start, line);
    }
    if (ch === '-' && next === '-' && s[this.pos + 2] === '%') {
      // Stop-parsing token: the rest of the line goes to the command verbatim.
      while (this.pos < s.length && !isNewline(s[this.pos] as string)) this.pos += 1;
      return this.make('word', start, line);
    }
    return this.word(start, line);
  }

  private word(start: number, line: number): Token {
    const s = this.source;
    while (this.pos < s.length) {
      const ch = s[this.pos] as string;
      if (ch === '`') {
        const escaped = s[this.pos + 1];
        if (escaped === undefined) {
          this.pos += 1;
          break;
        }
        // A backtick before a line break is a continuation: it ends the word.
        if (isNewline(escaped)) break;
        this.pos += 2;
        continue;
      }
      if (isSpace(ch) || isNewline(ch) || WORD_STOPS.has(ch) || isQuote(ch)) break;
      this.pos += 1;
    }
    if (this.pos === start) this.pos += 1; // never stall, whatever the input
    return this.make('word', start, line);
  }

  private variable(start: number, line: number): Token {
    const s = this.source;
    this.pos += 1;
    while (this.pos < s.length) {
      const ch = s[this.pos] as string;
      if (isVariableChar(ch)) {
        this.pos += 1;
      } else if (
        ch === ':' &&
        isVariableChar(s[this.pos + 1] ?? '') &&
        !s.slice(start + 1, this.pos).includes(':')
      ) {
        // A scope or drive qualifier: `$script:x`, `$env:PATH`.
        this.pos += 1;
      } else {
        break;
      }
    }
    return this.make('variable', start, line, { value: s.slice(start + 1, this.pos) });
  }

  private bracedVariable(start: number, line: number): Token {
    const s = this.source;
    this.pos += 2;
    let name = '';
    while (this.pos < s.length && s[this.pos] !== '}') {
      const ch = s[this.pos] as string;
      if (ch === '`' && this.pos + 1 < s.length) {
        name += s[this.pos + 1];
        this.pos += 2;
        continue;
      }
      if (isNewline(ch)) {
        this.consumeNewline();
        name += '\n';
        continue;
      }
      name += ch;
      this.pos += 1;
    }
    if (this.pos >= s.length) {
      this.errors.push({
        message: 'the variable name that starts with "${" has no closing "}"',
        line,
      });
    } else {
      this.pos += 1;
    }
    return this.make('variable', start, line, { value: name });
  }

  private blockComment(start: number, line: number): Token {
    const s = this.source;
    this.pos += 2;
    for (;;) {
      if (this.pos >= s.length) {
        this.errors.push({
          message: 'the block comment that starts with "<#" has no closing "#>"',
          line,
        });
        break;
      }
      const ch = s[this.pos] as string;
      if (ch === '#' && s[this.pos + 1] === '>') {
        this.pos += 2;
        break;
      }
      if (isNewline(ch)) this.consumeNewline();
      else this.pos += 1;
    }
    return this.make('comment', start, line);
  }

  private singleQuoted(start: number, line: number): Token {
    const s = this.source;
    this.pos += 1;
    let value = '';
    for (;;) {
      if (this.pos >= s.length) {
        this.errors.push({ message: 'the string that starts here has no closing quote', line });
        break;
      }
      const ch = s[this.pos] as string;
      if (SINGLE_QUOTES.has(ch)) {
        // Two quotes in a row stand for one quote.
        if (SINGLE_QUOTES.has(s[this.pos + 1] ?? '')) {
          value += ch;
          this.pos += 2;
          continue;
        }
        this.pos += 1;
        break;
      }
      if (isNewline(ch)) {
        const from = this.pos;
        this.consumeNewline();
        value += s.slice(from, this.pos);
        continue;
      }
      value += ch;
      this.pos += 1;
    }
    return this.make('string', start, line, { value });
  }

  private doubleQuoted(start: number, line: number): Token {
    const s = this.source;
    this.pos += 1;
    let value = '';
    let expandable = false;
    for (;;) {
      if (this.pos >= s.length) {
        this.errors.push({ message: 'the string that starts here has no closing quote', line });
        break;
      }
      const ch = s[this.pos] as string;
      if (DOUBLE_QUOTES.has(ch)) {
        if (DOUBLE_QUOTES.has(s[this.pos + 1] ?? '')) {
          value += ch;
          this.pos += 2;
          continue;
        }
        this.pos += 1;
        break;
      }
      if (ch === '`') {
        const escaped = s[this.pos + 1];
        if (escaped === undefined) {
          this.pos += 1;
          continue;
        }
        if (isNewline(escaped)) {
          this.pos += 1;
          const from = this.pos;
          this.consumeNewline();
          value += s.slice(from, this.pos);
          continue;
        }
        value += this.decodeEscape();
        continue;
      }
      if (ch === '$') {
        const after = s[this.pos + 1] ?? '';
        const from = this.pos;
        // Interpolations stay in the value as written: callers only need to know they are there.
        if (after === '(') {
          expandable = true;
          this.skipSubexpression();
          value += s.slice(from, this.pos);
          continue;
        }
        if (after === '{') {
          expandable = true;
          this.bracedVariable(this.pos, this.line);
          value += s.slice(from, this.pos);
          continue;
        }
        if (isVariableChar(after) || after === '$' || after === '?' || after === '^') {
          expandable = true;
          if (isVariableChar(after)) this.variable(this.pos, this.line);
          else this.pos += 2;
          value += s.slice(from, this.pos);
          continue;
        }
      }
      if (isNewline(ch)) {
        const from = this.pos;
        this.consumeNewline();
        value += s.slice(from, this.pos);
        continue;
      }
      value += ch;
      this.pos += 1;
    }
    return this.make('string', start, line, { value, expandable });
  }

  /** At a backtick inside a double-quoted string: decodes one escape and moves past it. */
  private decodeEscape(): string {
    const s = this.source;
    const escaped = s[this.pos + 1] as string;
    if (escaped === 'u' && s[this.pos + 2] === '{') {
      const close = s.indexOf('}', this.pos + 3);
      const hex = close === -1 ? '' : s.slice(this.pos + 3, close);
      if (/^[0-9a-fA-F]{1,6}$/.test(hex) && Number.parseInt(hex, 16) <= 0x10ffff) {
        this.pos = close + 1;
        return String.fromCodePoint(Number.parseInt(hex, 16));
      }
    }
    this.pos += 2;
    return ESCAPES[escaped] ?? escaped;
  }

  /** At `$(` inside a string: skips to the matching `)`, honouring nested strings and comments. */
  private skipSubexpression(): void {
    const startLine = this.line;
    if (this.nesting >= MAX_STRING_NESTING) {
      this.errors.push({
        message: `strings and "$(" are nested more than ${MAX_STRING_NESTING} levels deep`,
        line: startLine,
      });
      this.pos = this.source.length;
      return;
    }
    this.nesting += 1;
    try {
      this.skipSubexpressionBody(startLine);
    } finally {
      this.nesting -= 1;
    }
  }

  private skipSubexpressionBody(startLine: number): void {
    this.pos += 2;
    let depth = 0;
    for (;;) {
      const token = this.next();
      if (token.kind === 'end') {
        this.errors.push({
          message: 'the "$(" inside this string has no closing ")"',
          line: startLine,
        });
        return;
      }
      if (token.kind === 'open') depth += 1;
      else if (token.kind === 'close') {
        if (depth === 0) return;
        depth -= 1;
      }
    }
  }

  private hereString(start: number, line: number): Token {
    const s = this.source;
    const quote = s[this.pos + 1] as string;
    const expandableKind = DOUBLE_QUOTES.has(quote);
    let headerEnd = this.pos + 2;
    while (
      headerEnd < s.length &&
      isSpace(s[headerEnd] as string) &&
      !isNewline(s[headerEnd] as string)
    )
      headerEnd += 1;
    if (headerEnd < s.length && !isNewline(s[headerEnd] as string)) {
      this.errors.push({
        message: `nothing may follow the here-string header "@${quote}" on its line`,
        line,
      });
      // Recover as an ordinary string after the `@`.
      this.pos += 1;
      const inner = expandableKind
        ? this.doubleQuoted(this.pos, line)
        : this.singleQuoted(this.pos, line);
      return { ...inner, start, text: s.slice(start, this.pos) };
    }
    this.pos = headerEnd;
    if (this.pos >= s.length) {
      this.errors.push({
        message: `the here-string that starts with "@${quote}" has no closing "${quote}@"`,
        line,
      });
      return this.make('string', start, line, { value: '' });
    }
    this.consumeNewline();
    const contentStart = this.pos;
    let contentEnd = -1;
    // The terminator is the quote and `@` at the very start of a line.
    while (this.pos < s.length) {
      const ch = s[this.pos] as string;
      const atLineStart = this.pos === contentStart || isNewline(s[this.pos - 1] as string);
      if (
        atLineStart &&
        (DOUBLE_QUOTES.has(quote) ? DOUBLE_QUOTES.has(ch) : SINGLE_QUOTES.has(ch)) &&
        s[this.pos + 1] === '@'
      ) {
        contentEnd = this.pos;
        this.pos += 2;
        break;
      }
      if (isNewline(ch)) this.consumeNewline();
      else this.pos += 1;
    }
    if (contentEnd === -1) {
      this.errors.push({
        message: `the here-string that starts with "@${quote}" has no closing "${quote}@"`,
        line,
      });
      return this.make('string', start, line, { value: s.slice(contentStart) });
    }
    // The line break before the terminator is not part of the value.
    let raw = s.slice(contentStart, contentEnd);
    raw = raw.replace(/\r?\n$|\r$/, '');
    if (!expandableKind) return this.make('string', start, line, { value: raw });
    const decoded = decodeExpandableText(raw);
    return this.make('string', start, line, {
      value: decoded.value,
      expandable: decoded.expandable,
    });
  }
}

/** Decodes backtick escapes of expandable text and says whether it interpolates anything. */
function decodeExpandableText(raw: string): { value: string; expandable: boolean } {
  let value = '';
  let expandable = false;
  for (let i = 0; i < raw.length; i++) {
    const ch = raw[i] as string;
    if (ch === '`' && i + 1 < raw.length) {
      const escaped = raw[i + 1] as string;
      value += ESCAPES[escaped] ?? escaped;
      i += 1;
      continue;
    }
    if (ch === '$') {
      const after = raw[i + 1] ?? '';
      if (
        after === '(' ||
        after === '{' ||
        isVariableChar(after) ||
        after === '$' ||
        after === '?' ||
        after === '^'
      ) {
        expandable = true;
      }
    }
    value += ch;
  }
  return { value, expandable };
}

/**
 * Pairs brackets (`match` on both ends). `(`, `{` and their `@`/`$` forms must balance: an
 * unbalanced one is a parse error. A stray `[` or `]` is left alone, because in command
 * arguments (`Write-Host [`) PowerShell reads them as plain characters.
 */
function matchBrackets(tokens: Token[], errors: ParseProblem[]): void {
  const stack: number[] = [];
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i] as Token;
    if (token.kind === 'open') {
      stack.push(i);
      continue;
    }
    if (token.kind !== 'close') continue;
    // A `[` left open by a command argument does not hide the bracket that really closes here.
    while (
      stack.length > 0 &&
      token.text !== ']' &&
      (tokens[stack[stack.length - 1] as number] as Token).text === '['
    ) {
      stack.pop();
    }
    const top = stack[stack.length - 1];
    if (top !== undefined && OPENERS[(tokens[top] as Token).text] === token.text) {
      stack.pop();
      token.match = top;
      (tokens[top] as Token).match = i;
      continue;
    }
    if (token.text === ']') continue;
    const opener = top === undefined ? undefined : (tokens[top] as Token);
    errors.push({
      message:
        opener === undefined
          ? `"${token.text}" has no matching opening bracket`
          : `"${token.text}" does not close "${opener.text}" opened on line ${opener.line}`,
      line: token.line,
    });
    // Recover: close up to an opener this bracket does match, if any; otherwise drop it.
    const matching = stack.findLastIndex(
      (index) => OPENERS[(tokens[index] as Token).text] === token.text,
    );
    if (matching !== -1) {
      const opened = stack[matching] as number;
      stack.length = matching;
      token.match = opened;
      (tokens[opened] as Token).match = i;
    }
  }
  for (const index of stack) {
    const token = tokens[index] as Token;
    if (token.text === '[') continue;
    errors.push({ message: `"${token.text}" is never closed`, line: token.line });
  }
}

/** Tokenizes PowerShell source. Never throws; problems come back in `errors`, each with its line. */
export function tokenizePowerShell(source: string): TokenizeResult {
  const text = source.startsWith('\uFEFF') ? ` ${source.slice(1)}` : source;
  const tokenizer = new Tokenizer(text);
  const tokens = tokenizer.run();
  const errors = [...tokenizer.errors];
  matchBrackets(tokens, errors);
  errors.sort((a, b) => a.line - b.line);
  return { tokens, errors };
}

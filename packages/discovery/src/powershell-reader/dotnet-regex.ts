/**
 * Turns a .NET regular expression (what `[ValidatePattern()]` takes) into an ECMAScript one
 * (what JSON Schema `pattern` means, checked with the `u` flag). ValidatePattern ignores case
 * unless told otherwise, and ECMAScript patterns carry no flags, so letters are spelled both
 * ways (`a` -> `[aA]`). Constructs with no ECMAScript equivalent make the pattern unusable:
 * the caller then leaves it out, and PowerShell still enforces it when the tool runs.
 */

export interface ConvertedPattern {
  /** The ECMAScript pattern, or undefined when the .NET one cannot be expressed. */
  pattern?: string;
  /** What was changed or why nothing came out, one sentence each. */
  warnings: string[];
}

const SYNTAX_CHARACTERS = new Set([
  '^',
  '$',
  '\\',
  '.',
  '*',
  '+',
  '?',
  '(',
  ')',
  '[',
  ']',
  '{',
  '}',
  '|',
  '/',
]);
const CLASS_ESCAPES = new Set(['d', 'D', 'w', 'W', 's', 'S']);
const CONTROL_ESCAPES = new Set(['n', 'r', 't', 'f', 'v']);

class Unsupported extends Error {}

function otherCase(ch: string): string | undefined {
  const lower = ch.toLowerCase();
  const upper = ch.toUpperCase();
  if (lower === upper || [...lower].length !== 1 || [...upper].length !== 1) return undefined;
  return ch === lower ? upper : lower;
}

function hex(codePoint: number): string {
  return codePoint <= 0xff
    ? `\\x${codePoint.toString(16).padStart(2, '0')}`
    : `\\u{${codePoint.toString(16)}}`;
}

class PatternConverter {
  private readonly source: string;
  private readonly ignoreCase: boolean;
  private i: number;
  private out = '';

  constructor(source: string, start: number, ignoreCase: boolean) {
    this.source = source;
    this.i = start;
    this.ignoreCase = ignoreCase;
  }

  run(): string {
    const s = this.source;
    while (this.i < s.length) {
      const ch = String.fromCodePoint(s.codePointAt(this.i) as number);
      if (ch === '\\') this.escape();
      else if (ch === '[') this.characterClass();
      else if (ch === '(') this.group();
      else if (ch === '{') this.brace();
      else if (ch === '}') {
        this.out += '\\}';
        this.i += 1;
      } else {
        const swapped = this.ignoreCase ? otherCase(ch) : undefined;
        this.out += swapped === undefined ? ch : `[${ch}${swapped}]`;
        this.i += ch.length;
      }
    }
    return this.out;
  }

  private brace(): void {
    const quantifier = /^\{\d+(,\d*)?\}/.exec(this.source.slice(this.i));
    if (quantifier !== null) {
      this.out += quantifier[0];
      this.i += quantifier[0].length;
      // A lazy quantifier keeps its `?`.
      return;
    }
    this.out += '\\{';
    this.i += 1;
  }

  private group(): void {
    const rest = this.source.slice(this.i);
    if (rest.startsWith('(?#')) {
      const end = rest.indexOf(')');
      if (end === -1) throw new Unsupported('an unterminated (?#...) comment');
      this.i += end + 1;
      return;
    }
    if (!rest.startsWith('(?')) {
      this.out += '(';
      this.i += 1;
      return;
    }
    const simple = /^\(\?(?:[:=!]|<=|<!)/.exec(rest);
    if (simple !== null) {
      this.out += simple[0];
      this.i += simple[0].length;
      return;
    }
    const named = /^\(\?(?:<([\p{L}_][\p{L}\p{N}_]*)>|'([\p{L}_][\p{L}\p{N}_]*)')/u.exec(rest);
    if (named !== null) {
      this.out += `(?<${named[1] ?? named[2]}>`;
      this.i += named[0].length;
      return;
    }
    if (rest.startsWith('(?>')) throw new Unsupported('an atomic group (?>...)');
    if (rest.startsWith('(?(')) throw new Unsupported('a conditional (?(...)...)');
    if (/^\(\?[imnsx-]+[:)]/.test(rest)) throw new Unsupported('inline options inside the pattern');
    throw new Unsupported(`the group ${JSON.stringify(rest.slice(0, 4))}`);
  }

  /** `\x` outside a character class. */
  private escape(): void {
    const s = this.source;
    const next = s[this.i + 1];
    if (next === undefined) throw new Unsupported('a trailing backslash');
    const rest = s.slice(this.i);
    if (CLASS_ESCAPES.has(next) || CONTROL_ESCAPES.has(next) || next === 'b' || next === 'B') {
      this.out += `\\${next}`;
      this.i += 2;
      return;
    }
    const mapped: Record<string, string> = {
      A: '^',
      z: '$',
      Z: '(?=\\n?$)',
      e: '\\x1b',
      a: '\\x07',
    };
    if (next in mapped) {
      this.out += mapped[next];
      this.i += 2;
      return;
    }
    this.copyCodeEscape(rest, false);
  }

  /** Escapes shared by both contexts: code points, properties, back-references, punctuation. */
  private copyCodeEscape(rest: string, inClass: boolean): void {
    const next = rest[1] as string;
    const code = /^\\(?:x[0-9a-fA-F]{2}|u[0-9a-fA-F]{4}|c[A-Za-z])/.exec(rest);
    if (code !== null) {
      this.out += code[0];
      this.i += code[0].length;
      return;
    }
    const property = /^\\[pP]\{([A-Za-z_]+)\}/.exec(rest);
    if (property !== null) {
      if ((property[1] as string).startsWith('Is'))
        throw new Unsupported(`the .NET block name ${property[0]}`);
      this.out += property[0];
      this.i += property[0].length;
      return;
    }
    const octal = /^\\0[0-7]{0,2}/.exec(rest);
    if (octal !== null) {
      this.out += hex(Number.parseInt(octal[0].slice(1), 8));
      this.i += octal[0].length;
      return;
    }
    if (!inClass) {
      const backReference = /^\\(?:[1-9]\d*|k<[\p{L}_][\p{L}\p{N}_]*>)/u.exec(rest);
      if (backReference !== null) {
        this.out += backReference[0];
        this.i += backReference[0].length;
        return;
      }
      const quotedName = /^\\k'([\p{L}_][\p{L}\p{N}_]*)'/u.exec(rest);
      if (quotedName !== null) {
        this.out += `\\k<${quotedName[1]}>`;
        this.i += quotedName[0].length;
        return;
      }
    }
    if (/[\p{L}\p{N}_]/u.test(next)) throw new Unsupported(`the escape \\${next}`);
    const ch = String.fromCodePoint(rest.codePointAt(1) as number);
    // With the `u` flag only syntax characters (and `-` in a class) may be escaped.
    this.out += SYNTAX_CHARACTERS.has(ch) || (inClass && ch === '-') ? `\\${ch}` : ch;
    this.i += 1 + ch.length;
  }

  private characterClass(): void {
    const s = this.source;
    this.out += '[';
    this.i += 1;
    if (s[this.i] === '^') {
      this.out += '^';
      this.i += 1;
    }
    const extra: string[] = [];
    let first = true;
    for (;;) {
      if (this.i >= s.length) throw new Unsupported('an unterminated character class');
      const ch = String.fromCodePoint(s.codePointAt(this.i) as number);
      if (ch === ']' && !first) {
        this.i += 1;
        break;
      }
      first = false;
      if (ch === '-' && s[this.i + 1] === '[') throw new Unsupported('character class subtraction');
      if (ch === '\\') {
        const next = s[this.i + 1];
        if (next === undefined) throw new Unsupported('a trailing backslash');
        if (CLASS_ESCAPES.has(next) || CONTROL_ESCAPES.has(next) || next === 'b') {
          this.out += `\\${next}`;
          this.i += 2;
        } else if (next === 'e' || next === 'a') {
          this.out += next === 'e' ? '\\x1b' : '\\x07';
          this.i += 2;
        } else {
          this.copyCodeEscape(s.slice(this.i), true);
        }
        continue;
      }
      const afterChar = this.i + ch.length;
      const hi =
        s[afterChar] === '-' &&
        s[afterChar + 1] !== undefined &&
        s[afterChar + 1] !== ']' &&
        s[afterChar + 1] !== '\\' &&
        s[afterChar + 1] !== '['
          ? String.fromCodePoint(s.codePointAt(afterChar + 1) as number)
          : undefined;
      if (hi !== undefined) {
        this.out += `${escapeClassChar(ch)}-${escapeClassChar(hi)}`;
        if (this.ignoreCase)
          extra.push(...foldRange(ch.codePointAt(0) as number, hi.codePointAt(0) as number));
        this.i = afterChar + 1 + hi.length;
        continue;
      }
      this.out += escapeClassChar(ch);
      const swapped = this.ignoreCase ? otherCase(ch) : undefined;
      if (swapped !== undefined) extra.push(escapeClassChar(swapped));
      this.i = afterChar;
    }
    this.out += `${extra.join('')}]`;
  }
}

function escapeClassChar(ch: string): string {
  // A literal `-` is escaped wherever it stands: at the end of a class the other-case letters
  // appended after it would otherwise turn it into a range (`[ -]` + `D` = `[ -D]`).
  return ch === ']' || ch === '\\' || ch === '[' || ch === '^' || ch === '-' ? `\\${ch}` : ch;
}

/** The other-case counterpart of the ASCII letters inside a range. */
function foldRange(lo: number, hi: number): string[] {
  const ranges: string[] = [];
  const fold = (from: number, to: number, delta: number) => {
    const a = Math.max(lo, from);
    const b = Math.min(hi, to);
    if (a <= b) ranges.push(`${String.fromCharCode(a + delta)}-${String.fromCharCode(b + delta)}`);
  };
  fold(0x61, 0x7a, -0x20);
  fold(0x41, 0x5a, 0x20);
  return ranges;
}

/**
 * Converts a .NET pattern for JSON Schema. `ignoreCase` is ValidatePattern's default; a
 * leading `(?i)` or `(?-i)` changes it and is dropped with a warning.
 */
export function convertDotNetPattern(
  source: string,
  options: { ignoreCase: boolean },
): ConvertedPattern {
  const warnings: string[] = [];
  let ignoreCase = options.ignoreCase;
  let start = 0;
  const inline = /^\(\?([imnsx]*)(?:-([imnsx]*))?\)/.exec(source);
  if (inline !== null) {
    const on = inline[1] ?? '';
    const off = inline[2] ?? '';
    if (/[^i]/.test(on + off)) {
      return { warnings: [`its inline options ${inline[0]} have no ECMAScript equivalent`] };
    }
    if (on.includes('i')) ignoreCase = true;
    if (off.includes('i')) ignoreCase = false;
    start = inline[0].length;
    warnings.push(
      `the inline option ${inline[0]} was dropped (JSON Schema patterns have no inline flags); ${
        ignoreCase ? 'letters are matched in either case instead' : 'the pattern is case-sensitive'
      }`,
    );
  }
  let pattern: string;
  try {
    pattern = new PatternConverter(source, start, ignoreCase).run();
  } catch (error) {
    const what =
      error instanceof Unsupported ? error.message : 'a construct this converter does not know';
    return { warnings: [...warnings, `it uses ${what}, which ECMAScript lacks`] };
  }
  try {
    new RegExp(pattern, 'u');
  } catch (error) {
    return {
      warnings: [
        ...warnings,
        `it is not a valid ECMAScript pattern once converted (${(error as Error).message})`,
      ],
    };
  }
  return { pattern, warnings };
}

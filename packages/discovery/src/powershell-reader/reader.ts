import { evaluateConstant, parseNumberLiteral } from './constant-value.ts';
import type { ConstantResult } from './constant-value.ts';
import { findHashLiteralErrors } from './check-hash-literals.ts';
import { CONTROL_KEYWORDS, FUNCTION_KEYWORDS } from './powershell-keywords.ts';
import { tokenizePowerShell } from './tokenizer.ts';
import type { ParseProblem, Token } from './tokenizer.ts';

export interface AttributeArgument {
  /** Lower-case name of a named argument (`Mandatory`, `HelpMessage`), absent for positional ones. */
  name?: string;
  value: ConstantResult;
  text: string;
  line: number;
}

export interface PsAttribute {
  /** As written: `Parameter`, `System.Management.Automation.ValidateSetAttribute`. */
  name: string;
  /** Lower-case, without namespace and `Attribute` suffix: `parameter`, `validateset`. */
  key: string;
  positional: AttributeArgument[];
  named: Map<string, AttributeArgument>;
  line: number;
}

export interface PsParameter {
  name: string;
  /** Line of the `$Name` variable. */
  line: number;
  attributes: PsAttribute[];
  /** Type constraints in source order, whitespace removed: `string[]`, `System.Collections.Generic.List[int]`. */
  typeNames: string[];
  defaultValue?: { text: string; value: ConstantResult; line: number };
  /** First and last token of the parameter (attributes through default), for comment lookup. */
  firstToken: number;
  lastToken: number;
}

export interface PsParameterList {
  parameters: PsParameter[];
  line: number;
}

export interface PsParamBlock extends PsParameterList {
  /** Attributes of the block itself: `[CmdletBinding()]`, `[OutputType()]`. */
  attributes: PsAttribute[];
}

export interface PsFunction {
  /** The name without a scope qualifier (`global:Get-X` -> `Get-X`), case preserved. */
  name: string;
  line: number;
  keywordIndex: number;
  bodyOpen: number;
  bodyClose: number;
  paramBlock?: PsParamBlock;
  /** `function Name($a, $b) { }` */
  shortParameters?: PsParameterList;
  /** Defined in the scope of the file: not inside another function or a script block. */
  topLevel: boolean;
  /** `function global:Get-X`: defined outside the module, so never one of its exports. */
  global?: boolean;
}

export interface PsExport {
  line: number;
  /** Literal names and wildcard patterns given to `-Function`. */
  patterns: string[];
  /** Values only known at run time (`-Function $public.BaseName`), as written. */
  dynamic: string[];
}

export interface PsDotSource {
  line: number;
  /** The path when it is literal; `$PSScriptRoot` is kept as written for the caller to resolve. */
  path?: string;
  text: string;
}

/** A property of a PowerShell `class`: `[string] $Name`, `hidden [int] $Count = 0`. */
export interface PsClassProperty {
  name: string;
  line: number;
  /** Type constraints as written, whitespace removed; empty for an untyped property. */
  typeNames: string[];
  /** `hidden` and `static` properties are not among an instance's PSObject properties. */
  hidden: boolean;
  static: boolean;
}

/** A `class Name [: Base] { ... }` definition. */
export interface PsClass {
  name: string;
  line: number;
  /** The first name after `:`, as written (a base class or an interface). */
  base?: string;
  properties: PsClassProperty[];
}

/** An `enum Name { A; B = 2 }` definition (`[Flags()]` before it makes it a flags enum). */
export interface PsEnum {
  name: string;
  line: number;
  /** The member names, in source order. */
  names: string[];
  flags: boolean;
}

export interface PowerShellDocument {
  tokens: Token[];
  errors: ParseProblem[];
  /** The script's own `param(...)` block. */
  paramBlock?: PsParamBlock;
  /** Uses `begin`/`process`/`end` blocks at script level. */
  namedBlocks: boolean;
  /** Line of the script's first statement when it is a function definition (for the help rule). */
  firstStatementFunctionLine?: number;
  functions: PsFunction[];
  exports: PsExport[];
  dotSources: PsDotSource[];
  /** Class definitions anywhere in the file, in source order. */
  classes: PsClass[];
  /** Enum definitions anywhere in the file, in source order. */
  enums: PsEnum[];
}

const NAMED_BLOCKS = new Set(['begin', 'process', 'end', 'dynamicparam', 'clean']);
const DASHES = /^[-\u2013\u2014\u2015]/;

function isTrivia(token: Token, newlines: boolean): boolean {
  return token.kind === 'comment' || (newlines && token.kind === 'newline');
}

/** Index of the next token at or after `index` that is not a comment (nor a line break when `newlines`). */
function skipTrivia(tokens: readonly Token[], index: number, newlines: boolean): number {
  let i = index;
  while (i < tokens.length - 1 && isTrivia(tokens[i] as Token, newlines)) i++;
  return i;
}

function attributeKey(name: string): string {
  const short = name.slice(name.lastIndexOf('.') + 1).toLowerCase();
  return short.endsWith('attribute') && short !== 'attribute'
    ? short.slice(0, -'attribute'.length)
    : short;
}

class Reader {
  readonly source: string;
  readonly tokens: Token[];
  readonly errors: ParseProblem[];

  constructor(source: string, tokens: Token[], errors: ParseProblem[]) {
    this.source = source;
    this.tokens = tokens;
    this.errors = errors;
  }

  token(index: number): Token {
    return this.tokens[Math.min(index, this.tokens.length - 1)] as Token;
  }

  error(message: string, line: number): void {
    this.errors.push({ message, line });
  }

  /** Splits `(open, close)` at top-level commas into token ranges `[start, end)`. */
  splitAtCommas(open: number, close: number): Array<[number, number]> {
    const pieces: Array<[number, number]> = [];
    let start = open + 1;
    for (let i = open + 1; i < close; i++) {
      const token = this.token(i);
      if (token.kind === 'open' && token.match !== undefined && token.match < close) {
        i = token.match;
        continue;
      }
      if (token.kind === 'comma') {
        pieces.push([start, i]);
        start = i + 1;
      }
    }
    pieces.push([start, close]);
    return pieces;
  }

  /** The source text of a token range, comments and line breaks included. */
  text(start: number, end: number): string {
    if (start >= end) return '';
    return this.source.slice(this.token(start).start, this.token(end - 1).end);
  }

  /** `[...]` at `open`: an attribute (`[Name(args)]`) or a type constraint (`[string[]]`). */
  readAttributeGroup(open: number): PsAttribute | { typeName: string } | undefined {
    const close = this.token(open).match;
    if (close === undefined) return undefined;
    const first = skipTrivia(this.tokens, open + 1, true);
    const nameToken = this.token(first);
    if (first < close && nameToken.kind === 'word') {
      const paren = skipTrivia(this.tokens, first + 1, true);
      const parenToken = this.token(paren);
      if (parenToken.kind === 'open' && parenToken.text === '(' && parenToken.match !== undefined) {
        const after = skipTrivia(this.tokens, parenToken.match + 1, true);
        if (after === close) return this.readAttribute(nameToken, paren, parenToken.match);
      }
    }
    let typeName = '';
    for (let i = open + 1; i < close; i++) {
      const token = this.token(i);
      if (!isTrivia(token, true)) typeName += token.text;
    }
    return { typeName: typeName.replace(/\s+/g, '') };
  }

  private readAttribute(nameToken: Token, open: number, close: number): PsAttribute {
    const attribute: PsAttribute = {
      name: nameToken.text,
      key: attributeKey(nameToken.text),
      positional: [],
      named: new Map(),
      line: nameToken.line,
    };
    if (skipTrivia(this.tokens, open + 1, true) === close) return attribute;
    for (const [start, end] of this.splitAtCommas(open, close)) {
      const first = skipTrivia(this.tokens, start, true);
      if (first >= end) {
        this.error(
          `the attribute [${nameToken.text}(...)] has an empty argument`,
          this.token(start).line,
        );
        continue;
      }
      const firstToken = this.token(first);
      const second = skipTrivia(this.tokens, first + 1, true);
      const isName =
        firstToken.kind === 'word' &&
        parseNumberLiteral(firstToken.text) === undefined &&
        /^[\p{L}_][\p{L}\p{N}_]*$/u.test(firstToken.text);
      if (isName && second >= end) {
        attribute.named.set(firstToken.text.toLowerCase(), {
          name: firstToken.text.toLowerCase(),
          value: { constant: true, value: true },
          text: firstToken.text,
          line: firstToken.line,
        });
        continue;
      }
      if (isName && this.token(second).kind === 'equals') {
        attribute.named.set(firstToken.text.toLowerCase(), {
          name: firstToken.text.toLowerCase(),
          value: evaluateConstant(this.tokens, second + 1, end),
          text: this.text(second + 1, end).trim(),
          line: firstToken.line,
        });
        continue;
      }
      attribute.positional.push({
        value: evaluateConstant(this.tokens, first, end),
        text: this.text(first, end).trim(),
        line: firstToken.line,
      });
    }
    return attribute;
  }

  /** Reads `[attr]... param(...)` starting at `index`; undefined (and no error) when there is none. */
  readParamBlock(index: number, end: number): { block: PsParamBlock; next: number } | undefined {
    let i = skipTrivia(this.tokens, index, true);
    const attributes: PsAttribute[] = [];
    while (i < end && this.token(i).kind === 'open' && this.token(i).text === '[') {
      const group = this.readAttributeGroup(i);
      if (group === undefined) return undefined;
      if ('key' in group) attributes.push(group);
      i = skipTrivia(this.tokens, (this.token(i).match as number) + 1, true);
    }
    const keyword = this.token(i);
    if (i >= end || keyword.kind !== 'word' || keyword.text.toLowerCase() !== 'param')
      return undefined;
    const open = skipTrivia(this.tokens, i + 1, true);
    const openToken = this.token(open);
    if (openToken.kind !== 'open' || openToken.text !== '(' || openToken.match === undefined) {
      // A bare `param` is a command to PowerShell; only attributes before it make it an error.
      if (openToken.kind === 'open' && openToken.text === '(')
        this.error('the parameter list of "param" is never closed with ")"', keyword.line);
      else if (attributes.length > 0)
        this.error('"param" must be followed by a parameter list in parentheses', keyword.line);
      return undefined;
    }
    const list = this.readParameterList(open, openToken.match);
    return {
      block: { attributes, parameters: list.parameters, line: keyword.line },
      next: openToken.match + 1,
    };
  }

  readParameterList(open: number, close: number): PsParameterList {
    const line = this.token(open).line;
    const parameters: PsParameter[] = [];
    if (skipTrivia(this.tokens, open + 1, true) === close) return { parameters, line };
    const pieces = this.splitAtCommas(open, close);
    pieces.forEach(([start, end], index) => {
      const parameter = this.readParameter(
        start,
        end,
        index === pieces.length - 1 && pieces.length > 1,
      );
      if (parameter !== undefined) parameters.push(parameter);
    });
    return { parameters, line };
  }

  private readParameter(start: number, end: number, isLast: boolean): PsParameter | undefined {
    let i = skipTrivia(this.tokens, start, true);
    if (i >= end) {
      const line = this.token(Math.max(start - 1, 0)).line;
      this.error(
        isLast
          ? 'PowerShell does not allow a comma after the last parameter; remove it'
          : 'two commas in a row in the parameter list: a parameter is missing',
        line,
      );
      return undefined;
    }
    const firstToken = i;
    const attributes: PsAttribute[] = [];
    const typeNames: string[] = [];
    while (i < end && this.token(i).kind === 'open' && this.token(i).text === '[') {
      const group = this.readAttributeGroup(i);
      if (group === undefined) break;
      if ('key' in group) attributes.push(group);
      else {
        if (group.typeName.toLowerCase() === 'ordered') {
          this.error(
            '[ordered] can only precede a hashtable literal, not a parameter; use [hashtable] or [System.Collections.Specialized.OrderedDictionary]',
            this.token(i).line,
          );
        }
        typeNames.push(group.typeName);
      }
      i = skipTrivia(this.tokens, (this.token(i).match as number) + 1, true);
    }
    const variable = this.token(i);
    if (i >= end || variable.kind !== 'variable' || !variable.text.startsWith('$')) {
      this.error(
        `expected a parameter variable such as $Name, found ${i >= end ? 'the end of the parameter' : JSON.stringify(variable.text)}`,
        (i >= end ? this.token(firstToken) : variable).line,
      );
      return undefined;
    }
    const parameter: PsParameter = {
      name: variable.value ?? '',
      line: variable.line,
      attributes,
      typeNames,
      firstToken,
      lastToken: i,
    };
    const next = skipTrivia(this.tokens, i + 1, true);
    if (next >= end) return parameter;
    const nextToken = this.token(next);
    if (nextToken.kind !== 'equals') {
      this.reportMissingComma(parameter, nextToken);
      return undefined;
    }
    // A line break at the top of the default followed by another parameter means a missing comma.
    let defaultEnd = end;
    for (let j = next + 1; j < end; j++) {
      const token = this.token(j);
      if (token.kind === 'open' && token.match !== undefined && token.match < end) {
        j = token.match;
        continue;
      }
      if (token.kind !== 'newline') continue;
      const after = skipTrivia(this.tokens, j, true);
      if (
        after < end &&
        (this.token(after).text === '[' || this.token(after).kind === 'variable') &&
        j > skipTrivia(this.tokens, next + 1, true)
      ) {
        this.reportMissingComma(parameter, this.token(after));
        defaultEnd = j;
        break;
      }
    }
    let last = defaultEnd - 1;
    while (last > next && isTrivia(this.token(last), true)) last--;
    if (last === next) {
      this.error(`the parameter $${parameter.name} has "=" but no default value`, nextToken.line);
      return undefined;
    }
    parameter.defaultValue = {
      text: this.text(next + 1, last + 1).trim(),
      value: evaluateConstant(this.tokens, next + 1, last + 1),
      line: nextToken.line,
    };
    parameter.lastToken = last;
    return parameter;
  }

  private reportMissingComma(parameter: PsParameter, found: Token): void {
    this.error(
      found.text === '[' || found.kind === 'variable'
        ? `a comma is missing after the parameter $${parameter.name} (line ${parameter.line})`
        : `unexpected ${JSON.stringify(found.text)} after the parameter $${parameter.name}`,
      found.line,
    );
  }
}

interface Frame {
  kind: 'root' | 'function' | 'control' | 'other' | 'group' | 'hashtable';
  close: number | undefined;
  statementStart: boolean;
  pendingControl: boolean;
}

/**
 * Reads the parts of a PowerShell file that discovery needs: the script's param block,
 * function definitions (with their own param blocks), `Export-ModuleMember` calls and
 * dot-sourced files. Never throws; problems come back in `errors` with their lines.
 */
export function readPowerShell(content: string): PowerShellDocument {
  const { tokens, errors } = tokenizePowerShell(content);
  // Brackets pair up only when the tokenizer found no error.
  const bracketsPair = errors.length === 0;
  const reader = new Reader(content, tokens, errors);
  const document: PowerShellDocument = {
    tokens,
    errors,
    namedBlocks: false,
    functions: [],
    exports: [],
    dotSources: [],
    classes: [],
    enums: [],
  };

  let start = skipUsingStatements(tokens, 0);
  const param = reader.readParamBlock(start, tokens.length - 1);
  if (param !== undefined) {
    document.paramBlock = param.block;
    start = param.next;
  }
  const first = skipTrivia(tokens, start, true);
  const firstToken = tokens[first] as Token;
  if (firstToken.kind === 'word') {
    const word = firstToken.text.toLowerCase();
    const after = tokens[skipTrivia(tokens, first + 1, true)] as Token;
    if (NAMED_BLOCKS.has(word) && after.kind === 'open' && after.text === '{')
      document.namedBlocks = true;
    if (FUNCTION_KEYWORDS.has(word)) document.firstStatementFunctionLine = firstToken.line;
  }

  scanStatements(reader, document, param === undefined ? 0 : start);
  document.classes = readClasses(reader);
  document.enums = readEnums(tokens);
  if (bracketsPair) errors.push(...findHashLiteralErrors(tokens));
  errors.sort((a, b) => a.line - b.line);
  return document;
}

function skipUsingStatements(tokens: readonly Token[], index: number): number {
  let i = skipTrivia(tokens, index, true);
  while (
    (tokens[i] as Token).kind === 'word' &&
    (tokens[i] as Token).text.toLowerCase() === 'using'
  ) {
    while (
      i < tokens.length - 1 &&
      (tokens[i] as Token).kind !== 'newline' &&
      (tokens[i] as Token).kind !== 'semicolon'
    )
      i++;
    i = skipTrivia(tokens, i, true);
    while ((tokens[i] as Token).kind === 'semicolon') i = skipTrivia(tokens, i + 1, true);
  }
  return i;
}

function scanStatements(reader: Reader, document: PowerShellDocument, from: number): void {
  const tokens = reader.tokens;
  const frames: Frame[] = [
    { kind: 'root', close: undefined, statementStart: true, pendingControl: false },
  ];
  let functionBody: { open: number } | undefined;

  for (let i = from; i < tokens.length; i++) {
    const token = tokens[i] as Token;
    const frame = frames[frames.length - 1] as Frame;
    if (token.kind === 'comment') continue;
    if (token.kind === 'end') break;
    if (token.kind === 'newline' || token.kind === 'semicolon') {
      frame.statementStart = true;
      continue;
    }
    if (token.kind === 'open') {
      let kind: Frame['kind'] = 'group';
      if (token.text === '@{') {
        kind = 'hashtable';
        frame.pendingControl = false;
      } else if (token.text === '{') {
        if (functionBody !== undefined && functionBody.open === i) kind = 'function';
        else kind = frame.pendingControl ? 'control' : 'other';
        frame.pendingControl = false;
      }
      frame.statementStart = false;
      frames.push({
        kind,
        close: token.match,
        statementStart: token.text !== '[',
        pendingControl: false,
      });
      continue;
    }
    if (token.kind === 'close') {
      // Unbalanced brackets were reported by the tokenizer; close whatever this bracket matches.
      const depth = frames.findLastIndex((f) => f.close === i);
      if (depth > 0) {
        frames.length = depth;
        // A closing brace ends a statement (`} else {`, `} function B {}`); a parenthesis does not.
        if (token.text === '}') (frames[depth - 1] as Frame).statementStart = true;
      }
      continue;
    }

    const atStart = frame.statementStart;
    frame.statementStart = false;
    // In a hashtable literal a line starts with a key, and `Filter = ...` is not a filter.
    if (!atStart || frame.kind === 'hashtable') continue;
    const word = token.kind === 'word' ? token.text.toLowerCase() : '';
    frame.pendingControl = CONTROL_KEYWORDS.has(word);
    const topLevel = frames.every((f) => f.kind === 'root' || f.kind === 'control');

    if (FUNCTION_KEYWORDS.has(word)) {
      // Class and enum bodies are 'other' frames: `enum E { Function; Filter }` is no syntax error.
      const fn = readFunction(reader, i, topLevel, frame.kind !== 'other');
      if (fn !== undefined) {
        document.functions.push(fn);
        functionBody = { open: fn.bodyOpen };
      }
      continue;
    }
    if (!topLevel) continue;
    if (/^(microsoft\.powershell\.core\\)?export-modulemember$/.test(word)) {
      document.exports.push(readExport(reader, i));
      continue;
    }
    if (word === '.') {
      const dotSource = readDotSource(reader, i);
      if (dotSource !== undefined) document.dotSources.push(dotSource);
    }
  }
}

function readFunction(
  reader: Reader,
  keywordIndex: number,
  topLevel: boolean,
  reportErrors: boolean,
): PsFunction | undefined {
  const tokens = reader.tokens;
  const keyword = tokens[keywordIndex] as Token;
  const nameIndex = skipTrivia(tokens, keywordIndex + 1, true);
  const nameToken = tokens[nameIndex] as Token;
  if (nameToken.kind !== 'word' && nameToken.kind !== 'string') {
    if (reportErrors)
      reader.error(`"${keyword.text}" must be followed by a function name`, keyword.line);
    return undefined;
  }
  // PowerShell scans the name as one generic token: `F]x`, `F$x` and `F#>y` are names too.
  let rawName = nameToken.kind === 'string' ? (nameToken.value ?? '') : nameToken.text;
  let nameEnd = nameIndex + 1;
  while (nameToken.kind === 'word') {
    const glued = tokens[nameEnd] as Token;
    if (glued.start !== (tokens[nameEnd - 1] as Token).end) break;
    if (
      !['word', 'variable', 'string', 'close', 'equals'].includes(glued.kind) &&
      glued.text !== '['
    )
      break;
    if (glued.kind === 'close' && glued.text !== ']') break;
    rawName += glued.text;
    nameEnd += 1;
  }
  const name = rawName.replace(/^(global|script|local|private):/i, '');
  let next = skipTrivia(tokens, nameEnd, true);
  let shortParameters: PsParameterList | undefined;
  const maybeParen = tokens[next] as Token;
  if (maybeParen.kind === 'open' && maybeParen.text === '(' && maybeParen.match !== undefined) {
    shortParameters = reader.readParameterList(next, maybeParen.match);
    next = skipTrivia(tokens, maybeParen.match + 1, true);
  }
  const body = tokens[next] as Token;
  if (body.kind !== 'open' || body.text !== '{' || body.match === undefined) {
    if (reportErrors) reader.error(`the function ${name} has no body in braces { }`, keyword.line);
    return undefined;
  }
  const fn: PsFunction = {
    name,
    line: keyword.line,
    keywordIndex,
    bodyOpen: next,
    bodyClose: body.match,
    topLevel,
  };
  if (/^global:/i.test(rawName)) fn.global = true;
  if (shortParameters !== undefined) fn.shortParameters = shortParameters;
  const param = reader.readParamBlock(next + 1, body.match);
  if (param !== undefined) {
    fn.paramBlock = param.block;
    // `function F() { param($a) }` is fine for PowerShell: only a non-empty list clashes.
    if (shortParameters !== undefined && shortParameters.parameters.length > 0) {
      reader.error(
        `the function ${name} declares parameters both after its name and in a param block; keep one`,
        param.block.line,
      );
    }
  }
  return fn;
}

/** Reads the arguments of `Export-ModuleMember` up to the end of its statement. */
function readExport(reader: Reader, commandIndex: number): PsExport {
  const tokens = reader.tokens;
  const exported: PsExport = {
    line: (tokens[commandIndex] as Token).line,
    patterns: [],
    dynamic: [],
  };
  let parameter: string | undefined;
  let afterComma = false;
  let i = commandIndex + 1;
  while (i < tokens.length) {
    const token = tokens[i] as Token;
    if (token.kind === 'comment') {
      i++;
      continue;
    }
    if (
      token.kind === 'end' ||
      token.kind === 'semicolon' ||
      token.kind === 'pipe' ||
      token.kind === 'close'
    )
      break;
    if (token.kind === 'newline') {
      // A list goes on after a comma at the end of a line; otherwise the line ends the command.
      if (!afterComma) break;
      i++;
      continue;
    }
    if (
      token.kind === 'word' &&
      DASHES.test(token.text) &&
      parseNumberLiteral(token.text) === undefined
    ) {
      const [name = '', attached = ''] = token.text
        .replace(DASHES, '')
        .toLowerCase()
        .split(/:(.*)/s);
      parameter = name;
      afterComma = false;
      i++;
      if (attached !== '' && parameter.length > 0 && 'function'.startsWith(parameter)) {
        exported.patterns.push(token.text.slice(token.text.indexOf(':') + 1));
        parameter = undefined;
      }
      continue;
    }
    if (token.kind === 'comma') {
      afterComma = true;
      i++;
      continue;
    }
    // A value: a word, a string, a variable or a bracketed expression, possibly glued to its neighbours.
    let end = i + 1;
    if (token.kind === 'open' && token.match !== undefined) end = token.match + 1;
    const forFunctions =
      parameter === undefined || (parameter.length > 0 && 'function'.startsWith(parameter));
    if (forFunctions) {
      const value = evaluateConstant(tokens, i, end);
      if (token.kind === 'word') exported.patterns.push(token.text);
      else if (value.constant && typeof value.value === 'string')
        exported.patterns.push(value.value);
      else if (
        value.constant &&
        Array.isArray(value.value) &&
        value.value.every((v) => typeof v === 'string')
      ) {
        exported.patterns.push(...(value.value as string[]));
      } else exported.dynamic.push(reader.text(i, end).trim());
    }
    afterComma = false;
    i = end;
    // Another value only follows a comma; otherwise the next value is positional again.
    if ((tokens[i] as Token | undefined)?.kind !== 'comma') parameter = undefined;
  }
  return exported;
}

function readDotSource(reader: Reader, dotIndex: number): PsDotSource | undefined {
  const tokens = reader.tokens;
  const start = dotIndex + 1;
  const first = tokens[start] as Token;
  if (
    first.kind === 'newline' ||
    first.kind === 'end' ||
    first.start === (tokens[dotIndex] as Token).end
  )
    return undefined;
  // The argument is every token glued together without whitespace.
  let end = start;
  let path = '';
  let literal = true;
  while (end < tokens.length) {
    const token = tokens[end] as Token;
    if (end > start && token.start !== (tokens[end - 1] as Token).end) break;
    if (['newline', 'end', 'semicolon', 'pipe', 'comment', 'close', 'comma'].includes(token.kind))
      break;
    if (token.kind === 'word') path += token.text;
    else if (token.kind === 'string') {
      const value = token.value ?? '';
      const rest = value.replace(/\$\{?PSScriptRoot\}?/gi, '');
      if (token.expandable && /\$[\p{L}\p{N}_{(?$^]/u.test(rest)) literal = false;
      path += value;
    } else if (token.kind === 'variable' && (token.value ?? '').toLowerCase() === 'psscriptroot')
      path += '$PSScriptRoot';
    else literal = false;
    if (token.kind === 'open' && token.match !== undefined) end = token.match;
    end++;
  }
  const dotSource: PsDotSource = { line: first.line, text: reader.text(start, end).trim() };
  if (literal && path !== '')
    dotSource.path = path.replace(/\$\{PSScriptRoot\}/gi, '$PSScriptRoot');
  return dotSource;
}

/** Top-level function definitions of a script, in source order, with the line of each `function` keyword. */
export function listTopLevelFunctions(
  document: PowerShellDocument,
): Array<{ name: string; line: number }> {
  return document.functions
    .filter((fn) => fn.topLevel)
    .map((fn) => ({ name: fn.name, line: fn.line }));
}

/** Whether the token at `index` starts a statement: only line breaks, `;`, `{` or `}` before it. */
export function startsStatement(tokens: readonly Token[], index: number): boolean {
  for (let i = index - 1; i >= 0; i--) {
    const token = tokens[i] as Token;
    if (token.kind === 'comment') continue;
    return (
      token.kind === 'newline' ||
      token.kind === 'semicolon' ||
      (token.kind === 'open' && token.text === '{') ||
      (token.kind === 'close' && token.text === '}')
    );
  }
  return true;
}

/**
 * The `class` definitions of a file with their properties, for output schemas. Methods,
 * constructors and attributes other than type constraints are skipped.
 */
function readClasses(reader: Reader): PsClass[] {
  const tokens = reader.tokens;
  const classes: PsClass[] = [];
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i] as Token;
    if (token.kind !== 'word' || token.text.toLowerCase() !== 'class') continue;
    if (!startsStatement(tokens, i)) continue;
    const nameIndex = skipTrivia(tokens, i + 1, true);
    const nameToken = tokens[nameIndex] as Token;
    if (nameToken.kind !== 'word') continue;
    // `class Name : Base, IFace {` or `class Name:Base {`: the tokenizer may glue the colon.
    let name = nameToken.text;
    let base: string | undefined;
    let j = skipTrivia(tokens, nameIndex + 1, true);
    if (name.includes(':')) {
      [name = '', base] = name.split(':', 2).map((part) => part.trim());
    }
    while (j < tokens.length && (tokens[j] as Token).kind === 'word') {
      const word = (tokens[j] as Token).text.replace(/^:/, '');
      if (word !== '' && base === undefined) base = word;
      j = skipTrivia(tokens, j + 1, true);
    }
    while ((tokens[j] as Token).kind === 'comma') j = skipTrivia(tokens, j + 2, true);
    const open = tokens[j] as Token;
    if (open.kind !== 'open' || open.text !== '{' || open.match === undefined || name === '')
      continue;
    const definition: PsClass = {
      name,
      line: token.line,
      properties: readClassProperties(reader, j, open.match),
    };
    if (base !== undefined && base !== '') definition.base = base;
    classes.push(definition);
    i = open.match;
  }
  return classes;
}

/**
 * The `enum` definitions of a file: names and members, for parameters typed with them. A
 * `[Flags()]` attribute on the lines just before makes it a flags enum.
 */
function readEnums(tokens: readonly Token[]): PsEnum[] {
  const enums: PsEnum[] = [];
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i] as Token;
    if (token.kind !== 'word' || token.text.toLowerCase() !== 'enum') continue;
    let flags = false;
    let before = i - 1;
    while (before >= 0 && (tokens[before] as Token).kind === 'newline') before--;
    // `[Flags()] enum E` or `[Flags()]` on the line above: the tokens before are `[ Flags ( ) ]`.
    if (before >= 0 && (tokens[before] as Token).kind === 'close' && tokens[before]?.text === ']') {
      let open = before;
      while (open > 0 && !((tokens[open] as Token).kind === 'open' && tokens[open]?.text === '['))
        open--;
      flags = /^(system\.)?flags(attribute)?$/i.test(tokens[open + 1]?.text ?? '');
      before = open - 1;
      while (before >= 0 && (tokens[before] as Token).kind === 'comment') before--;
    } else if (!startsStatement(tokens, i)) continue;
    const nameIndex = skipTrivia(tokens, i + 1, true);
    const nameToken = tokens[nameIndex] as Token;
    if (nameToken.kind !== 'word') continue;
    const name = nameToken.text.split(':')[0] as string;
    let j = nameIndex + 1;
    while (j < tokens.length && !((tokens[j] as Token).kind === 'open' && tokens[j]?.text === '{'))
      if ((tokens[j] as Token).kind === 'newline' || (tokens[j] as Token).kind === 'word') j++;
      else break;
    const open = tokens[j] as Token | undefined;
    if (open?.kind !== 'open' || open.text !== '{' || open.match === undefined || name === '')
      continue;
    const names: string[] = [];
    let atMember = true;
    for (let k = j + 1; k < open.match; k++) {
      const member = tokens[k] as Token;
      if (member.kind === 'newline' || member.kind === 'semicolon') atMember = true;
      else if (member.kind === 'comment') continue;
      else {
        if (atMember && member.kind === 'word') names.push(member.text.split('=')[0] as string);
        atMember = false;
      }
    }
    enums.push({ name, line: token.line, names, flags });
    i = open.match;
  }
  return enums;
}

function readClassProperties(reader: Reader, open: number, close: number): PsClassProperty[] {
  const tokens = reader.tokens;
  const properties: PsClassProperty[] = [];
  let i = open + 1;
  while (i < close) {
    i = skipTrivia(tokens, i, true);
    while (i < close && (tokens[i] as Token).kind === 'semicolon')
      i = skipTrivia(tokens, i + 1, true);
    if (i >= close) break;
    let hidden = false;
    let isStatic = false;
    const typeNames: string[] = [];
    for (;;) {
      const token = tokens[i] as Token;
      if (token.kind === 'word' && /^(hidden|static)$/i.test(token.text)) {
        if (token.text.toLowerCase() === 'hidden') hidden = true;
        else isStatic = true;
        i = skipTrivia(tokens, i + 1, true);
        continue;
      }
      if (token.kind === 'open' && token.text === '[' && token.match !== undefined) {
        const group = reader.readAttributeGroup(i);
        if (group !== undefined && 'typeName' in group) typeNames.push(group.typeName);
        i = skipTrivia(tokens, token.match + 1, true);
        continue;
      }
      break;
    }
    const member = tokens[i] as Token;
    if (member.kind === 'variable' && member.text.startsWith('$') && i < close) {
      properties.push({
        name: member.value ?? '',
        line: member.line,
        typeNames,
        hidden,
        static: isStatic,
      });
    }
    // Skip the rest of the member: a default value, a method's parameters and body.
    while (i < close) {
      const token = tokens[i] as Token;
      if (token.kind === 'newline' || token.kind === 'semicolon') break;
      if (token.kind === 'open' && token.match !== undefined) {
        i = token.match + 1;
        if (token.text === '{') break;
        continue;
      }
      i++;
    }
  }
  return properties;
}

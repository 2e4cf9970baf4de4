import type { Token } from './tokenizer.ts';

/** The value of an expression PowerShell can compute without running anything, when it is one. */
export type ConstantResult = { constant: true; value: unknown } | { constant: false };

const NOT_CONSTANT: ConstantResult = { constant: false };
/** Deeper nesting than any real default value: stops a hostile input from exhausting the stack. */
const MAX_DEPTH = 64;

class NotConstant extends Error {}

const MULTIPLIERS: Record<string, number> = {
  kb: 1024,
  mb: 1024 ** 2,
  gb: 1024 ** 3,
  tb: 1024 ** 4,
  pb: 1024 ** 5,
};
const NUMBER_PATTERN =
  /^([+\-\u2013\u2014\u2015]?)(0x[0-9a-f]+|0b[01]+|(?:\d+(?:\.\d+)?|\.\d+)(?:e[+-]?\d+)?)(ul|uy|us|u|l|y|s|n|d)?(kb|mb|gb|tb|pb)?$/i;

/** Parses a PowerShell numeric literal (`42`, `-1.5`, `0xFF`, `1e3`, `10kb`, `5L`), or undefined. */
export function parseNumberLiteral(text: string): number | undefined {
  const match = NUMBER_PATTERN.exec(text);
  if (match === null) return undefined;
  const [, sign = '', digits = '', , multiplier] = match;
  let value: number;
  if (/^0x/i.test(digits)) value = Number.parseInt(digits.slice(2), 16);
  else if (/^0b/i.test(digits)) value = Number.parseInt(digits.slice(2), 2);
  else value = Number(digits);
  if (multiplier !== undefined) value *= MULTIPLIERS[multiplier.toLowerCase()] as number;
  if (!Number.isFinite(value)) return undefined;
  return sign === '' || sign === '+' ? value : -value;
}

/** Well-known static members that appear in attribute arguments and defaults. */
const STATIC_MEMBERS: Record<string, unknown> = {
  'int::maxvalue': 2147483647,
  'int::minvalue': -2147483648,
  'int32::maxvalue': 2147483647,
  'int32::minvalue': -2147483648,
  'system.int32::maxvalue': 2147483647,
  'system.int32::minvalue': -2147483648,
  'int16::maxvalue': 32767,
  'int16::minvalue': -32768,
  'short::maxvalue': 32767,
  'short::minvalue': -32768,
  'byte::maxvalue': 255,
  'byte::minvalue': 0,
  'uint16::maxvalue': 65535,
  'uint32::maxvalue': 4294967295,
  'uint::maxvalue': 4294967295,
  'string::empty': '',
  'system.string::empty': '',
  'validaterangekind::positive': 'Positive',
  'validaterangekind::nonnegative': 'NonNegative',
  'validaterangekind::negative': 'Negative',
  'validaterangekind::nonpositive': 'NonPositive',
  'system.management.automation.validaterangekind::positive': 'Positive',
  'system.management.automation.validaterangekind::nonnegative': 'NonNegative',
  'system.management.automation.validaterangekind::negative': 'Negative',
  'system.management.automation.validaterangekind::nonpositive': 'NonPositive',
};

function castValue(typeName: string, value: unknown): unknown {
  const type = typeName
    .replace(/\s+/g, '')
    .toLowerCase()
    .replace(/^system\./, '');
  if (type.endsWith('[]')) {
    const element = type.slice(0, -2);
    const items = Array.isArray(value) ? value : [value];
    return items.map((item) => castValue(element, item));
  }
  switch (type) {
    case 'string':
      if (typeof value === 'string') return value;
      if (typeof value === 'number' || typeof value === 'boolean')
        return typeof value === 'boolean' ? (value ? 'True' : 'False') : String(value);
      throw new NotConstant();
    case 'int':
    case 'int32':
    case 'long':
    case 'int64':
    case 'int16':
    case 'short':
    case 'byte':
    case 'uint32':
    case 'uint64': {
      const number = typeof value === 'string' ? parseNumberLiteral(value.trim()) : value;
      if (typeof number === 'number' && Number.isInteger(number)) return number;
      throw new NotConstant();
    }
    case 'double':
    case 'float':
    case 'single':
    case 'decimal': {
      const number = typeof value === 'string' ? parseNumberLiteral(value.trim()) : value;
      if (typeof number === 'number') return number;
      throw new NotConstant();
    }
    case 'bool':
    case 'boolean':
      if (typeof value === 'boolean') return value;
      if (typeof value === 'number') return value !== 0;
      if (typeof value === 'string') return value.length > 0;
      throw new NotConstant();
    case 'array':
    case 'object[]':
      return Array.isArray(value) ? value : [value];
    case 'ordered':
    case 'hashtable':
    case 'collections.hashtable':
    case 'pscustomobject':
    case 'psobject':
    case 'management.automation.pscustomobject':
      if (typeof value === 'object' && value !== null && !Array.isArray(value)) return value;
      throw new NotConstant();
    default:
      // Types such as [datetime] or [guid]: the literal text is what a client would send.
      if (typeof value === 'string') return value;
      throw new NotConstant();
  }
}

/**
 * Evaluates a token range as a PowerShell constant expression: literals, `$true`/`$false`/`$null`,
 * non-interpolating strings, arrays (`@(...)`, `a, b`), hashtables, negation and simple casts.
 * Anything that would run code (`$env:X`, `(Get-Date)`, `"$x"`) is not constant.
 */
export function evaluateConstant(
  tokens: readonly Token[],
  start: number,
  end: number,
): ConstantResult {
  const indices: number[] = [];
  for (let i = start; i < end; i++) {
    if ((tokens[i] as Token).kind !== 'comment') indices.push(i);
  }
  // Line breaks around the whole expression do not matter.
  while (indices.length > 0 && (tokens[indices[0] as number] as Token).kind === 'newline')
    indices.shift();
  while (
    indices.length > 0 &&
    (tokens[indices[indices.length - 1] as number] as Token).kind === 'newline'
  )
    indices.pop();
  if (indices.length === 0) return NOT_CONSTANT;
  const evaluator = new ConstantEvaluator(tokens, indices);
  try {
    const value = evaluator.expression(0);
    if (!evaluator.atEnd()) return NOT_CONSTANT;
    return { constant: true, value };
  } catch (error) {
    if (error instanceof NotConstant || error instanceof RangeError) return NOT_CONSTANT;
    throw error;
  }
}

class ConstantEvaluator {
  private readonly tokens: readonly Token[];
  private readonly indices: readonly number[];
  private position = 0;

  constructor(tokens: readonly Token[], indices: readonly number[]) {
    this.tokens = tokens;
    this.indices = indices;
  }

  atEnd(): boolean {
    return this.position >= this.indices.length;
  }

  private peek(): Token | undefined {
    const index = this.indices[this.position];
    return index === undefined ? undefined : this.tokens[index];
  }

  private take(): Token {
    const token = this.peek();
    if (token === undefined) throw new NotConstant();
    this.position += 1;
    return token;
  }

  private skipNewlines(): void {
    while (this.peek()?.kind === 'newline') this.position += 1;
  }

  /** Moves to the token at absolute index `index` (which must be in range). */
  private seekTo(index: number): void {
    const position = this.indices.indexOf(index, this.position);
    if (position === -1) throw new NotConstant();
    this.position = position;
  }

  /** A comma list (an array) or a single value. */
  expression(depth: number): unknown {
    if (depth > MAX_DEPTH) throw new NotConstant();
    const first = this.unary(depth + 1);
    if (this.peek()?.kind !== 'comma') return first;
    const items = [first];
    while (this.peek()?.kind === 'comma') {
      this.position += 1;
      this.skipNewlines();
      items.push(this.unary(depth + 1));
    }
    return items;
  }

  private unary(depth: number): unknown {
    if (depth > MAX_DEPTH) throw new NotConstant();
    const token = this.take();
    if (token.kind === 'word') {
      const number = parseNumberLiteral(token.text);
      if (number !== undefined) return number;
      if (/^[-\u2013\u2014\u2015]$/.test(token.text)) {
        const operand = this.unary(depth + 1);
        if (typeof operand === 'number') return -operand;
        throw new NotConstant();
      }
      if (token.text === '+') {
        const operand = this.unary(depth + 1);
        if (typeof operand === 'number') return operand;
      }
      throw new NotConstant();
    }
    if (token.kind === 'open' && token.text === '[' && token.match !== undefined) {
      const typeName = this.sourceBetween(this.indices[this.position - 1] as number, token.match);
      this.seekTo(token.match);
      this.position += 1;
      const next = this.peek();
      if (next?.kind === 'word' && next.text.startsWith('::')) {
        this.position += 1;
        const key = `${typeName.replace(/\s+/g, '').toLowerCase()}${next.text.toLowerCase()}`;
        if (key in STATIC_MEMBERS) return STATIC_MEMBERS[key];
        throw new NotConstant();
      }
      return castValue(typeName, this.unary(depth + 1));
    }
    return this.primary(token, depth);
  }

  private sourceBetween(open: number, close: number): string {
    let text = '';
    for (let i = open + 1; i < close; i++) text += (this.tokens[i] as Token).text;
    return text;
  }

  private primary(token: Token, depth: number): unknown {
    if (token.kind === 'string') {
      if (token.expandable) throw new NotConstant();
      return token.value ?? '';
    }
    if (token.kind === 'variable' && token.text.startsWith('$')) {
      const name = (token.value ?? '').toLowerCase();
      if (name === 'true') return true;
      if (name === 'false') return false;
      if (name === 'null') return null;
      throw new NotConstant();
    }
    if (token.kind === 'open' && token.match !== undefined) {
      const close = token.match;
      if (token.text === '@(') return this.arrayExpression(close, depth);
      if (token.text === '@{') return this.hashtable(close, depth);
      if (token.text === '(') {
        this.skipNewlines();
        const value = this.expression(depth + 1);
        this.skipNewlines();
        this.expectClose(close);
        return value;
      }
    }
    throw new NotConstant();
  }

  private expectClose(close: number): void {
    if (this.indices[this.position] !== close) throw new NotConstant();
    this.position += 1;
  }

  /** `@( a, b \n c )`: statements separated by line breaks or `;`, flattened one level. */
  private arrayExpression(close: number, depth: number): unknown[] {
    const items: unknown[] = [];
    for (;;) {
      while (this.peek()?.kind === 'newline' || this.peek()?.kind === 'semicolon')
        this.position += 1;
      if (this.indices[this.position] === close) {
        this.position += 1;
        return items;
      }
      const value = this.expression(depth + 1);
      if (Array.isArray(value)) items.push(...value);
      else items.push(value);
      const next = this.peek();
      if (next === undefined) throw new NotConstant();
      if (
        this.indices[this.position] !== close &&
        next.kind !== 'newline' &&
        next.kind !== 'semicolon'
      ) {
        throw new NotConstant();
      }
    }
  }

  private hashtable(close: number, depth: number): Record<string, unknown> {
    const result: Record<string, unknown> = {};
    for (;;) {
      while (this.peek()?.kind === 'newline' || this.peek()?.kind === 'semicolon')
        this.position += 1;
      if (this.indices[this.position] === close) {
        this.position += 1;
        return result;
      }
      const keyToken = this.take();
      let key: string;
      if (keyToken.kind === 'word') key = keyToken.text;
      else if (keyToken.kind === 'string' && !keyToken.expandable) key = keyToken.value ?? '';
      else throw new NotConstant();
      this.skipNewlines();
      if (this.take().kind !== 'equals') throw new NotConstant();
      this.skipNewlines();
      const value = this.expression(depth + 1);
      Object.defineProperty(result, key, {
        value,
        enumerable: true,
        writable: true,
        configurable: true,
      });
      const next = this.peek();
      if (next === undefined) throw new NotConstant();
      if (
        this.indices[this.position] !== close &&
        next.kind !== 'newline' &&
        next.kind !== 'semicolon'
      ) {
        throw new NotConstant();
      }
    }
  }
}

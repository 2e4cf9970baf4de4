import { RE2JS } from 're2js';

/**
 * The one way a JSON Schema `pattern` (or `patternProperties` key) from a tool, a pack or a
 * client is run: translated to RE2 syntax and matched by re2js, whose time grows linearly
 * with the text. ECMAScript's engine backtracks: `^(a|a)*$` against 34 `a`s and a `b` holds
 * the server's only thread for a minute, answering nobody. JSON Schema means ECMAScript
 * patterns (with the `u` flag), so a pattern must be valid ECMAScript first; the translation
 * keeps ECMAScript's meaning where the two engines differ (`\s`, `.`), and a construct RE2
 * cannot run in linear time (back-references, lookaround) is refused with the reason.
 * docs/json-schema-patterns.md lists what differs.
 */
export interface LinearPattern {
  /** True when the pattern matches somewhere in `text` (ECMAScript's `RegExp#test`). */
  test(text: string): boolean;
  /** The pattern as written (Ajv keys its compiled patterns by it). */
  toString(): string;
}

/** Why `pattern` cannot be used, in words, or undefined when it compiles. */
export function findPatternProblem(pattern: string): string | undefined {
  try {
    compileLinearPattern(pattern);
    return undefined;
  } catch (error) {
    return (error as Error).message;
  }
}

const compiledPatterns = new Map<string, LinearPattern>();
/** Patterns kept compiled at most; tools declare few, and a client can send none. */
const MAX_CACHED_PATTERNS = 2000;

export interface LinearPatternOptions {
  /** ECMAScript's `i` flag (JSON Schema has none; PowerShell's `-match` ignores case). */
  ignoreCase?: boolean;
}

/**
 * Compiles an ECMAScript pattern for linear-time matching. Throws an Error whose message
 * says what is wrong (`the pattern "(a)\1" uses a back-reference (\1) …`).
 */
export function compileLinearPattern(
  pattern: string,
  options: LinearPatternOptions = {},
): LinearPattern {
  const ignoreCase = options.ignoreCase === true;
  const key = `${ignoreCase ? 'i' : '-'}${pattern}`;
  const cached = compiledPatterns.get(key);
  if (cached !== undefined) return cached;
  try {
    // Only compiled, never run: V8 parses in linear time, and this is JSON Schema's rule.
    new RegExp(pattern, ignoreCase ? 'iu' : 'u');
  } catch (cause) {
    throw new Error(
      `the pattern ${JSON.stringify(pattern)} is not a valid ECMAScript regular expression (${(cause as Error).message})`,
      { cause },
    );
  }
  let translated: string;
  try {
    translated = translatePattern(pattern);
  } catch (cause) {
    if (!(cause instanceof InexpressibleError)) throw cause;
    throw new Error(
      `the pattern ${JSON.stringify(pattern)} uses ${cause.message}, which the linear-time engine (RE2) cannot run`,
      { cause },
    );
  }
  let engine: RE2JS;
  try {
    engine = RE2JS.compile(translated, ignoreCase ? RE2JS.CASE_INSENSITIVE : 0);
  } catch (cause) {
    throw new Error(
      `the pattern ${JSON.stringify(pattern)} cannot be run by the linear-time engine (RE2): ${(cause as Error).message}`,
      { cause },
    );
  }
  const compiled: LinearPattern = {
    test: (text) => engine.test(text),
    toString: () => pattern,
  };
  if (compiledPatterns.size >= MAX_CACHED_PATTERNS) compiledPatterns.clear();
  compiledPatterns.set(key, compiled);
  return compiled;
}

class InexpressibleError extends Error {}

/** ECMAScript's `\s` (WhiteSpace and LineTerminator), as code point ranges. */
const SPACE_RANGES: readonly [number, number][] = [
  [0x09, 0x0d],
  [0x20, 0x20],
  [0xa0, 0xa0],
  [0x1680, 0x1680],
  [0x2000, 0x200a],
  [0x2028, 0x2029],
  [0x202f, 0x202f],
  [0x205f, 0x205f],
  [0x3000, 0x3000],
  [0xfeff, 0xfeff],
];
const MAX_CODE_POINT = 0x10ffff;

function complement(ranges: readonly [number, number][]): [number, number][] {
  const out: [number, number][] = [];
  let next = 0;
  for (const [lo, hi] of ranges) {
    if (lo > next) out.push([next, lo - 1]);
    next = hi + 1;
  }
  if (next <= MAX_CODE_POINT) out.push([next, MAX_CODE_POINT]);
  return out;
}

function codePoint(value: number): string {
  return `\\x{${value.toString(16)}}`;
}

function writeRanges(ranges: readonly [number, number][]): string {
  return ranges
    .map(([lo, hi]) => (lo === hi ? codePoint(lo) : `${codePoint(lo)}-${codePoint(hi)}`))
    .join('');
}

const SPACE_CLASS_BODY = writeRanges(SPACE_RANGES);
const NON_SPACE_CLASS_BODY = writeRanges(complement(SPACE_RANGES));
/** ECMAScript's `.` without the `s` flag: anything but a line terminator. */
const DOT = `[^\\n\\r${codePoint(0x2028)}${codePoint(0x2029)}]`;
const CONTROL_ESCAPES: Record<string, number> = { t: 9, n: 10, v: 11, f: 12, r: 13 };

/**
 * ECMAScript (`u` flag, already known valid) to RE2 syntax, token by token. Characters are
 * written as `\x{…}` escapes or escaped punctuation, so nothing RE2 reads differently
 * (`[[:alpha:]]`, `\Q`) can slip through.
 */
function translatePattern(source: string): string {
  let i = 0;
  let out = '';
  const peek = (text: string) => source.startsWith(text, i);

  /** A `\…` escape naming one code point, in or out of a class; undefined when it is not one. */
  const readCodePointEscape = (inClass: boolean): number | undefined => {
    const rest = source.slice(i);
    const next = rest[1] as string;
    if (next in CONTROL_ESCAPES) {
      i += 2;
      return CONTROL_ESCAPES[next];
    }
    if (inClass && next === 'b') {
      i += 2;
      return 0x08;
    }
    if (next === '0' && !/^\\0\d/.test(rest)) {
      i += 2;
      return 0;
    }
    const control = /^\\c([A-Za-z])/.exec(rest);
    if (control !== null) {
      i += 3;
      return (control[1] as string).charCodeAt(0) % 32;
    }
    const byte = /^\\x([0-9a-fA-F]{2})/.exec(rest);
    if (byte !== null) {
      i += 4;
      return Number.parseInt(byte[1] as string, 16);
    }
    const braced = /^\\u\{([0-9a-fA-F]+)\}/.exec(rest);
    if (braced !== null) {
      i += braced[0].length;
      return Number.parseInt(braced[1] as string, 16);
    }
    const unit = /^\\u([0-9a-fA-F]{4})/.exec(rest);
    if (unit !== null) {
      i += 6;
      const high = Number.parseInt(unit[1] as string, 16);
      const low = /^\\u([dD][c-fC-F][0-9a-fA-F]{2})/.exec(source.slice(i));
      // With the `u` flag a surrogate pair of escapes is one code point.
      if (high >= 0xd800 && high <= 0xdbff && low !== null) {
        i += 6;
        return 0x10000 + ((high - 0xd800) << 10) + (Number.parseInt(low[1] as string, 16) - 0xdc00);
      }
      return high;
    }
    if (/^[\p{L}\p{N}_]$/u.test(next)) return undefined;
    // An escaped syntax character (or `-` in a class) stands for itself.
    const ch = String.fromCodePoint(rest.codePointAt(1) as number);
    i += 1 + ch.length;
    return ch.codePointAt(0);
  };

  /** `\d \D \w \W \s \S \p{…} \P{…}` as RE2 text valid inside a class; undefined when it is none. */
  const readClassEscape = (): { inClass: string; alone: string } | undefined => {
    const rest = source.slice(i);
    const next = rest[1] as string;
    if ('dDwW'.includes(next)) {
      // ASCII in both engines (ECMAScript without the `i` flag).
      i += 2;
      return { inClass: `\\${next}`, alone: `\\${next}` };
    }
    if (next === 's') {
      i += 2;
      return { inClass: SPACE_CLASS_BODY, alone: `[${SPACE_CLASS_BODY}]` };
    }
    if (next === 'S') {
      i += 2;
      return { inClass: NON_SPACE_CLASS_BODY, alone: `[${NON_SPACE_CLASS_BODY}]` };
    }
    const property = /^\\([pP])\{([^}]*)\}/.exec(rest);
    if (property !== null) {
      i += property[0].length;
      const text = `\\${property[1]}{${translateProperty(property[2] as string)}}`;
      return { inClass: text, alone: text };
    }
    return undefined;
  };

  const readLiteral = (): number => {
    const value = source.codePointAt(i) as number;
    i += String.fromCodePoint(value).length;
    return value;
  };

  const readClass = (): string => {
    i += 1; // [
    let negated = false;
    if (source[i] === '^') {
      negated = true;
      i += 1;
    }
    let body = '';
    // A `-` joins a range only right after a single character (`a-z`); elsewhere
    // (`[-a]`, `[a-]`, `[a-c-e]`) it is itself.
    let afterSingle = false;
    while (source[i] !== ']') {
      if (source[i] === '\\') {
        const shorthand = readClassEscape();
        if (shorthand !== undefined) {
          body += shorthand.inClass;
          afterSingle = false;
          continue;
        }
        const value = readCodePointEscape(true);
        if (value === undefined)
          throw new InexpressibleError(`the escape ${source.slice(i, i + 2)}`);
        body += codePoint(value);
        afterSingle = true;
      } else if (source[i] === '-' && afterSingle && source[i + 1] !== ']') {
        body += '-';
        i += 1;
        // The range's end follows; after it a `-` is a character again.
        afterSingle = false;
        const end = source[i] === '\\' ? readCodePointEscape(true) : readLiteral();
        if (end === undefined) throw new InexpressibleError(`the escape ${source.slice(i, i + 2)}`);
        body += codePoint(end);
      } else {
        body += codePoint(readLiteral());
        afterSingle = true;
      }
    }
    i += 1; // ]
    // RE2 has no empty class: `[]` matches nothing and `[^]` anything, as in ECMAScript.
    if (body === '')
      return negated
        ? `[${writeRanges([[0, MAX_CODE_POINT]])}]`
        : `[^${writeRanges([[0, MAX_CODE_POINT]])}]`;
    return `[${negated ? '^' : ''}${body}]`;
  };

  while (i < source.length) {
    const ch = source[i] as string;
    if (ch === '\\') {
      const next = source[i + 1] as string;
      if (next === 'b' || next === 'B') {
        out += `\\${next}`;
        i += 2;
        continue;
      }
      if (/^[1-9]$/.test(next) || peek('\\k<')) {
        throw new InexpressibleError(
          `a back-reference (${/^\\(?:\d+|k<[^>]*>)/.exec(source.slice(i))?.[0]})`,
        );
      }
      const shorthand = readClassEscape();
      if (shorthand !== undefined) {
        out += shorthand.alone;
        continue;
      }
      const value = readCodePointEscape(false);
      if (value === undefined) throw new InexpressibleError(`the escape ${source.slice(i, i + 2)}`);
      out += codePoint(value);
      continue;
    }
    if (ch === '[') {
      out += readClass();
      continue;
    }
    if (ch === '(') {
      if (peek('(?=') || peek('(?!'))
        throw new InexpressibleError(`a lookahead (${source.slice(i, i + 3)}…)`);
      if (peek('(?<=') || peek('(?<!'))
        throw new InexpressibleError(`a lookbehind (${source.slice(i, i + 4)}…)`);
      const named = /^\(\?<[^>]+>/.exec(source.slice(i));
      if (named !== null) {
        // Only whether it matches counts: a name (or a capture) changes nothing.
        out += '(?:';
        i += named[0].length;
        continue;
      }
      if (peek('(?:')) {
        out += '(?:';
        i += 3;
        continue;
      }
      if (peek('(?')) throw new InexpressibleError(`the modifier group ${source.slice(i, i + 4)}…`);
      out += '(?:';
      i += 1;
      continue;
    }
    if (ch === '.') {
      out += DOT;
      i += 1;
      continue;
    }
    if ('^$|)*+?'.includes(ch)) {
      out += ch;
      i += 1;
      continue;
    }
    if (ch === '{') {
      // Valid with the `u` flag, so a brace here is a quantifier.
      const end = source.indexOf('}', i);
      out += source.slice(i, end + 1);
      i = end + 1;
      continue;
    }
    const value = source.codePointAt(i) as number;
    out += /^[A-Za-z0-9 ]$/.test(ch) ? ch : codePoint(value);
    i += String.fromCodePoint(value).length;
  }
  return out;
}

/**
 * ECMAScript names a property as `L`, `Letter`, `General_Category=L`, `Script=Greek` or
 * `sc=Greek`; RE2 knows general categories by their short names and scripts by name alone.
 */
function translateProperty(name: string): string {
  const [key, value] = name.includes('=') ? (name.split('=', 2) as [string, string]) : ['', name];
  if (key === 'Script' || key === 'sc' || key === 'General_Category' || key === 'gc') return value;
  if (key !== '') {
    throw new InexpressibleError(
      `the Unicode property \\p{${name}} (RE2 knows general categories such as \\p{L} and scripts such as \\p{Greek})`,
    );
  }
  const short = GENERAL_CATEGORY_NAMES[value];
  return short ?? value;
}

const GENERAL_CATEGORY_NAMES: Record<string, string> = {
  Letter: 'L',
  Cased_Letter: 'LC',
  Uppercase_Letter: 'Lu',
  Lowercase_Letter: 'Ll',
  Titlecase_Letter: 'Lt',
  Modifier_Letter: 'Lm',
  Other_Letter: 'Lo',
  Mark: 'M',
  Combining_Mark: 'M',
  Nonspacing_Mark: 'Mn',
  Spacing_Mark: 'Mc',
  Enclosing_Mark: 'Me',
  Number: 'N',
  Decimal_Number: 'Nd',
  digit: 'Nd',
  Letter_Number: 'Nl',
  Other_Number: 'No',
  Punctuation: 'P',
  punct: 'P',
  Connector_Punctuation: 'Pc',
  Dash_Punctuation: 'Pd',
  Open_Punctuation: 'Ps',
  Close_Punctuation: 'Pe',
  Initial_Punctuation: 'Pi',
  Final_Punctuation: 'Pf',
  Other_Punctuation: 'Po',
  Symbol: 'S',
  Math_Symbol: 'Sm',
  Currency_Symbol: 'Sc',
  Modifier_Symbol: 'Sk',
  Other_Symbol: 'So',
  Separator: 'Z',
  Space_Separator: 'Zs',
  Line_Separator: 'Zl',
  Paragraph_Separator: 'Zp',
  Other: 'C',
  Control: 'Cc',
  cntrl: 'Cc',
  Format: 'Cf',
  Surrogate: 'Cs',
  Private_Use: 'Co',
  Unassigned: 'Cn',
};

/**
 * The shortest string a simple regular expression matches (`^\d+\.\d+\.\d+$` -> `0.0.0`),
 * for smoke-test arguments. Handles literals, escapes, character classes, groups,
 * alternation (the first branch) and quantifiers; anything else (look-arounds,
 * back-references) gives undefined. The caller checks the result with the engine the server uses.
 */
export function samplePattern(pattern: string): string | undefined {
  const parser = { source: pattern, at: 0, depth: 0 };
  try {
    const sample = readAlternation(parser);
    if (parser.at !== pattern.length) return undefined;
    return sample;
  } catch {
    return undefined;
  }
}

interface Parser {
  source: string;
  at: number;
  depth: number;
}

const MAX_DEPTH = 50;
const MAX_LENGTH = 1_000;

class Unsupported extends Error {}

function peek(parser: Parser): string | undefined {
  return parser.source[parser.at];
}

function readAlternation(parser: Parser): string {
  if (++parser.depth > MAX_DEPTH) throw new Unsupported('too deep');
  const first = readSequence(parser);
  // The first branch is the sample; the others are read only to find the group's end.
  while (peek(parser) === '|') {
    parser.at++;
    readSequence(parser);
  }
  parser.depth--;
  return first;
}

function readSequence(parser: Parser): string {
  let out = '';
  for (;;) {
    const c = peek(parser);
    if (c === undefined || c === '|' || c === ')') return out;
    const atom = readAtom(parser);
    const count = readQuantifier(parser);
    out += atom.repeat(count);
    if (out.length > MAX_LENGTH) throw new Unsupported('too long');
  }
}

/** The fewest repetitions the quantifier allows (1 without one). */
function readQuantifier(parser: Parser): number {
  const c = peek(parser);
  let count = 1;
  if (c === '?' || c === '*') {
    parser.at++;
    count = 0;
  } else if (c === '+') {
    parser.at++;
  } else if (c === '{') {
    const match = /^\{(\d+)(,\d*)?\}/.exec(parser.source.slice(parser.at));
    if (match === null) return 1; // a literal "{"
    parser.at += match[0].length;
    count = Number(match[1]);
  } else {
    return 1;
  }
  if (peek(parser) === '?' || peek(parser) === '+') parser.at++; // lazy or possessive
  return count;
}

function readAtom(parser: Parser): string {
  const c = peek(parser) ?? '';
  parser.at++;
  switch (c) {
    case '^':
    case '$':
      return '';
    case '.':
      return 'a';
    case '\\':
      return readEscape(parser, false);
    case '[':
      return readClass(parser);
    case '(': {
      if (peek(parser) === '?') {
        const rest = parser.source.slice(parser.at);
        const named =
          /^\?<([A-Za-z_][A-Za-z0-9_]*)>/.exec(rest) ?? /^\?P<([A-Za-z_][A-Za-z0-9_]*)>/.exec(rest);
        if (rest.startsWith('?:')) parser.at += 2;
        else if (named !== null) parser.at += named[0].length;
        else throw new Unsupported('look-around');
      }
      const inner = readAlternation(parser);
      if (peek(parser) !== ')') throw new Unsupported('unclosed group');
      parser.at++;
      return inner;
    }
    case '*':
    case '+':
    case '?':
    case ')':
    case '|':
      throw new Unsupported('misplaced operator');
    default:
      return c;
  }
}

/** One escaped character: a class escape gives a member, anything else itself. */
function readEscape(parser: Parser, inClass: boolean): string {
  const c = peek(parser);
  if (c === undefined) throw new Unsupported('trailing backslash');
  parser.at++;
  switch (c) {
    case 'd':
      return '0';
    case 'w':
      return 'a';
    case 's':
      return ' ';
    case 'D':
    case 'W':
    case 'S':
      return c === 'W' ? '-' : 'a';
    case 'b':
      if (inClass) return '\b';
      return '';
    case 'B':
      return '';
    case 'n':
      return '\n';
    case 't':
      return '\t';
    case 'r':
      return '\r';
    case 'f':
      return '\f';
    case 'v':
      return '\v';
    case '0':
      return '\0';
    case 'c':
      throw new Unsupported('control escape');
    case 'x': {
      const hex = /^[0-9A-Fa-f]{2}/.exec(parser.source.slice(parser.at));
      if (hex === null) throw new Unsupported('bad \\x');
      parser.at += 2;
      return String.fromCharCode(Number.parseInt(hex[0], 16));
    }
    case 'u': {
      const hex = /^[0-9A-Fa-f]{4}/.exec(parser.source.slice(parser.at));
      if (hex === null) throw new Unsupported('bad \\u');
      parser.at += 4;
      return String.fromCharCode(Number.parseInt(hex[0], 16));
    }
    default:
      if (/[1-9k]/.test(c)) throw new Unsupported('back-reference');
      if (/[pP]/.test(c)) throw new Unsupported('property escape');
      return c;
  }
}

/** A member of `[...]`; for `[^...]`, a common character the class leaves out. */
function readClass(parser: Parser): string {
  const negated = peek(parser) === '^';
  if (negated) parser.at++;
  const members: string[] = [];
  const ranges: [string, string][] = [];
  // JSON Schema patterns are JavaScript regexes: a `]` right after `[` or `[^` closes the
  // class (`[]` matches nothing, `[^]` anything), unlike POSIX where it would be a member.
  for (;;) {
    const c = peek(parser);
    if (c === undefined) throw new Unsupported('unclosed class');
    if (c === ']') {
      parser.at++;
      break;
    }
    parser.at++;
    let member = c;
    if (c === '\\') member = readEscape(parser, true);
    if (
      peek(parser) === '-' &&
      parser.source[parser.at + 1] !== ']' &&
      parser.source[parser.at + 1] !== undefined
    ) {
      parser.at++;
      let end = peek(parser) ?? '';
      parser.at++;
      if (end === '\\') end = readEscape(parser, true);
      ranges.push([member, end]);
    } else {
      members.push(member);
    }
  }
  if (negated && members.length === 0 && ranges.length === 0) return 'a';
  if (!negated) {
    const pick = ranges[0]?.[0] ?? members[0];
    if (pick === undefined) throw new Unsupported('empty class');
    return pick;
  }
  const excluded = (ch: string) =>
    members.includes(ch) || ranges.some(([from, to]) => ch >= from && ch <= to);
  const pick = ['a', 'x', '0', 'A', '-', '_', ' '].find((ch) => !excluded(ch));
  if (pick === undefined) throw new Unsupported('negated class excludes every sample');
  return pick;
}

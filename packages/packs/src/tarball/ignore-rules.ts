/**
 * `.gitignore`-style rules for `.toolpackignore`: `#` comments, `!` re-includes, a trailing
 * `/` matches folders only, a `/` at the start or in the middle anchors the pattern to the
 * pack root, `*` and `?` stay within one path segment, `**` spans segments, `[abc]` classes,
 * `\` escapes; wildcards and classes follow git's `wildmatch`.
 *
 * Why hand-written rather than a regular expression (or picomatch / the `ignore` package,
 * which both compile to one): a backtracking regex engine takes polynomial time on patterns
 * such as `*a*a*a*a*ac` (about 90 s for one 300-character name), and a `.toolpackignore` is
 * user input read on every pack. Here the cost is bounded by construction: within a segment
 * the greedy wildcard algorithm remembers only the last `*` (O(pattern x name)); across
 * segments a boolean table over (pattern segment, path segment) handles `**`, so every
 * segment pair is compared at most once.
 */
import { createDiagnostic, type Diagnostic } from '@toolpack/core';

export interface IgnoreRule {
  negate: boolean;
  directoryOnly: boolean;
  /** The pattern as written, without its `!`, trailing `/` and trailing spaces. */
  pattern: string;
  /** No `/` in the pattern: it is tried against each name alone, at any depth. */
  basenameOnly: boolean;
  /** `undefined` when no path can match (see `findIgnoreFileProblems` for why). */
  segments: readonly GlobSegment[] | undefined;
}

/** One `/`-separated piece of a pattern: `**` (any number of segments) or a glob. */
export type GlobSegment =
  { kind: 'globstar'; minSegments: number } | { kind: 'glob'; tokens: readonly GlobToken[] };

export type GlobToken =
  | { kind: 'literal'; code: number }
  | { kind: 'any' }
  | { kind: 'star' }
  | { kind: 'class'; negated: boolean; ascii: Uint8Array; wide: readonly number[] };

/** Never packed, whatever `.toolpackignore` says: they are either secrets or not the pack's own. */
const ALWAYS_IGNORED: readonly string[] = [
  '.git',
  'node_modules',
  '.toolpack',
  '.env*',
  '*.pem',
  '*.key',
  'id_rsa*',
  '*.tgz',
  '.toolpackignore',
  '.DS_Store',
];

export function parseIgnoreFile(text: string): IgnoreRule[] {
  return text.split(/\r?\n/).flatMap((raw) => {
    const rule = compileIgnorePattern(raw);
    return rule === undefined ? [] : [rule];
  });
}

export function compileIgnorePattern(raw: string): IgnoreRule | undefined {
  return compileLine(raw)?.rule;
}

/**
 * Lines of an ignore file that can never match anything (an unterminated `[`, a trailing
 * `\`, a reversed range such as `[z-a]`, an unknown `[:name:]`): git silently ignores
 * them, which leaves the files the author meant to hide inside the pack.
 */
export function findIgnoreFileProblems(text: string, filePath: string): Diagnostic[] {
  return text.split(/\r?\n/).flatMap((raw, index) => {
    const problem = compileLine(raw)?.problem;
    if (problem === undefined) return [];
    return [
      createDiagnostic(
        'warning',
        'W_IGNORE_PATTERN_NEVER_MATCHES',
        `${filePath}:${index + 1}: the pattern ${JSON.stringify(raw.trim())} matches nothing: ${problem}.`,
        { path: filePath, line: index + 1 },
        'Fix the pattern, or escape the character with `\\` to match it literally.',
      ),
    ];
  });
}

interface CompiledLine {
  rule: IgnoreRule;
  problem?: string;
}

function compileLine(raw: string): CompiledLine | undefined {
  let line = trimTrailingSpaces(raw);
  if (line === '' || line.startsWith('#')) return undefined;
  let negate = false;
  if (line.startsWith('!')) {
    negate = true;
    line = line.slice(1);
  }
  let end = line.length;
  // A loop, not `/\/+$/`: that regex is quadratic on a long run of `/` followed by more text.
  while (end > 0 && line.charAt(end - 1) === '/') end -= 1;
  const directoryOnly = end < line.length;
  line = line.slice(0, end);
  if (line === '') return undefined;
  const basenameOnly = !line.includes('/');
  const pattern = line.replace(/^\/+/, '');
  const parsed = parseGlob(pattern, basenameOnly);
  const rule: IgnoreRule = {
    negate,
    directoryOnly,
    pattern: line,
    basenameOnly,
    segments: 'problem' in parsed ? undefined : parsed.segments,
  };
  return 'problem' in parsed ? { rule, problem: parsed.problem } : { rule };
}

const isWhitespace = (char: string) => /\s/.test(char);

/**
 * Git's rule, scanning once (a `\s+$` regex is itself quadratic on long runs of spaces):
 * trailing whitespace goes unless escaped with `\`, and `\\` is an escaped backslash. git
 * trims spaces only; Toolpack has always trimmed tabs and other whitespace too.
 */
function trimTrailingSpaces(line: string): string {
  let cut = -1;
  for (let i = 0; i < line.length; i += 1) {
    const char = line.charAt(i);
    if (isWhitespace(char)) {
      if (cut === -1) cut = i;
    } else {
      if (char === '\\') i += 1;
      cut = -1;
    }
  }
  return cut === -1 ? line : line.slice(0, cut);
}

type ParsedGlob = { segments: GlobSegment[] } | { problem: string };

const BACKSLASH = 0x5c;
const SLASH = 0x2f;
const STAR = 0x2a;

function parseGlob(pattern: string, basenameOnly: boolean): ParsedGlob {
  const codes = toCodePoints(pattern);
  const segments: GlobSegment[] = [];
  let tokens: GlobToken[] = [];
  let segmentStart = true;
  const endSegment = () => {
    segments.push({ kind: 'glob', tokens });
    tokens = [];
    segmentStart = true;
  };
  for (let i = 0; i < codes.length; i += 1) {
    const code = codes[i]!;
    if (code === BACKSLASH) {
      i += 1;
      const escaped = codes[i];
      if (escaped === undefined) return { problem: 'it ends with a lone `\\`' };
      if (escaped === SLASH) endSegment();
      else addToken(tokens, { kind: 'literal', code: escaped });
      segmentStart = escaped === SLASH;
      continue;
    }
    if (code === SLASH) {
      endSegment();
      continue;
    }
    if (code === STAR) {
      let end = i;
      while (codes[end + 1] === STAR) end += 1;
      const next = codes[end + 1];
      const escapedSlashNext = next === BACKSLASH && codes[end + 2] === SLASH;
      const globstar =
        !basenameOnly &&
        end > i &&
        segmentStart &&
        (next === undefined || next === SLASH || escapedSlashNext);
      if (globstar) {
        segments.push({
          kind: 'globstar',
          // git's `**/` also matches zero folders; `**\/` (escaped) and a trailing `/**`
          // need at least one segment after the `/` already matched.
          minSegments: next === SLASH || (next === undefined && segments.length === 0) ? 0 : 1,
        });
        i = next === undefined ? end : end + (escapedSlashNext ? 2 : 1);
        segmentStart = true;
        continue;
      }
      addToken(tokens, { kind: 'star' });
      i = end;
    } else if (code === 0x3f /* ? */) {
      addToken(tokens, { kind: 'any' });
    } else if (code === 0x5b /* [ */) {
      const parsed = parseClass(codes, i);
      if ('problem' in parsed) return parsed;
      addToken(tokens, parsed.token);
      i = parsed.end;
    } else {
      addToken(tokens, { kind: 'literal', code });
    }
    segmentStart = false;
  }
  // A pattern that ended on `**` has already closed its last segment.
  if (!segmentStart || segments.at(-1)?.kind !== 'globstar') endSegment();
  return { segments };
}

function addToken(tokens: GlobToken[], token: GlobToken): void {
  // `**` inside a segment means `*`, and back-to-back stars would only add retry work.
  if (token.kind === 'star' && tokens.at(-1)?.kind === 'star') return;
  tokens.push(token);
}

type ParsedClass = { token: GlobToken; end: number } | { problem: string };

const POSIX_CLASSES: Record<string, (code: number) => boolean> = {
  alnum: (c) => isDigit(c) || isAlpha(c),
  alpha: (c) => isAlpha(c),
  blank: (c) => c === 0x20 || c === 0x09,
  cntrl: (c) => c < 0x20 || c === 0x7f,
  digit: (c) => isDigit(c),
  graph: (c) => c > 0x20 && c < 0x7f,
  lower: (c) => c >= 0x61 && c <= 0x7a,
  print: (c) => c >= 0x20 && c < 0x7f,
  punct: (c) => c > 0x20 && c < 0x7f && !isDigit(c) && !isAlpha(c),
  // git's own ctype: no vertical tab or form feed.
  space: (c) => c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d,
  upper: (c) => c >= 0x41 && c <= 0x5a,
  xdigit: (c) => isDigit(c) || (c >= 0x41 && c <= 0x46) || (c >= 0x61 && c <= 0x66),
};

function isDigit(code: number): boolean {
  return code >= 0x30 && code <= 0x39;
}

function isAlpha(code: number): boolean {
  return (code >= 0x41 && code <= 0x5a) || (code >= 0x61 && code <= 0x7a);
}

/**
 * Reads `[...]` starting at `start` the way git's wildmatch does: `!` or `^` negates, a `]`
 * right after the opening (or the negation) is a member, `\` escapes, `a-z` is a range,
 * `[:alpha:]` and friends are ASCII classes.
 */
function parseClass(codes: readonly number[], start: number): ParsedClass {
  const ascii = new Uint8Array(128);
  const wide: number[] = [];
  const addRange = (low: number, high: number) => {
    for (let c = low; c <= Math.min(high, 127); c += 1) ascii[c] = 1;
    if (high > 127) wide.push(Math.max(low, 128), high);
  };
  const unterminated = { problem: 'its `[` has no closing `]`' };
  let i = start + 1;
  let code = codes[i];
  const negated = code === 0x21 /* ! */ || code === 0x5e; /* ^ */
  if (negated) {
    i += 1;
    code = codes[i];
  }
  // -1: no previous member a `-` could start a range from.
  let previous = -1;
  do {
    if (code === undefined) return unterminated;
    if (code === BACKSLASH) {
      i += 1;
      code = codes[i];
      if (code === undefined) return unterminated;
      addRange(code, code);
    } else if (
      code === 0x2d /* - */ &&
      previous !== -1 &&
      codes[i + 1] !== undefined &&
      codes[i + 1] !== 0x5d
    ) {
      i += 1;
      let high = codes[i]!;
      if (high === BACKSLASH) {
        i += 1;
        const escaped = codes[i];
        if (escaped === undefined) return unterminated;
        high = escaped;
      }
      // git lets a reversed range match nothing and keeps the rest of the class; Toolpack
      // has always dropped the whole line instead (a reversed range is a typo, and a
      // negated class around it would otherwise ignore almost everything).
      if (high < previous) {
        return {
          problem: `the range ${String.fromCodePoint(previous)}-${String.fromCodePoint(high)} is reversed`,
        };
      }
      addRange(previous, high);
      code = -1;
    } else if (code === 0x5b /* [ */ && codes[i + 1] === 0x3a /* : */) {
      let close = i + 2;
      while (codes[close] !== undefined && codes[close] !== 0x5d) close += 1;
      if (codes[close] === undefined) return unterminated;
      if (close - (i + 2) - 1 < 0 || codes[close - 1] !== 0x3a) {
        // No `:]`: the `[` is an ordinary member and the scan goes on after it.
        addRange(code, code);
      } else {
        const name = codes
          .slice(i + 2, close - 1)
          .map((c) => String.fromCodePoint(c))
          .join('');
        const test = Object.hasOwn(POSIX_CLASSES, name) ? POSIX_CLASSES[name] : undefined;
        if (test === undefined) return { problem: `[:${name}:] is not a character class` };
        for (let c = 0; c < 128; c += 1) if (test(c)) ascii[c] = 1;
        i = close;
        code = -1;
      }
    } else {
      addRange(code, code);
    }
    previous = code;
    i += 1;
    code = codes[i];
  } while (code !== 0x5d);
  return { token: { kind: 'class', negated, ascii, wide: mergeRanges(wide) }, end: i };
}

/** Sorted, non-overlapping `[low, high, low, high, ...]`, so a lookup is a binary search. */
function mergeRanges(flat: readonly number[]): number[] {
  const pairs: [number, number][] = [];
  for (let r = 0; r < flat.length; r += 2) pairs.push([flat[r]!, flat[r + 1]!]);
  pairs.sort((a, b) => a[0] - b[0]);
  const merged: number[] = [];
  for (const [low, high] of pairs) {
    const last = merged.length - 1;
    if (last > 0 && low <= merged[last]! + 1) merged[last] = Math.max(merged[last]!, high);
    else merged.push(low, high);
  }
  return merged;
}

function inRanges(ranges: readonly number[], code: number): boolean {
  let low = 0;
  let high = ranges.length / 2 - 1;
  while (low <= high) {
    const middle = (low + high) >> 1;
    if (code < ranges[2 * middle]!) high = middle - 1;
    else if (code > ranges[2 * middle + 1]!) low = middle + 1;
    else return true;
  }
  return false;
}

function toCodePoints(text: string): number[] {
  const codes: number[] = [];
  for (const char of text) codes.push(char.codePointAt(0)!);
  return codes;
}

function matchesCode(token: GlobToken, code: number): boolean {
  switch (token.kind) {
    case 'literal':
      return token.code === code;
    case 'any':
      return true;
    case 'star':
      return false;
    case 'class': {
      const member = code < 128 ? token.ascii[code] === 1 : inRanges(token.wide, code);
      return member !== token.negated;
    }
  }
}

/**
 * The greedy wildcard algorithm: on a mismatch, only the most recent `*` takes one more
 * character and the rest is retried from there. Earlier stars never need revisiting (the
 * later star can absorb anything they could), so the work is O(tokens x characters).
 */
function matchSegment(tokens: readonly GlobToken[], text: readonly number[]): boolean {
  let p = 0;
  let t = 0;
  let starAt = -1;
  let starText = 0;
  while (t < text.length) {
    const token = tokens[p];
    if (token !== undefined) {
      if (token.kind === 'star') {
        starAt = p;
        starText = t;
        p += 1;
        continue;
      }
      if (matchesCode(token, text[t]!)) {
        p += 1;
        t += 1;
        continue;
      }
    }
    if (starAt === -1) return false;
    p = starAt + 1;
    starText += 1;
    t = starText;
  }
  while (tokens[p]?.kind === 'star') p += 1;
  return p === tokens.length;
}

/**
 * Which leading parts of the path the pattern matches: `result[k]` is 1 when it matches
 * the first `k` segments. One pass answers for the path and all its parent folders.
 */
function matchPrefixes(rule: IgnoreRule, path: readonly (readonly number[])[]): Uint8Array {
  const n = path.length;
  const result = new Uint8Array(n + 1);
  const segments = rule.segments;
  if (segments === undefined) return result;
  if (rule.basenameOnly) {
    const only = segments[0];
    if (only?.kind !== 'glob') return result;
    for (let k = 1; k <= n; k += 1) result[k] = matchSegment(only.tokens, path[k - 1]!) ? 1 : 0;
    return result;
  }
  // reached[j]: the pattern segments so far match exactly the first j path segments.
  let reached = new Uint8Array(n + 1);
  reached[0] = 1;
  for (const segment of segments) {
    const next = new Uint8Array(n + 1);
    if (segment.kind === 'globstar') {
      const first = reached.indexOf(1);
      if (first === -1) return result;
      next.fill(1, Math.min(first + segment.minSegments, n + 1));
    } else {
      let any = false;
      for (let j = 0; j < n; j += 1) {
        if (reached[j] === 1 && matchSegment(segment.tokens, path[j]!)) {
          next[j + 1] = 1;
          any = true;
        }
      }
      if (!any) return result;
    }
    reached = next;
  }
  return reached;
}

const alwaysRules = ALWAYS_IGNORED.map((pattern) => compileIgnorePattern(pattern)!);

/**
 * Decides one path (relative, `/`-separated). As in git, the last matching rule wins, and a
 * path inside an ignored folder cannot be re-included: each parent folder is decided too.
 */
export function isIgnored(
  relativePath: string,
  isDirectory: boolean,
  rules: readonly IgnoreRule[],
): boolean {
  const path = relativePath.split('/').map(toCodePoints);
  const n = path.length;
  // Per prefix length k: 1 ignored, -1 re-included, 0 no rule matched yet.
  const verdict = new Int8Array(n + 1);
  const appliesAt = (rule: IgnoreRule, k: number) => !rule.directoryOnly || k < n || isDirectory;
  for (const rule of alwaysRules) {
    const matched = matchPrefixes(rule, path);
    for (let k = 1; k <= n; k += 1) {
      if (matched[k] === 1 && appliesAt(rule, k)) return true;
    }
  }
  for (const rule of rules) {
    const matched = matchPrefixes(rule, path);
    for (let k = 1; k <= n; k += 1) {
      if (matched[k] === 1 && appliesAt(rule, k)) verdict[k] = rule.negate ? -1 : 1;
    }
  }
  return verdict.includes(1);
}

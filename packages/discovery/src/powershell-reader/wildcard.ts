import { compileLinearPattern, type LinearPattern } from '@toolpack/core';

/**
 * PowerShell wildcards (`*`, `?`, `[a-c]`, backtick escapes), matched without regard to case
 * as PowerShell matches command names (unless `caseSensitive`, as `-clike` does). A module's
 * patterns and the names they meet are both the module author's: they are matched in linear
 * time, since `*a*a*a*…b` against a long name backtracks for as long as its author likes.
 */
export function compileWildcard(
  pattern: string,
  options: { caseSensitive?: boolean } = {},
): LinearPattern {
  const ignoreCase = options.caseSensitive !== true;
  let source = '';
  for (let i = 0; i < pattern.length; i++) {
    const ch = pattern[i] as string;
    if (ch === '`' && i + 1 < pattern.length) {
      source += escapeRegExp(pattern[i + 1] as string);
      i += 1;
    } else if (ch === '*') {
      source += '.*';
    } else if (ch === '?') {
      source += '.';
    } else if (ch === '[') {
      const close = pattern.indexOf(']', i + 2);
      if (close === -1) {
        source += '\\[';
        continue;
      }
      const body = pattern
        .slice(i + 1, close)
        .replace(/\\/g, '\\\\')
        .replace(/^\^/, '\\^');
      source += `[${body}]`;
      i = close;
    } else {
      source += escapeRegExp(ch);
    }
  }
  try {
    return compileLinearPattern(`^${source}$`, { ignoreCase });
  } catch {
    // An odd character class: fall back to matching the pattern literally.
    return compileLinearPattern(`^${escapeRegExp(pattern)}$`, { ignoreCase });
  }
}

export function hasWildcard(pattern: string): boolean {
  return /[*?[]/.test(pattern);
}

function escapeRegExp(text: string): string {
  return text.replace(/[\\^$.*+?()[\]{}|/]/g, '\\$&');
}

/**
 * Each list's patterns, compiled once: a module's exports are matched function by function
 * against the same list, and compiling 717 patterns for each of 945 functions (dbatools'
 * manifest) took most of the time of listing it.
 */
const matchers = new WeakMap<readonly string[], (name: string) => boolean>();

/** True when `name` matches any of the wildcard `patterns`. */
export function matchesAnyWildcard(name: string, patterns: readonly string[]): boolean {
  let matcher = matchers.get(patterns);
  if (matcher === undefined) {
    matcher = createWildcardMatcher(patterns);
    matchers.set(patterns, matcher);
  }
  return matcher(name);
}

function createWildcardMatcher(patterns: readonly string[]): (name: string) => boolean {
  // Plain names (most of a FunctionsToExport list) need no expression: a set of them, in one case.
  const names = new Set<string>();
  const expressions: LinearPattern[] = [];
  for (const pattern of patterns) {
    if (hasWildcard(pattern) || pattern.includes('`')) expressions.push(compileWildcard(pattern));
    else names.add(pattern.toLowerCase());
  }
  return (name) =>
    names.has(name.toLowerCase()) || expressions.some((expression) => expression.test(name));
}

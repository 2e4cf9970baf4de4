/**
 * PowerShell wildcards (`*`, `?`, `[a-c]`, backtick escapes), matched without regard to case
 * as PowerShell matches command names.
 */
export function compileWildcard(pattern: string): RegExp {
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
    return new RegExp(`^${source}$`, 'iu');
  } catch {
    // An odd character class: fall back to matching the pattern literally.
    return new RegExp(`^${escapeRegExp(pattern)}$`, 'iu');
  }
}

export function hasWildcard(pattern: string): boolean {
  return /[*?[]/.test(pattern);
}

function escapeRegExp(text: string): string {
  return text.replace(/[\\^$.*+?()[\]{}|/]/g, '\\$&');
}

/** True when `name` matches any of the wildcard `patterns`. */
export function matchesAnyWildcard(name: string, patterns: readonly string[]): boolean {
  return patterns.some((pattern) => compileWildcard(pattern).test(name));
}

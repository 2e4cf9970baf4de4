/**
 * `.gitignore`-style rules for `.toolpackignore`: `#` comments, `!` re-includes, a trailing
 * `/` matches folders only, a `/` at the start or in the middle anchors the pattern to the
 * pack root, `*` and `?` stay within one path segment, `**` spans segments, `[abc]` classes.
 */
export interface IgnoreRule {
  negate: boolean;
  directoryOnly: boolean;
  regex: RegExp;
}

/** Never packed, whatever `.toolpackignore` says: they are either secrets or not the pack's own. */
export const ALWAYS_IGNORED: readonly string[] = [
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
  let line = raw.replace(/(?<!\\)\s+$/, '');
  if (line === '' || line.startsWith('#')) return undefined;
  let negate = false;
  if (line.startsWith('!')) {
    negate = true;
    line = line.slice(1);
  } else if (line.startsWith('\\!') || line.startsWith('\\#')) {
    line = line.slice(1);
  }
  let directoryOnly = false;
  if (line.endsWith('/')) {
    directoryOnly = true;
    line = line.replace(/\/+$/, '');
  }
  if (line === '') return undefined;
  const anchored = line.includes('/');
  line = line.replace(/^\/+/, '');
  const body = translateGlob(line);
  let regex: RegExp;
  try {
    regex = new RegExp(anchored ? `^${body}$` : `^(?:.*/)?${body}$`);
  } catch {
    // A class with a reversed range (`[z-a]`) matches no character in git, so the line
    // matches nothing; as a regex it would throw and stop the whole pack.
    regex = /(?!)/;
  }
  return { negate, directoryOnly, regex };
}

// A run of `*` or of `**/` means no more than one of them, and each repeat would multiply
// the regex's backtracking: `**/**/**/**/**/**/c` against a deep path took seconds.
const ANY_SEGMENTS = '(?:.*/)?';
const ANY_IN_SEGMENT = '[^/]*';

function translateGlob(glob: string): string {
  let out = '';
  const appendWildcard = (token: string) => {
    if (!out.endsWith(token)) out += token;
  };
  for (let i = 0; i < glob.length; i += 1) {
    const char = glob.charAt(i);
    if (char === '*') {
      if (glob.charAt(i + 1) === '*') {
        const atStart = i === 0 || glob.charAt(i - 1) === '/';
        const next = glob.charAt(i + 2);
        i += 1;
        if (atStart && next === '/') {
          appendWildcard(ANY_SEGMENTS);
          i += 1;
        } else if (atStart && next === '') {
          out += '.*';
        } else {
          appendWildcard(ANY_IN_SEGMENT);
        }
      } else {
        appendWildcard(ANY_IN_SEGMENT);
      }
    } else if (char === '?') {
      out += '[^/]';
    } else if (char === '[') {
      const end = glob.indexOf(']', i + 2);
      if (end === -1) {
        out += '\\[';
      } else {
        let inner = glob.slice(i + 1, end).replace(/\\/g, '\\\\');
        if (inner.startsWith('!')) inner = `^${inner.slice(1)}`;
        out += `[${inner}]`;
        i = end;
      }
    } else if (char === '\\' && i + 1 < glob.length) {
      i += 1;
      out += escapeRegex(glob.charAt(i));
    } else {
      out += escapeRegex(char);
    }
  }
  return out;
}

function escapeRegex(char: string): string {
  return /[.*+?^${}()|[\]\\/]/.test(char) ? `\\${char}` : char;
}

const alwaysRules = ALWAYS_IGNORED.map((pattern) => compileIgnorePattern(pattern)!);

/**
 * Decides one path (relative, `/`-separated). As in git, the last matching rule wins, and a
 * file inside an ignored folder cannot be re-included (the walk never enters the folder).
 */
export function isIgnored(
  relativePath: string,
  isDirectory: boolean,
  rules: readonly IgnoreRule[],
): boolean {
  if (alwaysRules.some((rule) => matches(rule, relativePath, isDirectory))) return true;
  let ignored = false;
  for (const rule of rules) {
    if (matches(rule, relativePath, isDirectory)) ignored = !rule.negate;
  }
  return ignored;
}

function matches(rule: IgnoreRule, relativePath: string, isDirectory: boolean): boolean {
  if (rule.directoryOnly && !isDirectory) return false;
  return rule.regex.test(relativePath);
}

import type { SourceResult } from '../../types.ts';
import { describeDeclaredScript, getExtension } from './declared-tool.ts';
import type { DeclarationLine } from './declaration-types.ts';

/** The comment that starts a header line, per extension. */
const COMMENT_PREFIXES: Readonly<Record<string, string>> = {
  '.sh': '#',
  '.py': '#',
  '.js': '//',
  '.mjs': '//',
  '.ts': '//',
};

// Scripts for configured interpreters (`.rb`, `.pl`, `.lua`, ...) use their language's line comment.
const OTHER_SLASH_COMMENTS = new Set([
  '.cjs',
  '.mts',
  '.cts',
  '.go',
  '.swift',
  '.kts',
  '.groovy',
  '.dart',
  '.rs',
  '.cs',
  '.java',
]);
const OTHER_DASH_COMMENTS = new Set(['.lua', '.sql', '.hs']);

/**
 * The extensions docs/param-headers.md names for header scripts; others are read with their
 * own comment.
 */
export const HEADER_SCRIPT_EXTENSIONS: readonly string[] = Object.keys(COMMENT_PREFIXES);

/** The line-comment marker a header uses in a file with this extension (`#` unless known otherwise). */
export function getCommentPrefix(extension: string): string {
  const lower = extension.toLowerCase();
  const known = COMMENT_PREFIXES[lower];
  if (known !== undefined) return known;
  if (OTHER_SLASH_COMMENTS.has(lower)) return '//';
  if (OTHER_DASH_COMMENTS.has(lower)) return '--';
  return '#';
}

export interface DescribeHeaderScriptInput {
  path: string;
  content: string;
  /** The line-comment marker, when the extension's default (`getCommentPrefix`) is wrong. */
  commentPrefix?: string;
}

/**
 * Describes a `.sh .py .js .mjs .ts` script that declares itself in its leading comment
 * block (`#` for sh/py, `//` for js/mjs/ts), before any code:
 *
 * ```sh
 * #!/usr/bin/env bash
 * # DESCRIPTION "Lists the files of a folder"
 * # PARAM folder AS string LIKE "./src" DESCRIPTION "The folder to list"
 * # PARAM depth AS integer LIKE 2 OPTIONAL DESCRIPTION "How deep to go"
 * # PARAM kinds AS array OF string ENUM ["file", "dir"] OPTIONAL DESCRIPTION "What to list"
 * ```
 *
 * The grammar is in `declaration-types.ts`. The header ends at the first line that is
 * neither blank nor a comment; a shebang line may come first. The tool is named after the
 * file (`list-files.sh` -> `list_files`) and run as a process with its arguments as JSON on
 * stdin. A script with no header at all is not a tool (an `I_NOT_A_TOOL` info diagnostic).
 * Scripts for other interpreters (`.rb`, `.lua`, ...) work the same way with their own line
 * comment (`getCommentPrefix`).
 * Pure: the same input always gives the same JSON-serialisable result.
 */
export function describeHeaderScript(input: DescribeHeaderScriptInput): SourceResult {
  const { path, content } = input;
  const extension = getExtension(path);
  const prefix = input.commentPrefix ?? getCommentPrefix(extension);
  return describeDeclaredScript({
    path,
    lines: readHeaderLines(content, prefix),
    dialect: 'header',
    kind: 'script',
    extension,
    commentPrefix: `${prefix} `,
  });
}

/** The leading comment block's lines without their comment marker. */
export function readHeaderLines(content: string, prefix: string): DeclarationLine[] {
  const lines = content.replace(/^\uFEFF/, '').split(/\r\n|\r|\n/);
  const header: DeclarationLine[] = [];
  for (let index = 0; index < lines.length; index += 1) {
    const raw = lines[index] ?? '';
    if (index === 0 && raw.startsWith('#!')) continue;
    const trimmed = raw.trimStart();
    if (trimmed === '') continue;
    if (!trimmed.startsWith(prefix)) break;
    // A comment stays a comment with its marker repeated (`## PARAM`, `/// PARAM`).
    let text = trimmed.slice(prefix.length);
    const last = prefix.charAt(prefix.length - 1);
    while (last !== '' && text.startsWith(last)) text = text.slice(1);
    header.push({ text, line: index + 1 });
  }
  return header;
}

import path from 'node:path';

/**
 * Paths as the user's shell sees them. `-C/--dir` moves `io.cwd` (where the files go), but
 * the commands we print are typed where `mcp` was started.
 */
export function showPath(file: string): string {
  const relative = path.relative(process.cwd(), file);
  const shown =
    relative === ''
      ? '.'
      : relative.startsWith('..') || path.isAbsolute(relative)
        ? file
        : relative;
  return quoteForShell(shown.split(path.sep).join('/'));
}

function quoteForShell(text: string): string {
  return /^[\w@%+=:,./-]+$/.test(text) ? text : `'${text.replace(/'/g, `'\\''`)}'`;
}

import { formatDiagnostic, type Diagnostic } from '@toolpack/core';
import { createPainter, type CliIo } from '../../io.ts';
import { displayPath } from '../../tool-view.ts';

/** Each problem on stderr with its fix, paths relative to the project. */
export function writeDiagnostics(io: CliIo, diagnostics: readonly Diagnostic[]): void {
  const paint = createPainter(io.stderr, io.env);
  for (const d of diagnostics) {
    const color = d.severity === 'error' ? 'red' : d.severity === 'warning' ? 'yellow' : 'dim';
    const { hint, ...rest } = d;
    io.stderr.write(
      `${paint(color, formatDiagnostic({ ...rest, path: displayPath(rest.path, io.cwd) }))}\n`,
    );
    if (hint !== undefined) io.stderr.write(`  ${paint('dim', `fix: ${hint}`)}\n`);
  }
}

/** `1 tool`, `2 tools`. */
export function plural(count: number, word: string): string {
  return `${count} ${word}${count === 1 ? '' : 's'}`;
}

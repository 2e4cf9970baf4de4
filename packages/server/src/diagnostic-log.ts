import path from 'node:path';
import { formatDiagnostic, type Diagnostic } from '@toolpack/core';

/** The server's diagnostic lines: paths relative to the project, each problem logged once. */
export interface DiagnosticLog {
  /** `file` relative to the project when it lies inside it, with `/` separators. */
  display(file: string): string;
  format(diagnostic: Diagnostic): string;
  /** Logs the errors and warnings the previous report did not have. */
  report(diagnostics: readonly Diagnostic[]): void;
}

export function createDiagnosticLog(cwd: string, log: (line: string) => void): DiagnosticLog {
  const display = (file: string) => {
    if (!path.isAbsolute(file)) return file;
    const relative = path.relative(cwd, file);
    return relative === '' || path.isAbsolute(relative) ? file : relative.split(path.sep).join('/');
  };
  const format = (d: Diagnostic) => formatDiagnostic({ ...d, path: display(d.path) });
  let reported = new Set<string>();
  return {
    display,
    format,
    report(diagnostics) {
      const current = new Set(diagnostics.filter((d) => d.severity !== 'info').map(format));
      for (const line of current) if (!reported.has(line)) log(line);
      reported = current;
    },
  };
}

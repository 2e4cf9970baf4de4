import { createDiagnostic } from '@toolpack/core';
import type { Diagnostic } from '@toolpack/core';

/** A diagnostic about one module file, at a line of it when known. */
export function createFileDiagnostic(
  severity: Diagnostic['severity'],
  code: Diagnostic['code'],
  message: string,
  path: string,
  line?: number,
  hint?: string,
): Diagnostic {
  return createDiagnostic(
    severity,
    code,
    message,
    { path, ...(line === undefined ? {} : { line }) },
    hint,
  );
}

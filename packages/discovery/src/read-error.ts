import path from 'node:path';
import { createDiagnostic, type Diagnostic } from '@toolpack/core';

/** `E_READ` for a source file that could not be read; one bad file never stops the others. */
export function createReadDiagnostic(file: string, error: unknown): Diagnostic {
  return createDiagnostic(
    'error',
    'E_READ',
    `Cannot read ${path.basename(file)}: ${(error as Error).message}`,
    { path: file },
    'Check that the file exists and is readable.',
  );
}

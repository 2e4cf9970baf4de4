import { describe, expect, it } from 'vitest';
import { createDiagnostic, formatDiagnostic, hasErrors } from './diagnostics.ts';
import { ToolpackError, isToolpackError } from './errors.ts';

describe('ToolpackError', () => {
  it('carries a code, a hint, a cause and a location', () => {
    const cause = new Error('EACCES');
    const error = new ToolpackError('E_SOURCE_MISSING', 'Script root ./scripts does not exist.', {
      hint: 'Create it or fix --script-root.',
      cause,
      path: 'toolpack.yaml',
      line: 4,
    });
    expect(error).toBeInstanceOf(Error);
    expect(error.name).toBe('ToolpackError');
    expect(error.code).toBe('E_SOURCE_MISSING');
    expect(error.hint).toBe('Create it or fix --script-root.');
    expect(error.cause).toBe(cause);
    expect(error.location).toBe('toolpack.yaml:4');
    expect(new ToolpackError('E_USAGE', 'm').location).toBeUndefined();
    expect(new ToolpackError('E_USAGE', 'm')).not.toHaveProperty('cause');
  });

  it('is recognised across package copies by name and code', () => {
    const foreign = Object.assign(new Error('m'), { name: 'ToolpackError', code: 'E_USAGE' });
    expect(isToolpackError(foreign)).toBe(true);
    expect(isToolpackError(new Error('m'))).toBe(false);
    expect(isToolpackError('E_USAGE')).toBe(false);
  });
});

describe('diagnostics', () => {
  it('are formatted as path:line: severity code: message (hint)', () => {
    const d = createDiagnostic(
      'error',
      'E_NO_DESCRIPTION',
      'No description.',
      { path: 'a.ps1', line: 3 },
      'Add .SYNOPSIS.',
    );
    expect(formatDiagnostic(d)).toBe(
      'a.ps1:3: error E_NO_DESCRIPTION: No description. (Add .SYNOPSIS.)',
    );
    const w = createDiagnostic('warning', 'W_UNKNOWN_HINT', 'Careful.', { path: 'b.ps1' });
    expect(w).toEqual({
      severity: 'warning',
      code: 'W_UNKNOWN_HINT',
      message: 'Careful.',
      path: 'b.ps1',
    });
    expect(formatDiagnostic(w)).toBe('b.ps1: warning W_UNKNOWN_HINT: Careful.');
    expect(hasErrors([w])).toBe(false);
    expect(hasErrors([w, d])).toBe(true);
  });
});

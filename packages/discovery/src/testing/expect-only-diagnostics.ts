import { expect } from 'vitest';
import type { SourceResult } from '../types.ts';

/**
 * What every single-file adapter must give back for any input, however broken: at most one
 * tool, well-formed diagnostics (severity, a code, a message, a 1-based line), no tool next
 * to an error, and plain JSON throughout.
 */
export function expectOnlyDiagnostics(result: SourceResult): void {
  expect(Array.isArray(result.tools)).toBe(true);
  expect(result.tools.length).toBeLessThanOrEqual(1);
  for (const diagnostic of result.diagnostics) {
    expect(['error', 'warning', 'info']).toContain(diagnostic.severity);
    expect(diagnostic.code).toMatch(/^[EWI]_[A-Z_]+$/);
    expect(diagnostic.message.length).toBeGreaterThan(0);
    if (diagnostic.line !== undefined)
      expect(Number.isInteger(diagnostic.line) && diagnostic.line >= 1).toBe(true);
  }
  if (result.tools.length === 1)
    expect(result.diagnostics.some((d) => d.severity === 'error')).toBe(false);
  expect(JSON.parse(JSON.stringify(result))).toEqual(result);
}

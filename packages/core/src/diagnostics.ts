import type { ToolpackErrorCode } from './error-codes.ts';

export type DiagnosticSeverity = 'error' | 'warning' | 'info';

/**
 * A problem found while reading a user's file. Diagnostics are collected, never thrown:
 * one bad tool must not stop the others from loading.
 */
export interface Diagnostic {
  severity: DiagnosticSeverity;
  /** Stable, machine-readable, one of the catalogue in `error-codes.ts`. */
  code: ToolpackErrorCode;
  message: string;
  path: string;
  line?: number;
  /** How to fix it, in one sentence. */
  hint?: string;
}

export interface DiagnosticLocation {
  path: string;
  line?: number;
}

/** Builds a diagnostic, leaving `line`/`hint` out when they are unknown (stable JSON output). */
export function createDiagnostic(
  severity: DiagnosticSeverity,
  code: ToolpackErrorCode,
  message: string,
  location: DiagnosticLocation,
  hint?: string,
): Diagnostic {
  const diagnostic: Diagnostic = { severity, code, message, path: location.path };
  if (location.line !== undefined) diagnostic.line = location.line;
  if (hint !== undefined) diagnostic.hint = hint;
  return diagnostic;
}

export function hasErrors(diagnostics: readonly Diagnostic[]): boolean {
  return diagnostics.some((d) => d.severity === 'error');
}

/** `path:line: severity code: message` — the form editors and CI logs link to. */
export function formatDiagnostic(diagnostic: Diagnostic): string {
  const where =
    diagnostic.line === undefined ? diagnostic.path : `${diagnostic.path}:${diagnostic.line}`;
  const hint = diagnostic.hint === undefined ? '' : ` (${diagnostic.hint})`;
  return `${where}: ${diagnostic.severity} ${diagnostic.code}: ${diagnostic.message}${hint}`;
}

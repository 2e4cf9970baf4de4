import type { z } from 'zod';
import { createDiagnostic } from './diagnostics.ts';
import type { Diagnostic, DiagnosticLocation, DiagnosticSeverity } from './diagnostics.ts';

/** Where in the checked value an issue is: keys and indexes. */
export type IssuePath = (string | number)[];

/** The issue's path; zod only puts symbols there for symbol keys, which parsed text never has. */
export function getIssuePath(issue: z.core.$ZodIssue): IssuePath {
  return issue.path.filter((segment): segment is string | number => typeof segment !== 'symbol');
}

/** `packs.0.name`, or `(root)` for the value itself. */
export function formatIssuePath(path: readonly PropertyKey[]): string {
  return path.map(String).join('.') || '(root)';
}

export interface IssueDiagnosticsOptions {
  code: Diagnostic['code'];
  /** Default: error. */
  severity?: DiagnosticSeverity;
  /** The file, with the line of the value at `path` when the caller knows it. */
  locate(path: IssuePath, issue: z.core.$ZodIssue): DiagnosticLocation;
  hint?(path: IssuePath, issue: z.core.$ZodIssue): string | undefined;
  /** Default: `<path>: <zod's message without its "Invalid input: " lead>.` */
  describe?(issue: z.core.$ZodIssue, path: IssuePath): string;
}

/** One diagnostic per zod issue: how a file's schema problems reach the user. */
export function createIssueDiagnostics(
  issues: readonly z.core.$ZodIssue[],
  options: IssueDiagnosticsOptions,
): Diagnostic[] {
  const describe =
    options.describe ??
    ((issue: z.core.$ZodIssue, path: IssuePath) =>
      `${formatIssuePath(path)}: ${issue.message.replace(/^Invalid input: /, '')}.`);
  return issues.map((issue) => {
    const path = getIssuePath(issue);
    return createDiagnostic(
      options.severity ?? 'error',
      options.code,
      describe(issue, path),
      options.locate(path, issue),
      options.hint?.(path, issue),
    );
  });
}

import type { Diagnostic } from '@toolpack/core';

/** Records one problem of a metadata file, at a line of it (or in another file: `where`). */
export type Report = (
  severity: Diagnostic['severity'],
  code: Diagnostic['code'],
  message: string,
  line: number | undefined,
  hint?: string,
  where?: string,
) => void;

/** The line of the value at a path in the metadata file (1 when it cannot be found). */
export type LineOf = (...segments: (string | number)[]) => number;

/** A value as a diagnostic names it: "a list", "a mapping", or its type and JSON. */
export function describeValue(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object') return 'a mapping';
  return `${typeof value} ${JSON.stringify(value)}`;
}

import { createDiagnostic, isPlainObject, parseHints } from '@toolpack/core';
import type { Diagnostic, ToolAnnotations } from '@toolpack/core';
import { type LineOf, describeValue } from './metadata-report.ts';

/** Reads `annotations:`, each hint as a `.NOTES` line would be read; undefined when absent or not a mapping. */
export function readAnnotations(
  value: unknown,
  metadataPath: string,
  diagnostics: Diagnostic[],
  lineOf: LineOf,
): ToolAnnotations | undefined {
  if (value === undefined || value === null) return undefined;
  if (!isPlainObject(value)) {
    diagnostics.push(
      createDiagnostic(
        'error',
        'E_METADATA_FIELD',
        `annotations must be a mapping of hints, not ${describeValue(value)}.`,
        { path: metadataPath, line: lineOf('annotations') },
        'Write annotations: with readOnlyHint: true (or destructiveHint, idempotentHint, openWorldHint) below it.',
      ),
    );
    return undefined;
  }
  const annotations: ToolAnnotations = {};
  const lines = new Map<string, number>();
  for (const [key, hintValue] of Object.entries(value)) {
    const line = lineOf('annotations', key);
    if (key === 'title') {
      if (typeof hintValue === 'string') annotations.title = hintValue;
      else
        diagnostics.push(
          createDiagnostic('error', 'E_METADATA_FIELD', `annotations.title must be text.`, {
            path: metadataPath,
            line,
          }),
        );
      continue;
    }
    // A hint reads as on a `.NOTES` line: a boolean, 0/1, a description (declared) or nothing
    // (`readOnlyHint:` alone, declared). A list or a mapping says nothing a reader can trust.
    if (typeof hintValue === 'object' && hintValue !== null) {
      diagnostics.push(
        createDiagnostic(
          'error',
          'E_HINT_VALUE',
          `annotations.${key} is ${describeValue(hintValue)}; a hint is true, false or a description.`,
          { path: metadataPath, line },
          `Write ${key}: true (or false), or ${key}: followed by why it holds.`,
        ),
      );
      continue;
    }
    const text = hintValue === null || hintValue === undefined ? '' : String(hintValue);
    const parsed = parseHints([`${key}: ${text}`], { path: metadataPath, line });
    diagnostics.push(...parsed.diagnostics);
    if (parsed.otherLines.length > 0) {
      diagnostics.push(
        createDiagnostic(
          'warning',
          'W_UNKNOWN_HINT',
          `Unknown annotation ${JSON.stringify(key)} is ignored.`,
          { path: metadataPath, line },
          'Use readOnlyHint, destructiveHint, idempotentHint, openWorldHint or title.',
        ),
      );
    }
    for (const hint of Object.keys(parsed.annotations)) lines.set(hint, line);
    Object.assign(annotations, parsed.annotations);
  }
  if (annotations.readOnlyHint === true && annotations.destructiveHint === true) {
    diagnostics.push(
      createDiagnostic(
        'error',
        'E_CONFLICTING_HINTS',
        'readOnlyHint and destructiveHint are both true: a read-only tool cannot destroy anything.',
        { path: metadataPath, line: lines.get('destructiveHint') ?? lineOf('annotations') },
        'Keep readOnlyHint for a tool that changes nothing, destructiveHint for one that deletes or overwrites.',
      ),
    );
  }
  return annotations;
}

import type { LineOf, Report } from './metadata-report.ts';

/**
 * Which of a metadata key's two spellings to read (`inputSchema` or dotbot's `input_schema`):
 * the preferred one when both are set, with a warning that the other is ignored; undefined
 * when neither is set (null counts as unset, as YAML writes an empty key).
 */
export function pickMetadataKey(
  metadata: Record<string, unknown>,
  preferred: string,
  alternative: string,
  report: Report,
  lineOf: LineOf,
): string | undefined {
  const hasPreferred = metadata[preferred] !== undefined && metadata[preferred] !== null;
  const hasAlternative = metadata[alternative] !== undefined && metadata[alternative] !== null;
  if (hasPreferred && hasAlternative) {
    report(
      'warning',
      'W_DUPLICATE_KEY',
      `Both ${preferred} and ${alternative} are set; ${alternative} is ignored.`,
      lineOf(alternative),
      `Keep only ${preferred}.`,
    );
  }
  if (hasPreferred) return preferred;
  return hasAlternative ? alternative : undefined;
}

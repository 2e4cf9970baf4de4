import { parseDuration } from '@toolpack/core';
import { type LineOf, type Report, describeValue } from './metadata-report.ts';

/** Reads `timeoutMs`/`timeout_ms` (milliseconds) or `timeout` (seconds or a duration) as whole milliseconds. */
export function readTimeout(
  metadata: Record<string, unknown>,
  report: Report,
  lineOf: LineOf,
): number | undefined {
  const msKey =
    metadata.timeoutMs !== undefined
      ? 'timeoutMs'
      : metadata.timeout_ms !== undefined
        ? 'timeout_ms'
        : undefined;
  if (msKey !== undefined && metadata.timeout !== undefined) {
    report(
      'warning',
      'W_DUPLICATE_KEY',
      `Both timeout and ${msKey} are set; timeout is ignored.`,
      lineOf('timeout'),
      `Keep only ${msKey}.`,
    );
  }
  const key = msKey ?? (metadata.timeout !== undefined ? 'timeout' : undefined);
  if (key === undefined) return undefined;
  const value = metadata[key];
  const ms = key === 'timeout' ? readPositiveDuration(value, 1000) : readPositiveDuration(value, 1);
  if (ms === undefined) {
    report(
      'error',
      'E_METADATA_FIELD',
      `${key} must be a positive ${key === 'timeout' ? 'number of seconds or a duration such as 500ms, 30s or 2m' : 'number of milliseconds'}, not ${describeValue(value)}.`,
      lineOf(key),
      key === 'timeout'
        ? 'Write timeout: 60 for a minute.'
        : 'Write timeoutMs: 60000 for a minute.',
    );
  }
  return ms;
}

/** `60` (times `unitMs`), `"500ms"`, `"30s"`, `"2m"` -> whole milliseconds, at least 1; undefined when invalid. */
function readPositiveDuration(value: unknown, unitMs: number): number | undefined {
  const ms = parseDuration(value, { defaultUnitMs: unitMs });
  if (ms === undefined || ms <= 0) return undefined;
  return Math.max(1, Math.round(ms));
}

import { type LineOf, type Report, describeValue } from './metadata-report.ts';

export interface OptIns {
  longRunning?: true;
  progressResetsTimeout?: true;
}

const FLAGS = [
  ['longRunning', 'long_running'],
  ['progressResetsTimeout', 'progress_resets_timeout'],
] as const;

/**
 * Reads `longRunning` and `progressResetsTimeout` (or their snake_case spellings), each
 * true or false. Only true is kept: false is what a tool without the key gets.
 */
export function readOptIns(
  metadata: Record<string, unknown>,
  report: Report,
  lineOf: LineOf,
): OptIns {
  const optIns: OptIns = {};
  for (const [preferred, alternative] of FLAGS) {
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
    const key = hasPreferred ? preferred : hasAlternative ? alternative : undefined;
    if (key === undefined) continue;
    const value = metadata[key];
    if (typeof value !== 'boolean') {
      report(
        'error',
        'E_METADATA_FIELD',
        `${key} must be true or false, not ${describeValue(value)}.`,
        lineOf(key),
        `Write ${key}: true to opt in.`,
      );
      continue;
    }
    if (value) optIns[preferred] = true;
  }
  return optIns;
}

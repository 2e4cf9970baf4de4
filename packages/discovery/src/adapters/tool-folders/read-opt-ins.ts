import { type LineOf, type Report, describeValue } from './metadata-report.ts';
import { pickMetadataKey } from './pick-metadata-key.ts';

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
    const key = pickMetadataKey(metadata, preferred, alternative, report, lineOf);
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

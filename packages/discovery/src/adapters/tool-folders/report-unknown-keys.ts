import { findClosestName } from '@toolpack/core';
import type { LineOf, Report } from './metadata-report.ts';

const KNOWN_KEYS = [
  'name',
  'title',
  'description',
  'inputSchema',
  'input_schema',
  'outputSchema',
  'output_schema',
  'annotations',
  'timeout',
  'timeoutMs',
  'timeout_ms',
  'examples',
  'longRunning',
  'long_running',
  'progressResetsTimeout',
  'progress_resets_timeout',
];
// Keys dotbot's own metadata files carry that mean nothing to a tool list.
const IGNORED_KEYS = new Set(['version', 'category', 'tags', 'author', 'notes']);

/**
 * Reports the keys a metadata file has beyond the known ones: a warning with "did you mean"
 * when one is close to a known key, otherwise a note that Toolpack ignores it.
 */
export function reportUnknownKeys(
  metadata: Record<string, unknown>,
  options: { metadataFile: string; report: Report; lineOf: LineOf },
): void {
  const { metadataFile, report, lineOf } = options;
  for (const key of Object.keys(metadata)) {
    if (KNOWN_KEYS.includes(key) || IGNORED_KEYS.has(key)) continue;
    const meant = findMeantKey(key);
    if (meant !== undefined) {
      report(
        'warning',
        'W_UNKNOWN_KEY',
        `${metadataFile} has the key ${JSON.stringify(key)}, which is ignored.`,
        lineOf(key),
        `Did you mean ${meant}?`,
      );
    } else {
      report(
        'info',
        'I_UNKNOWN_KEY',
        `${metadataFile} has the key ${JSON.stringify(key)}, which Toolpack ignores.`,
        lineOf(key),
      );
    }
  }
}

function findMeantKey(key: string): string | undefined {
  // Short keys are too alike (`name`, `title`) to guess between.
  return findClosestName(
    key,
    KNOWN_KEYS.filter((known) => known.length > 3),
  );
}

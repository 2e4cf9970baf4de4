import { findClosestName, parseDuration } from '@toolpack/core';
import type { DeclarationProblem } from './declaration-types.ts';

/** The opt-ins an OPTIONS line can name, by their spellings lower-cased without - or _. */
const OPTION_NAMES: Readonly<Record<string, 'longRunning' | 'progressResetsTimeout'>> = {
  longrunning: 'longRunning',
  progressresetstimeout: 'progressResetsTimeout',
};
const SPELLINGS = ['long-running', 'progress-resets-timeout'];

export interface OptionsStatement {
  options: { longRunning?: true; progressResetsTimeout?: true };
  problems: DeclarationProblem[];
}

/**
 * Reads the text after `OPTIONS`: opt-in names separated by commas or spaces, in any case,
 * with - or _ or none between words (`long-running`, `progressResetsTimeout`), the way
 * HINTS names its hints. An option is on when named; there is nothing to turn off.
 */
export function readOptionsStatement(body: string): OptionsStatement {
  const options: OptionsStatement['options'] = {};
  const problems: DeclarationProblem[] = [];
  const items = body.split(/[\s,]+/).filter((item) => item !== '');
  if (items.length === 0) {
    problems.push({
      code: 'E_DECLARATION_SYNTAX',
      message: 'OPTIONS names no option.',
      hint: 'Name the options that hold: OPTIONS long-running, progress-resets-timeout.',
    });
  }
  for (const item of items) {
    const known = OPTION_NAMES[item.toLowerCase().replace(/[-_]/g, '')];
    if (known === undefined) {
      const suggestion = findClosestName(item.toLowerCase(), SPELLINGS, 3);
      problems.push({
        code: 'W_UNKNOWN_OPTION',
        severity: 'warning',
        message: `Unknown option ${JSON.stringify(item)} is ignored.`,
        hint:
          suggestion === undefined
            ? 'Use long-running or progress-resets-timeout.'
            : `Did you mean ${suggestion}?`,
      });
      continue;
    }
    options[known] = true;
  }
  return { options, problems };
}

export type TimeoutStatement =
  { ok: true; timeoutMs: number } | { ok: false; problem: DeclarationProblem };

/**
 * Reads the text after `TIMEOUT`: a duration such as `90s`, `10m`, `1h` or `500ms`; a bare
 * number is seconds, as the tool-folder `timeout` key reads it.
 */
export function readTimeoutStatement(body: string): TimeoutStatement {
  const text = body.trim();
  const ms = parseDuration(text, { defaultUnitMs: 1000 });
  if (ms === undefined || ms <= 0) {
    return {
      ok: false,
      problem: {
        code: 'E_DECLARATION_SYNTAX',
        message: `TIMEOUT needs a positive duration such as 90s, 10m or 1h, not ${JSON.stringify(text.slice(0, 40))}.`,
        hint: 'Write TIMEOUT 10m for ten minutes (a bare number is seconds).',
      },
    };
  }
  return { ok: true, timeoutMs: Math.max(1, Math.round(ms)) };
}

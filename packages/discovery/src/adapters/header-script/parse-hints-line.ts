import { findClosestName, type HintLine } from '@toolpack/core';
import type { DeclarationProblem } from './declaration-types.ts';

/** The four MCP hints by their short and their `.NOTES` spelling, lower-cased. */
const HINT_NAMES: Readonly<Record<string, string>> = {
  readonly: 'ReadOnlyHint',
  readonlyhint: 'ReadOnlyHint',
  destructive: 'DestructiveHint',
  destructivehint: 'DestructiveHint',
  idempotent: 'IdempotentHint',
  idempotenthint: 'IdempotentHint',
  openworld: 'OpenWorldHint',
  openworldhint: 'OpenWorldHint',
};
const SPELLINGS = ['readOnly', 'destructive', 'idempotent', 'openWorld'];
const ITEM = /^([A-Za-z][A-Za-z0-9]*)(?:\s*[:=]\s*(\S+))?$/;

export interface HintsStatement {
  /** `ReadOnlyHint: true` lines for core's parseHints, which checks values and conflicts. */
  entries: HintLine[];
  problems: DeclarationProblem[];
}

/**
 * Reads the text after `HINTS`: hint names separated by commas or spaces, each alone (true)
 * or with a value (`readOnly`, `idempotent: false`, `OpenWorldHint=no`). Short names and the
 * `.NOTES` spellings both work, in any case, so a script can say what a PowerShell script
 * says in `.NOTES`: `# HINTS readOnly, idempotent`.
 */
export function readHintsStatement(body: string, line: number): HintsStatement {
  const entries: HintLine[] = [];
  const problems: DeclarationProblem[] = [];
  // `name: value` keeps its space after the colon; commas and other spaces separate items.
  const items = body
    .replace(/\s*([:=])\s*/g, '$1')
    .split(/[\s,]+/)
    .filter((item) => item !== '');
  if (items.length === 0) {
    problems.push({
      code: 'E_HINTS_EMPTY',
      message: 'HINTS names no hint.',
      hint: 'Name the hints that hold: HINTS readOnly, idempotent (or destructive, openWorld).',
    });
  }
  for (const item of items) {
    const match = ITEM.exec(item);
    const known = match === null ? undefined : HINT_NAMES[(match[1] ?? '').toLowerCase()];
    if (match === null || known === undefined) {
      const name = match?.[1] ?? item;
      const suggestion = findClosestName(name, SPELLINGS, 3);
      problems.push({
        code: 'W_UNKNOWN_HINT',
        severity: 'warning',
        message: `Unknown hint ${JSON.stringify(item)} is ignored.`,
        hint:
          suggestion === undefined
            ? 'Use readOnly, destructive, idempotent or openWorld.'
            : `Did you mean ${suggestion}?`,
      });
      continue;
    }
    entries.push({ text: `${known}: ${match[2] ?? 'true'}`, line });
  }
  return { entries, problems };
}

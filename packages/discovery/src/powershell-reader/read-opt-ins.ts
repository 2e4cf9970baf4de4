/**
 * The call opt-ins of a PowerShell command, as `.NOTES` lines beside its hints:
 * `LongRunning: true` and `ProgressResetsTimeout: true`. `.NOTES` is free text for PowerShell
 * (a new help keyword would make it ignore the whole help block), and the `Key: value` form
 * is the one MCPServerPS hint lines already use there.
 */
import { createDiagnostic, findClosestName } from '@toolpack/core';
import type { Diagnostic, DiscoveredTool } from '@toolpack/core';

export type ToolOptIns = Pick<DiscoveredTool, 'longRunning' | 'progressResetsTimeout'>;

const KEYS = {
  longrunning: 'longRunning',
  progressresetstimeout: 'progressResetsTimeout',
} as const;
const SPELLINGS = ['LongRunning', 'ProgressResetsTimeout'];
const FALSE_WORDS = new Set(['false', '$false', 'no', '0', 'off']);
const LINE = /^\s*([A-Za-z][A-Za-z0-9]*)\s*[:=]\s*(.*?)\s*$/;

/**
 * Reads opt-in lines of a `.NOTES` section whose text starts at `location.line`: like a hint,
 * the key with any text but a false word means true. A key one or two letters away from an
 * opt-in is probably a typo of it: a warning names the opt-in.
 */
export function readOptIns(
  notes: string,
  location: { path: string; line?: number },
): { optIns: ToolOptIns; diagnostics: Diagnostic[] } {
  const optIns: ToolOptIns = {};
  const diagnostics: Diagnostic[] = [];
  notes.split('\n').forEach((text, index) => {
    const match = LINE.exec(text);
    if (match === null) return;
    const written = match[1] as string;
    const key = KEYS[written.toLowerCase() as keyof typeof KEYS];
    if (key !== undefined) {
      optIns[key] = !FALSE_WORDS.has((match[2] as string).toLowerCase());
      return;
    }
    const suggestion = findClosestName(written, SPELLINGS, 2);
    if (suggestion === undefined) return;
    diagnostics.push(
      createDiagnostic(
        'warning',
        'W_UNKNOWN_OPTION',
        `The .NOTES line "${written}: ..." opts into nothing and is kept as a note.`,
        {
          path: location.path,
          ...(location.line === undefined ? {} : { line: location.line + index }),
        },
        `Did you mean ${suggestion}?`,
      ),
    );
  });
  return { optIns, diagnostics };
}

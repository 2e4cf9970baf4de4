/**
 * The call opt-ins of a PowerShell command, as `.NOTES` lines beside its hints:
 * `LongRunning: true` and `ProgressResetsTimeout: true`. `.NOTES` is free text for PowerShell
 * (a new help keyword would make it ignore the whole help block), and the `Key: value` form
 * is the one MCPServerPS hint lines already use there.
 */
import type { DiscoveredTool } from '@toolpack/core';

export type ToolOptIns = Pick<DiscoveredTool, 'longRunning' | 'progressResetsTimeout'>;

const KEYS = {
  longrunning: 'longRunning',
  progressresetstimeout: 'progressResetsTimeout',
} as const;
const FALSE_WORDS = new Set(['false', '$false', 'no', '0', 'off']);
const LINE = /^\s*([A-Za-z][A-Za-z0-9]*)\s*[:=]\s*(.*?)\s*$/;

/** Reads opt-in lines among the lines `parseHints` did not take; like a hint, any text but a false word means true. */
export function readOptIns(lines: readonly string[]): ToolOptIns {
  const optIns: ToolOptIns = {};
  for (const line of lines) {
    const match = LINE.exec(line);
    if (match === null) continue;
    const key = KEYS[(match[1] as string).toLowerCase() as keyof typeof KEYS];
    if (key === undefined) continue;
    optIns[key] = !FALSE_WORDS.has((match[2] as string).toLowerCase());
  }
  return optIns;
}

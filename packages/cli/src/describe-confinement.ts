import type { DiscoveredTool, ToolpackErrorCode } from '@toolpack/core';
import { describeSandbox } from '@toolpack/runners';

/** What happens here to the tools that should run confined (every pack's, `sandbox: true` sources'). */
export interface Confinement {
  /**
   * - `none`: no tool asks to be confined;
   * - `confined`: the sandbox works here, they run in it;
   * - `unconfined`: it cannot be had, they run with the user's full rights;
   * - `refused`: it cannot be had and it is required, so they do not run.
   */
  status: 'none' | 'confined' | 'unconfined' | 'refused';
  /** How many tools ask to be confined. */
  count: number;
  /** The packs they come from (aliases), sorted. */
  packs: string[];
  /** Why the sandbox works or not here (`describeSandbox`). */
  reason: string;
}

export function describeConfinement(options: {
  tools: readonly DiscoveredTool[];
  requireSandbox: boolean;
  env: NodeJS.ProcessEnv;
}): Confinement {
  const confined = options.tools.filter((tool) => tool.source.sandbox !== undefined);
  const packs = [
    ...new Set(
      confined.flatMap((tool) => (tool.source.pack === undefined ? [] : [tool.source.pack])),
    ),
  ].sort();
  // The probe runs bwrap (about 15 ms, blocking): a start with no confined tool skips it.
  if (confined.length === 0)
    return { status: 'none', count: 0, packs, reason: 'no tool asks to be confined' };
  const sandbox = describeSandbox(options.env);
  const status = sandbox.available ? 'confined' : options.requireSandbox ? 'refused' : 'unconfined';
  return { status, count: confined.length, packs, reason: sandbox.reason };
}

// Typed, so a renamed code fails the typecheck instead of leaving a stale name in the text.
const UNCONFINED: ToolpackErrorCode = 'W_SANDBOX_UNAVAILABLE';
const REFUSED: ToolpackErrorCode = 'E_SANDBOX_REQUIRED';

/** The line `mcp serve` says at start (none when no tool asks to be confined). */
export function renderConfinement(confinement: Confinement): string | undefined {
  const { status, count, packs, reason } = confinement;
  const what = `${count} ${count === 1 ? 'tool' : 'tools'}${packs.length > 0 ? ` of ${packs.join(', ')}` : ''}`;
  switch (status) {
    case 'none':
      return undefined;
    case 'confined':
      return `${what} run in the sandbox (${reason}).`;
    case 'unconfined':
      return `${UNCONFINED} ${what} run with your full rights here: ${reason}. Install bubblewrap (Linux), or refuse them with --require-sandbox (policy: requireSandbox: true).`;
    case 'refused':
      return `${what} are refused here (${REFUSED}): the sandbox is required, but ${reason}.`;
  }
}

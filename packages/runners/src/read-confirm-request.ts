import type { DiscoveredTool, ToolCallResult } from '@toolpack/core';
import { createErrorResult } from './results.ts';

/** The argument that stands for PowerShell's own `-Confirm` (a common parameter). */
export const CONFIRM_ARGUMENT = 'Confirm';

export type ConfirmRequest =
  { args: Record<string, unknown>; confirm: boolean } | { refusal: ToolCallResult };

/**
 * Takes `Confirm: true` out of a PowerShell script or module function's call: the caller asks
 * for the command's confirmation whatever its `ConfirmImpact` (PowerShell's `-Confirm`), and
 * the runner passes it on as that switch. It is no parameter of the tool's schema (the common
 * parameters are left out), so it is read before the arguments are checked.
 *
 * Only `true`: `-Confirm:$false` would switch off a confirmation the command asks for at its
 * own threshold, which is the user's to give, not the caller's (a model's).
 */
export function readConfirmRequest(
  tool: DiscoveredTool,
  args: Record<string, unknown>,
): ConfirmRequest {
  const invocation = tool.invocation;
  const powershell =
    invocation.runner === 'pwsh' && (invocation.mode === 'script' || invocation.mode === 'module');
  if (
    !powershell ||
    !Object.hasOwn(args, CONFIRM_ARGUMENT) ||
    Object.hasOwn(tool.inputSchema.properties ?? {}, CONFIRM_ARGUMENT)
  ) {
    return { args, confirm: false };
  }
  const { [CONFIRM_ARGUMENT]: confirm, ...rest } = args;
  if (confirm === true) return { args: rest, confirm: true };
  return {
    refusal: createErrorResult(
      `Invalid arguments for tool "${tool.name}": "${CONFIRM_ARGUMENT}" can only be true (ask the user before each action, as PowerShell's -Confirm does). ` +
        'A call cannot switch off a confirmation the command asks for itself; leave the argument out to keep its own threshold.',
    ),
  };
}

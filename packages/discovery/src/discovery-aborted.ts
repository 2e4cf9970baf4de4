import { ToolpackError } from '@toolpack/core';

/**
 * `E_DISCOVERY_ABORTED`: a ToolpackError rather than the signal's own AbortError, so callers
 * that turn ToolpackErrors into diagnostics (a registry listing a pack) still say what happened.
 */
export function createDiscoveryAbortedError(signal: AbortSignal | undefined): ToolpackError {
  return new ToolpackError('E_DISCOVERY_ABORTED', 'Discovery was stopped before it finished.', {
    hint: 'Whoever asked for the tools gave up (a closing registry, a cancelled command); ask again.',
    cause: signal?.reason,
  });
}

export function throwIfDiscoveryAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted === true) throw createDiscoveryAbortedError(signal);
}

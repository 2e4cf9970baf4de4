import type { DiscoveredTool, ToolCallResult, ToolLogLevel } from '@toolpack/core';

export interface ToolProgress {
  progress: number;
  total?: number;
  message?: string;
}

/** Why a call's signal was aborted; runners word their messages after it. */
export type StopReason = 'timeout' | 'cancelled' | 'closed';

/** One call as the front hands it to a runner: arguments already validated. */
export interface RunnerCall {
  tool: DiscoveredTool;
  args: Record<string, unknown>;
  /** Aborted on timeout, cancellation or close; `signal.reason` is a `StopReason`. */
  signal: AbortSignal;
  onProgress(progress: ToolProgress): void;
  onLog(level: ToolLogLevel, message: string): void;
}

/**
 * A runner settles only when the call's work has really ended (the process is gone, the
 * pipeline has stopped, the worker answered or was replaced), so concurrency slots are
 * released truthfully. The front answers the client as soon as the signal aborts.
 */
export interface KindRunner {
  execute(call: RunnerCall): Promise<ToolCallResult>;
  close(): Promise<void>;
}

export function describeStopReason(reason: unknown): StopReason {
  return reason === 'timeout' || reason === 'closed' ? reason : 'cancelled';
}

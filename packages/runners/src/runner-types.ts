import type {
  DiscoveredTool,
  ToolCallResult,
  ToolLogLevel,
  ToolQuestion,
  ToolQuestionAnswer,
  ToolSandbox,
} from '@toolpack/core';

export interface ToolProgress {
  progress: number;
  total?: number;
  message?: string;
}

// Owned by @toolpack/core, where a JS module's `context.ask` needs them too.
export type { ToolQuestion, ToolQuestionAnswer, ToolQuestionField } from '@toolpack/core';

/** Why a call's signal was aborted; runners word their messages after it. */
export type StopReason = 'timeout' | 'cancelled' | 'closed';

/**
 * What a call runs with. An unconfined tool gets the project-wide environment; a confined one
 * (`tool.source.sandbox`) gets only the names its pack declared, and its sandbox.
 */
export interface CallConfinement {
  /**
   * `''` for unconfined tools, else one value per sandbox (its root and permissions): the
   * children, hosts and plans a runner keeps are kept per key, never shared across it.
   */
  key: string;
  environment: Readonly<Record<string, string>>;
  sandbox?: ToolSandbox;
}

/** One call as the front hands it to a runner: arguments already validated. */
export interface RunnerCall {
  tool: DiscoveredTool;
  args: Record<string, unknown>;
  confinement: CallConfinement;
  /** Aborted on timeout, cancellation or close; `signal.reason` is a `StopReason`. */
  signal: AbortSignal;
  onProgress(progress: ToolProgress): void;
  onLog(level: ToolLogLevel, message: string): void;
  /**
   * Asks the call's client. Rejects with a readable message when nobody can answer (a
   * client without elicitation, a task, the call already stopped); the call's timeout does
   * not run while it waits.
   */
  ask(question: ToolQuestion): Promise<ToolQuestionAnswer>;
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

import type { ToolCallResult, ToolLogLevel } from '@toolpack/core';

/** What the runner hands a module's worker when it starts it. */
export interface WorkerStartData {
  modulePath: string;
  projectRoot: string;
  maxOutputBytes: number;
}

export type ToWorkerMessage =
  | { type: 'load' }
  | {
      type: 'call';
      id: number;
      exportName: string;
      toolName: string;
      args: Record<string, unknown>;
    }
  | { type: 'abort'; id: number; reason: string };

export type FromWorkerMessage =
  | { type: 'loaded' }
  | { type: 'load-error'; message: string }
  | { type: 'result'; id: number; result: ToolCallResult }
  | { type: 'error'; id: number; message: string }
  | { type: 'progress'; id: number; progress: number; total?: number; message?: string }
  | { type: 'log'; id: number; level: ToolLogLevel; message: string };

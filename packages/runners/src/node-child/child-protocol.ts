import type { ToolCallResult, ToolLogLevel, ToolQuestionAnswer } from '@toolpack/core';

/** What the runner hands a module's child on its command line. */
export interface ChildStartData {
  modulePath: string;
  projectRoot: string;
  maxOutputBytes: number;
  maxResultBytes: number;
  maxResultItems: number;
}

/** The child's end of the call channel (a socket the runner passes as this fd). */
export const CHANNEL_FD = 3;

export type ToChildMessage =
  | { type: 'load' }
  | {
      type: 'call';
      id: number;
      exportName: string;
      toolName: string;
      args: Record<string, unknown>;
    }
  | { type: 'abort'; id: number; reason: string }
  /** The answer to the call's question `askId`, or why none can come. */
  | { type: 'answer'; id: number; askId: number; answer: ToolQuestionAnswer }
  | { type: 'answer'; id: number; askId: number; error: string };

export type FromChildMessage =
  | { type: 'loaded' }
  | { type: 'load-error'; message: string }
  | { type: 'result'; id: number; result: ToolCallResult }
  | { type: 'error'; id: number; message: string }
  | { type: 'progress'; id: number; progress: number; total?: number; message?: string }
  | { type: 'log'; id: number; level: ToolLogLevel; message: string }
  /** `context.ask`: answered with an `answer` message of the same `askId`. */
  | { type: 'ask'; id: number; askId: number; message: string; fields: unknown; key?: string }
  /** An uncaught exception: the child ends right after sending it. */
  | { type: 'crash'; message: string };

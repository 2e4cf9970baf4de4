import type { DiscoveredTool, ToolCallResult, ToolLogLevel } from '@toolpack/core';
import type { ToolProgress, ToolQuestion, ToolQuestionAnswer } from '@toolpack/runners';

export interface DispatchCallOptions {
  signal?: AbortSignal;
  timeoutMs?: number;
  onProgress?(progress: ToolProgress): void;
  onLog?(level: ToolLogLevel, message: string): void;
  /** Puts a tool's question to the caller's user (MCP elicitation); absent: refused at once. */
  ask?(question: ToolQuestion): Promise<ToolQuestionAnswer>;
}

/** Calls any composed tool: built-ins, workflows and runner tools alike. */
export interface ToolDispatcher {
  readonly tools: readonly DiscoveredTool[];
  get(name: string): DiscoveredTool | undefined;
  /**
   * Answers with an MCP result; failures of the tool (bad arguments included) are
   * `isError` results. Throws `E_UNKNOWN_TOOL` for a name no tool has.
   */
  call(name: string, args: unknown, options?: DispatchCallOptions): Promise<ToolCallResult>;
  /** `call` for a tool already looked up (one of `tools`). */
  run(tool: DiscoveredTool, args: unknown, options?: DispatchCallOptions): Promise<ToolCallResult>;
}

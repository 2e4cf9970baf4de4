import type { DiscoveredTool, ToolCallResult } from '@toolpack/core';
import {
  createToolSearchIndex,
  describeTool,
  suggestToolNames,
  type ToolSearchIndex,
} from '@toolpack/discovery';
import { checkToolArguments, checkToolResult, type ToolRunner } from '@toolpack/runners';
import { toCallResult } from './call-results.ts';
import type { DispatchCallOptions, ToolDispatcher } from './dispatch-types.ts';
import { runWorkflow } from './run-workflow.ts';
import { createUnknownToolError } from './unknown-tool.ts';

export interface CreateToolDispatcherOptions {
  tools: readonly DiscoveredTool[];
  runner: ToolRunner;
  /** Workflows calling workflows deeper than this fail (cycles are refused at load already). */
  maxWorkflowDepth?: number;
  /**
   * How `call_tool` runs the tool it names. The server passes its call pipeline, so a tool
   * reached through call_tool meets the same policy, audit line and metrics as a direct call;
   * without it the tool runs here (arguments checked, as always).
   */
  callNamedTool?: (
    name: string,
    args: unknown,
    options: DispatchCallOptions,
  ) => Promise<ToolCallResult>;
}

/**
 * One place that knows how every kind of tool is called: built-ins answer from the
 * catalogue, workflows run their steps through this same dispatcher, everything else goes
 * to the runner. The server, `mcp call` and `mcp test` all call tools through it.
 */
export function createToolDispatcher(options: CreateToolDispatcherOptions): ToolDispatcher {
  const byName = new Map(options.tools.map((tool) => [tool.name, tool]));
  const maxDepth = options.maxWorkflowDepth ?? 16;
  const catalogue = options.tools.filter((tool) => tool.source.kind !== 'builtin');
  // Built on the first find_tools of a tool set (the server makes a dispatcher per reload),
  // then asked per query: a start, a reload or an `mcp call` that never searches pays nothing
  // (about 30 ms for 1,000 tools, 200 ms for 10,000).
  let search: ToolSearchIndex | undefined;
  const searchIndex = (): ToolSearchIndex => (search ??= createToolSearchIndex(catalogue));

  const answerBuiltin = async (
    builtin: string,
    input: Record<string, unknown>,
    callOptions: DispatchCallOptions,
    depth: number,
  ): Promise<ToolCallResult> => {
    if (builtin === 'find_tools') {
      const limit = typeof input.limit === 'number' ? input.limit : 10;
      const matches = searchIndex()
        .search(String(input.query), limit)
        .map(({ name, description, inputSchema }) => ({ name, description, inputSchema }));
      return toCallResult({ tools: matches }, false);
    }
    if (builtin === 'call_tool') return callNamed(input, callOptions, depth);
    const found = describeTool(options.tools, String(input.name));
    if (found !== undefined) return toCallResult(found, false);
    const suggestions = suggestToolNames(options.tools, String(input.name));
    return toCallResult(
      `No tool is named ${JSON.stringify(input.name)}.${suggestions.length > 0 ? ` Did you mean ${suggestions.join(', ')}?` : ''}`,
      true,
    );
  };

  const callNamed = async (
    input: Record<string, unknown>,
    callOptions: DispatchCallOptions,
    depth: number,
  ): Promise<ToolCallResult> => {
    const name = String(input.name);
    const args = input.arguments ?? {};
    const target = byName.get(name);
    if (target?.invocation.runner === 'builtin' && target.invocation.builtin === 'call_tool')
      return toCallResult('call_tool runs other tools; call the tool you want directly.', true);
    if (options.callNamedTool !== undefined) return options.callNamedTool(name, args, callOptions);
    if (target === undefined) {
      const unknown = createUnknownToolError(catalogue, name);
      return toCallResult(`${unknown.message} ${unknown.hint ?? ''}`.trim(), true);
    }
    return run(target, args, callOptions, depth + 1);
  };

  const run = async (
    tool: DiscoveredTool,
    args: unknown,
    callOptions: DispatchCallOptions = {},
    depth = 0,
  ): Promise<ToolCallResult> => {
    const invocation = tool.invocation;
    const input = (args ?? {}) as Record<string, unknown>;
    // The runner checks the arguments of the tools it runs (its direct callers rely on that);
    // the tools answered here get the same check, before anything of them runs.
    if (invocation.runner !== 'builtin' && invocation.runner !== 'workflow') {
      return options.runner.call(tool, input, callOptions);
    }
    const problem = checkToolArguments(tool, input);
    if (problem !== undefined) return problem;
    if (invocation.runner === 'builtin')
      return answerBuiltin(invocation.builtin, input, callOptions, depth);
    if (depth >= maxDepth) {
      return toCallResult(
        `Workflow ${tool.name} nests more than ${maxDepth} workflows deep; refusing to go on.`,
        true,
      );
    }
    const result = await runWorkflow(tool, invocation.workflow, input, {
      call: async (stepName, stepArgs, stepOptions) => {
        const step = byName.get(stepName);
        if (step === undefined)
          return toCallResult(createUnknownToolError(options.tools, stepName).message, true);
        return run(step, stepArgs, stepOptions, depth + 1).catch((error: unknown) =>
          toCallResult((error as Error).message, true),
        );
      },
      options: callOptions,
    });
    // The runner checks the results of the tools it runs; a workflow's is checked here.
    return checkToolResult(tool, result) ?? result;
  };

  return {
    tools: options.tools,
    get: (name) => byName.get(name),
    call: async (name, args, callOptions) => {
      const tool = byName.get(name);
      if (tool === undefined) throw createUnknownToolError(options.tools, name);
      return run(tool, args, callOptions);
    },
    run,
  };
}

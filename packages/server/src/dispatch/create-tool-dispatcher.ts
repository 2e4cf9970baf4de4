import {
  ToolpackError,
  createArgumentValidator,
  type DiscoveredTool,
  type ToolCallResult,
} from '@toolpack/core';
import { describeTool, findTools } from '@toolpack/discovery';
import type { ToolRunner } from '@toolpack/runners';
import type { DispatchCallOptions, ToolDispatcher } from './dispatch-types.ts';
import { toCallResult } from './results.ts';
import { runWorkflow } from './run-workflow.ts';

export interface CreateToolDispatcherOptions {
  tools: readonly DiscoveredTool[];
  runner: ToolRunner;
  /** Workflows calling workflows deeper than this fail (cycles are refused at load already). */
  maxWorkflowDepth?: number;
}

const MAX_ECHOED_NAME = 200;

/**
 * One place that knows how every kind of tool is called: built-ins answer from the
 * catalogue, workflows run their steps through this same dispatcher, everything else goes
 * to the runner. The server, `mcp call` and `mcp test` all call tools through it.
 */
export function createToolDispatcher(options: CreateToolDispatcherOptions): ToolDispatcher {
  const byName = new Map(options.tools.map((tool) => [tool.name, tool]));
  const maxDepth = options.maxWorkflowDepth ?? 16;
  const catalogue = options.tools.filter((tool) => tool.source.kind !== 'builtin');

  const invalid = (tool: DiscoveredTool, args: unknown): ToolCallResult | undefined => {
    const validation = createArgumentValidator(tool.inputSchema)(args ?? {});
    return validation.valid
      ? undefined
      : toCallResult(`Invalid arguments for tool "${tool.name}": ${validation.message}.`, true);
  };

  const call = async (
    name: string,
    args: unknown,
    callOptions: DispatchCallOptions,
    depth: number,
  ): Promise<ToolCallResult> => {
    const tool = byName.get(name);
    if (tool === undefined) {
      const suggestions = findTools(options.tools, name, 3).map((match) => match.name);
      // The name is the client's, of any length: echo only enough of it to recognise.
      const shown = name.length > MAX_ECHOED_NAME ? `${name.slice(0, MAX_ECHOED_NAME)}…` : name;
      throw new ToolpackError('E_UNKNOWN_TOOL', `Unknown tool: ${shown}.`, {
        hint:
          suggestions.length > 0
            ? `Did you mean ${suggestions.join(', ')}? tools/list (or mcp list) shows every tool.`
            : 'tools/list (or mcp list) shows every tool.',
      });
    }
    const invocation = tool.invocation;
    if (invocation.runner === 'builtin') {
      const problem = invalid(tool, args);
      if (problem !== undefined) return problem;
      const input = (args ?? {}) as Record<string, unknown>;
      if (invocation.builtin === 'find_tools') {
        const limit = typeof input.limit === 'number' ? input.limit : 10;
        const matches = findTools(catalogue, String(input.query), limit).map(
          ({ name: n, description, inputSchema }) => ({
            name: n,
            description,
            inputSchema,
          }),
        );
        return toCallResult({ tools: matches }, false);
      }
      const found = describeTool(options.tools, String(input.name));
      if (found === undefined) {
        const suggestions = findTools(catalogue, String(input.name), 3).map((match) => match.name);
        return toCallResult(
          `No tool is named ${JSON.stringify(input.name)}.${suggestions.length > 0 ? ` Did you mean ${suggestions.join(', ')}?` : ''}`,
          true,
        );
      }
      return toCallResult(found, false);
    }
    if (invocation.runner === 'workflow') {
      const problem = invalid(tool, args);
      if (problem !== undefined) return problem;
      if (depth >= maxDepth) {
        return toCallResult(
          `Workflow ${tool.name} nests more than ${maxDepth} workflows deep; refusing to go on.`,
          true,
        );
      }
      return runWorkflow(tool, invocation.workflow, (args ?? {}) as Record<string, unknown>, {
        call: (stepTool, stepArgs, stepOptions) =>
          call(stepTool, stepArgs, stepOptions, depth + 1).catch((error: unknown) =>
            toCallResult((error as Error).message, true),
          ),
        options: callOptions,
      });
    }
    return options.runner.call(tool, (args ?? {}) as Record<string, unknown>, callOptions);
  };

  return {
    tools: options.tools,
    get: (name) => byName.get(name),
    call: (name, args, callOptions = {}) => call(name, args, callOptions, 0),
  };
}

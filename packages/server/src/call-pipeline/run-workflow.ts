import type { DiscoveredTool, ToolCallResult, WorkflowSpec } from '@toolpack/core';
import type { DispatchCallOptions } from './dispatch-types.ts';
import { resolveReferences, type ReferenceScope } from './resolve-references.ts';
import { toCallResult, textOf } from './call-results.ts';

export interface RunWorkflowContext {
  call(name: string, args: unknown, options: DispatchCallOptions): Promise<ToolCallResult>;
  options: DispatchCallOptions;
}

/** What `${steps.<id>.result}` is: the structured result when the tool gave one, else its text. */
function stepResult(result: ToolCallResult): unknown {
  return result.structuredContent ?? textOf(result);
}

/** Arguments with the schema's declared defaults filled in, so `${input.x}` sees them. */
function withDefaults(
  tool: DiscoveredTool,
  args: Record<string, unknown>,
): Record<string, unknown> {
  const input = { ...args };
  for (const [name, property] of Object.entries(tool.inputSchema.properties ?? {})) {
    if (input[name] === undefined && property.default !== undefined)
      input[name] = structuredClone(property.default);
  }
  return input;
}

/**
 * Runs a workflow's steps in order, each through the dispatcher (so a step may be any
 * tool, a built-in or another workflow), stopping at the first failing step.
 */
export async function runWorkflow(
  tool: DiscoveredTool,
  workflow: WorkflowSpec,
  args: Record<string, unknown>,
  context: RunWorkflowContext,
): Promise<ToolCallResult> {
  const scope: ReferenceScope = { input: withDefaults(tool, args), steps: new Map() };
  const total = workflow.steps.length;
  let last: unknown;
  for (const [index, step] of workflow.steps.entries()) {
    if (context.options.signal?.aborted) {
      return toCallResult(`Workflow ${tool.name} was cancelled before step "${step.id}".`, true);
    }
    context.options.onProgress?.({
      progress: index,
      total,
      message: `step ${step.id}: ${step.tool}`,
    });
    let stepArgs: unknown;
    try {
      stepArgs = resolveReferences(step.with, scope);
    } catch (error) {
      return toCallResult(
        `Workflow ${tool.name}, step "${step.id}": ${(error as Error).message}`,
        true,
      );
    }
    const result = await context.call(step.tool, stepArgs, context.options);
    if (result.isError) {
      const where = step.line === undefined ? workflow.path : `${workflow.path}:${step.line}`;
      return toCallResult(
        `Workflow ${tool.name} stopped at step "${step.id}" (${step.tool}, ${where}): ${textOf(result)}`,
        true,
      );
    }
    last = stepResult(result);
    scope.steps.set(step.id, last);
  }
  context.options.onProgress?.({ progress: total, total });
  const output = workflow.output === undefined ? last : resolveReferences(workflow.output, scope);
  return toCallResult(output, false);
}

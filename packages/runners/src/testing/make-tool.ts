import type { DiscoveredTool, JsonSchema, ToolInvocation, ToolSourceKind } from '@toolpack/core';

export interface MakeToolInput {
  name: string;
  invocation: ToolInvocation;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  timeoutMs?: number;
  additionalProperties?: boolean;
}

export function makeTool(input: MakeToolInput): DiscoveredTool {
  const kind: ToolSourceKind =
    input.invocation.runner === 'node-worker'
      ? 'js-module'
      : input.invocation.runner === 'pwsh'
        ? input.invocation.mode === 'module'
          ? 'ps-module'
          : input.invocation.mode
        : input.invocation.runner === 'process'
          ? 'script'
          : input.invocation.runner;
  const path =
    'scriptPath' in input.invocation
      ? input.invocation.scriptPath
      : 'modulePath' in input.invocation
        ? input.invocation.modulePath
        : input.name;
  return {
    name: input.name,
    originalName: input.name,
    description: `Test tool ${input.name}`,
    inputSchema: {
      type: 'object',
      properties: input.properties ?? {},
      ...(input.required === undefined ? {} : { required: input.required }),
      additionalProperties: input.additionalProperties ?? true,
    },
    source: { kind, path },
    invocation: input.invocation,
    ...(input.timeoutMs === undefined ? {} : { timeoutMs: input.timeoutMs }),
  };
}

export function firstText(result: { content: Array<{ type: string; text?: string }> }): string {
  const item = result.content.find((entry) => entry.type === 'text');
  return item?.text ?? '';
}

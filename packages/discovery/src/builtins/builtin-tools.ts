import { buildInputSchema, type DiscoveredTool, type ToolDefinition } from '@toolpack/core';
import { createToolSearchIndex, type ToolMatch } from '../tool-search/tool-search-index.ts';

export const BUILTIN_TOOL_NAMES = ['find_tools', 'describe_tool'] as const;

export type { ToolMatch };

/** Always served, so a client with many tools can search instead of scrolling. */
export function createBuiltinTools(): DiscoveredTool[] {
  return [
    {
      name: 'find_tools',
      description:
        'Searches the tools this server offers by words (matched against names and descriptions) and returns the best matches with their input schemas.',
      inputSchema: buildInputSchema([
        {
          name: 'query',
          type: 'string',
          description: 'Words describing what you want to do, e.g. "create jira issue".',
          required: true,
          minLength: 1,
        },
        {
          name: 'limit',
          type: 'integer',
          description: 'How many tools to return at most.',
          minimum: 1,
          maximum: 50,
          default: 10,
        },
      ]),
      annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
      source: { kind: 'builtin', path: '<builtin>' },
      invocation: { runner: 'builtin', builtin: 'find_tools' },
      originalName: 'find_tools',
    },
    {
      name: 'describe_tool',
      description:
        'Returns the full definition of one tool: description, input schema, hints and where it comes from.',
      inputSchema: buildInputSchema([
        {
          name: 'name',
          type: 'string',
          description: 'The exact tool name, as tools/list or find_tools gives it.',
          required: true,
          minLength: 1,
        },
      ]),
      annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
      source: { kind: 'builtin', path: '<builtin>' },
      invocation: { runner: 'builtin', builtin: 'describe_tool' },
      originalName: 'describe_tool',
    },
  ];
}

/**
 * Ranks tools for `find_tools` (BM25F, see tool-search/). Builds an index per call: fine for
 * one question; a caller asking many keeps a `createToolSearchIndex` of its own.
 */
export function findTools(
  tools: readonly ToolDefinition[],
  query: string,
  limit = 10,
): ToolMatch[] {
  return createToolSearchIndex(tools).search(query, limit);
}

/** `describe_tool`: the client-facing definition of one tool, or undefined. */
export function describeTool(
  tools: readonly ToolDefinition[],
  name: string,
): ToolDefinition | undefined {
  const tool = tools.find((t) => t.name === name);
  if (tool === undefined) return undefined;
  const {
    name: toolName,
    title,
    description,
    inputSchema,
    outputSchema,
    annotations,
    source,
    inputExamples,
    parameterSets,
  } = tool;
  return {
    name: toolName,
    description,
    inputSchema,
    source,
    ...(title === undefined ? {} : { title }),
    ...(outputSchema === undefined ? {} : { outputSchema }),
    ...(annotations === undefined ? {} : { annotations }),
    ...(inputExamples === undefined ? {} : { inputExamples }),
    ...(parameterSets === undefined ? {} : { parameterSets }),
  };
}

/**
 * `call_tool`: runs another tool by name. Served only under progressive disclosure, when
 * tools/list shows the built-ins instead of a catalogue too large to list.
 */
export function createCallToolBuiltin(): DiscoveredTool {
  return {
    name: 'call_tool',
    description:
      "Runs one of this server's tools by name (find_tools finds it, describe_tool shows its arguments) and returns that tool's result.",
    inputSchema: buildInputSchema([
      {
        name: 'name',
        type: 'string',
        description: 'The exact tool name, as find_tools gives it.',
        required: true,
        minLength: 1,
      },
      {
        name: 'arguments',
        type: 'object',
        description: "The tool's arguments, as its input schema describes them.",
      },
    ]),
    annotations: { openWorldHint: true },
    source: { kind: 'builtin', path: '<builtin>' },
    invocation: { runner: 'builtin', builtin: 'call_tool' },
    originalName: 'call_tool',
  };
}

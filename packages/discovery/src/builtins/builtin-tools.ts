import { buildInputSchema, type DiscoveredTool, type ToolDefinition } from '@toolpack/core';

export const BUILTIN_TOOL_NAMES = ['find_tools', 'describe_tool'] as const;

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

export interface ToolMatch {
  name: string;
  description: string;
  inputSchema: ToolDefinition['inputSchema'];
  score: number;
}

/**
 * Ranks tools for `find_tools`: every query word found in the name counts three times, in
 * the description once; words match by prefix so `notif` finds `send_notification`.
 */
export function findTools(
  tools: readonly ToolDefinition[],
  query: string,
  limit = 10,
): ToolMatch[] {
  const words = query
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((w) => w.length > 0);
  if (words.length === 0) return [];
  const matches: ToolMatch[] = [];
  for (const tool of tools) {
    const nameWords = tool.name.toLowerCase().split(/[^a-z0-9]+/);
    const descriptionWords = tool.description.toLowerCase().split(/[^a-z0-9]+/);
    let score = 0;
    for (const word of words) {
      if (nameWords.some((w) => w.startsWith(word))) score += 3;
      if (descriptionWords.some((w) => w.startsWith(word))) score += 1;
    }
    if (score > 0)
      matches.push({
        name: tool.name,
        description: tool.description,
        inputSchema: tool.inputSchema,
        score,
      });
  }
  return matches
    .sort((a, b) => b.score - a.score || a.name.localeCompare(b.name, 'en'))
    .slice(0, limit);
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
  } = tool;
  return {
    name: toolName,
    description,
    inputSchema,
    source,
    ...(title === undefined ? {} : { title }),
    ...(outputSchema === undefined ? {} : { outputSchema }),
    ...(annotations === undefined ? {} : { annotations }),
  };
}

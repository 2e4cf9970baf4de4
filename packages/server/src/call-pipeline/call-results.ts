import type { ToolCallResult } from '@toolpack/core';

/** The text of a result's text blocks, joined. */
export function textOf(result: ToolCallResult): string {
  return result.content
    .filter((block): block is { type: 'text'; text: string } => block.type === 'text')
    .map((block) => block.text)
    .join('\n');
}

/** A value as MCP returns it: objects as structuredContent plus their JSON as text. */
export function toCallResult(value: unknown, isError: boolean): ToolCallResult {
  const result: ToolCallResult =
    value === undefined || value === null
      ? { content: [] }
      : typeof value === 'string'
        ? { content: [{ type: 'text', text: value }] }
        : { content: [{ type: 'text', text: JSON.stringify(value, null, 2) }] };
  if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
    result.structuredContent = value as Record<string, unknown>;
  }
  if (isError) result.isError = true;
  return result;
}

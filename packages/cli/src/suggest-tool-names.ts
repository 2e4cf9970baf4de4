import type { DiscoveredTool } from '@toolpack/core';
import { suggestToolNames } from '@toolpack/discovery';

/** The hint of an unknown tool name. */
export function describeUnknownTool(tools: readonly DiscoveredTool[], name: string): string {
  const suggestions = suggestToolNames(tools, name);
  return suggestions.length > 0
    ? `Did you mean ${suggestions.join(', ')}? mcp list shows every tool.`
    : 'mcp list shows every tool.';
}

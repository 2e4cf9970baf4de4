import { findClosestName, type DiscoveredTool } from '@toolpack/core';
import { findTools } from '@toolpack/discovery';

/**
 * Up to three tools `name` may have meant: the closest spelling first (`NewGreeting`,
 * `new-greeting`, `New_Greting` -> `New_Greeting`), then the best matches of a search
 * over names and descriptions (`greeting` -> `New_Greeting`).
 */
export function suggestToolNames(tools: readonly DiscoveredTool[], name: string): string[] {
  const closest = findClosestName(
    name,
    tools.map((tool) => tool.name),
  );
  const searched = findTools(tools, name, 3).map((match) => match.name);
  return [...new Set([...(closest === undefined ? [] : [closest]), ...searched])].slice(0, 3);
}

/** The hint of an unknown tool name. */
export function describeUnknownTool(tools: readonly DiscoveredTool[], name: string): string {
  const suggestions = suggestToolNames(tools, name);
  return suggestions.length > 0
    ? `Did you mean ${suggestions.join(', ')}? mcp list shows every tool.`
    : 'mcp list shows every tool.';
}

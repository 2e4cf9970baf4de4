import { findClosestName, type ToolDefinition } from '@toolpack/core';
import { findTools } from '../builtins/builtin-tools.ts';

/**
 * Up to three tools `name` may have meant: the closest spelling first (`NewGreeting`,
 * `new-greeting`, `New_Greting` -> `New_Greeting`), then the best matches of a search over
 * names and descriptions (`greeting` -> `New_Greeting`). The CLI and the server both answer an
 * unknown name with it, so a typo gets the same suggestion from either.
 */
export function suggestToolNames(tools: readonly ToolDefinition[], name: string): string[] {
  const closest = findClosestName(
    name,
    tools.map((tool) => tool.name),
  );
  const searched = findTools(tools, name, 3).map((match) => match.name);
  return [...new Set([...(closest === undefined ? [] : [closest]), ...searched])].slice(0, 3);
}

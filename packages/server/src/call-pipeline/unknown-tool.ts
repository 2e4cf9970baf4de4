import { ToolpackError, type DiscoveredTool } from '@toolpack/core';
import { suggestToolNames } from '@toolpack/discovery';

const MAX_ECHOED_NAME = 200;

/**
 * The one description of a name no served tool has: `E_UNKNOWN_TOOL` with the closest names.
 * Each caller turns it into its own answer (a thrown error, JSON-RPC -32602, a failed
 * workflow step) without throwing and catching it on the way.
 */
export function createUnknownToolError(
  tools: readonly DiscoveredTool[],
  name: string,
): ToolpackError {
  const suggestions = suggestToolNames(tools, name);
  // The name is the client's, of any length: echo only enough of it to recognise.
  const shown = name.length > MAX_ECHOED_NAME ? `${name.slice(0, MAX_ECHOED_NAME)}…` : name;
  return new ToolpackError('E_UNKNOWN_TOOL', `Unknown tool: ${shown}.`, {
    hint:
      suggestions.length > 0
        ? `Did you mean ${suggestions.join(', ')}? find_tools searches every tool by words.`
        : 'find_tools searches every tool by words; tools/list (or mcp list) lists them.',
  });
}

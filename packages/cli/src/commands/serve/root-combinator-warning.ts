import type { DiscoveredTool, ToolpackErrorCode } from '@toolpack/core';
import { hasRootCombinator } from '@toolpack/server';

const NAMED_AT_MOST = 5;
const CODE: ToolpackErrorCode = 'W_ROOT_COMBINATOR';

/**
 * The start-up line for tools listed with a root `oneOf`/`anyOf`/`allOf`. Said once at start:
 * a client whose model API refuses such a schema fails the whole session, and its user would
 * otherwise see only a provider error naming a tool index.
 */
export function renderRootCombinatorWarning(options: {
  tools: readonly DiscoveredTool[];
  flatSchemas: boolean;
}): string | undefined {
  if (options.flatSchemas) return undefined;
  const names = options.tools
    .filter((tool) => hasRootCombinator(tool.inputSchema))
    .map((tool) => tool.name);
  if (names.length === 0) return undefined;
  const shown = names.slice(0, NAMED_AT_MOST).join(', ');
  const more = names.length > NAMED_AT_MOST ? ` and ${names.length - NAMED_AT_MOST} more` : '';
  const tools = names.length === 1 ? 'tool has' : 'tools have';
  return (
    `${CODE} ${names.length} ${tools} a oneOf/anyOf/allOf at the root of the input schema (${shown}${more}): ` +
    'Claude (Anthropic API, Bedrock, Vertex) and OpenAI strict mode refuse such a schema and with it every tool of the session. ' +
    'For those clients add --flat-schemas to the serve command, e.g. mcp config claude --write --flat-schemas (the parameter sets then go into the description).'
  );
}

import type { DiscoveredTool, ObjectJsonSchema } from '@toolpack/core';

/**
 * The keywords that the model APIs behind many clients (Anthropic's, and Bedrock, Vertex and
 * OpenAI's strict mode) refuse at the root of a tool's input schema: one such tool makes them
 * refuse the whole request, so every tool of the session is lost, not just that one.
 */
const ROOT_COMBINATORS = ['oneOf', 'anyOf', 'allOf'] as const;

/** Whether a tool's input schema has `oneOf`, `anyOf` or `allOf` at its root. */
export function hasRootCombinator(schema: ObjectJsonSchema): boolean {
  return ROOT_COMBINATORS.some((keyword) => schema[keyword] !== undefined);
}

/**
 * What tools/list shows of a tool when schemas are served flat: the input schema without its
 * root combinators (its properties and the parameters every branch requires stay), and the
 * parameter sets spelled out in the description so the model still knows which go together.
 * Calls are still checked against the full schema and bound to their set by the runner.
 */
export function flattenListedSchema(tool: DiscoveredTool): {
  inputSchema: ObjectJsonSchema;
  description: string;
} {
  const inputSchema: ObjectJsonSchema = { ...tool.inputSchema };
  for (const keyword of ROOT_COMBINATORS) delete inputSchema[keyword];
  const sets = tool.parameterSets;
  if (sets === undefined || sets.length === 0)
    return { inputSchema, description: tool.description };
  const described = sets.map((set) => {
    const parameters = set.parameters.map((name) =>
      set.required.includes(name) ? `${name} (required)` : name,
    );
    const label = set.isDefault ? `${set.name} (default)` : set.name;
    return `${label}: ${parameters.length === 0 ? 'no parameters' : parameters.join(', ')}`;
  });
  return {
    inputSchema,
    description: `${tool.description}\n\nParameter sets (send the parameters of one set only): ${described.join('; ')}.`,
  };
}

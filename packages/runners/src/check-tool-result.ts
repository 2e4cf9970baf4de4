import {
  createArgumentValidator,
  type DiscoveredTool,
  type ToolCallResult,
  type ToolpackErrorCode,
} from '@toolpack/core';

const CODE: ToolpackErrorCode = 'E_OUTPUT_MISMATCH';

/**
 * Why a tool's result does not fit its output schema, or undefined when it fits (or the tool
 * declares none). One sentence the model can act on, starting with the error code.
 */
export function findOutputMismatch(
  tool: DiscoveredTool,
  result: ToolCallResult,
): string | undefined {
  const schema = tool.outputSchema;
  if (schema === undefined) return undefined;
  const fix = `Make the tool return a JSON object that fits its outputSchema, or change the schema.`;
  if (result.structuredContent === undefined) {
    return (
      `${CODE} Tool "${tool.name}" declares an output schema but its result has no structured content ` +
      `(a JSON object printed or returned as the whole output). ${fix}`
    );
  }
  let validate: ReturnType<typeof createArgumentValidator>;
  try {
    validate = createArgumentValidator(schema);
  } catch (error) {
    return `${CODE} Tool "${tool.name}" has an output schema that is not valid JSON Schema (${(error as Error).message}). Fix the tool's output declaration.`;
  }
  const validation = validate(result.structuredContent);
  if (validation.valid) return undefined;
  const problems = validation.errors.map(({ path, rule, message }) => {
    // The validator words an undeclared key for arguments; here it is a key of the result.
    const detail =
      rule === 'additionalProperties'
        ? message
            .slice(path.length)
            .replace('is not an accepted argument', 'is not a declared output property')
        : message.slice(path.length);
    return `structuredContent${path === '/' ? '' : path}${detail}`;
  });
  const more =
    validation.moreErrors > 0
      ? `; and ${validation.moreErrors} more ${validation.moreErrors === 1 ? 'problem' : 'problems'}`
      : '';
  return `${CODE} Tool "${tool.name}" returned a result that does not fit its output schema: ${problems.join('; ')}${more}. ${fix}`;
}

/**
 * The one check of a successful result against the tool's output schema, for every kind of
 * tool: MCP requires `structuredContent` that fits a declared `outputSchema`, and an SDK client
 * throws on a result that does not, so the model would see a protocol failure instead of a tool
 * error it can act on. Undefined when the result may go out as it is (an error result, a tool
 * without an output schema, or structured content that fits); otherwise an error result with
 * the tool's own content first and the mismatch after it. A failed run is never checked: its
 * own error leads, and "change the schema" would send the model after the wrong cause.
 * The schema is compiled once per tool (core caches the validator per schema object).
 */
export function checkToolResult(
  tool: DiscoveredTool,
  result: ToolCallResult,
): ToolCallResult | undefined {
  if (result.isError === true) return undefined;
  const mismatch = findOutputMismatch(tool, result);
  if (mismatch === undefined) return undefined;
  return { content: [...result.content, { type: 'text', text: mismatch }], isError: true };
}

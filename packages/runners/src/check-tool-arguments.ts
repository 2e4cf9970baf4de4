import {
  canonicalizeArguments,
  createArgumentValidator,
  type DiscoveredTool,
  type JsonSchema,
  type ToolCallResult,
  type ToolpackErrorCode,
} from '@toolpack/core';
import { bindParameterSet } from './bind-parameter-set.ts';
import { createErrorResult } from './results.ts';

const SET_MATCH: ToolpackErrorCode = 'E_PARAMETER_SET_MATCH';

/** Input schemas without their parameter-set `oneOf`, one per schema object. */
const valueSchemas = new WeakMap<object, JsonSchema>();

/**
 * What the values must be, whatever set the call binds: the schema without its `oneOf`. The
 * set itself is decided by bindParameterSet, whose messages name what each set lacks; Ajv's
 * for a failed `oneOf` only say that no branch (or two) matched.
 */
function readValueSchema(tool: DiscoveredTool): JsonSchema {
  if (tool.parameterSets === undefined) return tool.inputSchema;
  let schema = valueSchemas.get(tool.inputSchema);
  if (schema === undefined) {
    const { oneOf: _branches, ...values } = tool.inputSchema;
    schema = values;
    valueSchemas.set(tool.inputSchema, schema);
  }
  return schema;
}

/**
 * The one check of a call's arguments against the tool's input schema, for every kind of
 * tool: the runner applies it to the tools it runs, the server's dispatcher to the tools it
 * answers itself (built-ins, workflows). Undefined when the arguments are valid; otherwise
 * the error result the caller answers with, naming the path and rule that failed. A tool with
 * several parameter sets also needs arguments that bind exactly one set, as PowerShell binds
 * them; the runner then passes them on unchanged and the engine binds the same set.
 */
export function checkToolArguments(
  tool: DiscoveredTool,
  args: unknown,
): ToolCallResult | undefined {
  let validate: ReturnType<typeof createArgumentValidator>;
  try {
    validate = createArgumentValidator(readValueSchema(tool));
  } catch (error) {
    return createErrorResult(
      `Tool "${tool.name}" cannot be called: its input schema is not valid (${(error as Error).message}). Fix the tool's parameter declarations.`,
    );
  }
  const validation = validate(args);
  if (!validation.valid)
    return createErrorResult(`Invalid arguments for tool "${tool.name}": ${validation.message}.`);
  if (tool.parameterSets === undefined) return undefined;
  const binding = bindParameterSet(tool.parameterSets, args as Record<string, unknown>);
  if (binding.bound) return undefined;
  return createErrorResult(
    `${SET_MATCH} Invalid arguments for tool "${tool.name}": ${binding.message}. ` +
      `Its parameter sets: ${tool.parameterSets
        .map(
          (set) =>
            `${set.name}${set.isDefault ? ' (default)' : ''} takes ${set.parameters.length === 0 ? 'no parameters' : set.parameters.join(', ')}${set.required.length === 0 ? '' : `, needs ${set.required.join(', ')}`}`,
        )
        .join('; ')}.`,
  );
}

/**
 * The arguments a tool is called with once checked: a value sent in another case for an enum
 * that ignores case (PowerShell's `ValidateSet`, enum types) is replaced by its listed
 * spelling, so the script receives what it declared, as when PowerShell binds it.
 */
export function bindToolArguments(
  tool: DiscoveredTool,
  args: Record<string, unknown>,
): Record<string, unknown> {
  return canonicalizeArguments(tool.inputSchema, args) as Record<string, unknown>;
}

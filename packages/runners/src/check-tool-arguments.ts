import { createArgumentValidator, type DiscoveredTool, type ToolCallResult } from '@toolpack/core';
import { createErrorResult } from './results.ts';

/**
 * The one check of a call's arguments against the tool's input schema, for every kind of
 * tool: the runner applies it to the tools it runs, the server's dispatcher to the tools it
 * answers itself (built-ins, workflows). Undefined when the arguments are valid; otherwise
 * the error result the caller answers with, naming the path and rule that failed.
 */
export function checkToolArguments(
  tool: DiscoveredTool,
  args: unknown,
): ToolCallResult | undefined {
  let validate: ReturnType<typeof createArgumentValidator>;
  try {
    validate = createArgumentValidator(tool.inputSchema);
  } catch (error) {
    return createErrorResult(
      `Tool "${tool.name}" cannot be called: its input schema is not valid (${(error as Error).message}). Fix the tool's parameter declarations.`,
    );
  }
  const validation = validate(args);
  if (validation.valid) return undefined;
  return createErrorResult(`Invalid arguments for tool "${tool.name}": ${validation.message}.`);
}

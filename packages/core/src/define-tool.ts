import { z } from 'zod';
import { ToolpackError } from './errors.ts';
import { validateToolName } from './names.ts';
import type {
  JsonSchema,
  ObjectJsonSchema,
  ToolAnnotations,
  ToolRunContext,
} from './tool-model.ts';
import { findSchemaProblems } from './validate-arguments.ts';

/** A zod 4 schema or a plain JSON Schema object. */
export type SchemaInput = z.ZodType | JsonSchema;

type InferArgs<I> = I extends z.ZodType ? z.output<I> : Record<string, unknown>;

export interface ToolSpec<I extends SchemaInput, R> {
  name: string;
  title?: string;
  description: string;
  input: I;
  output?: SchemaInput;
  annotations?: ToolAnnotations;
  timeoutMs?: number;
  run(args: InferArgs<I>, context: ToolRunContext): R | Promise<R>;
}

// A registry-wide symbol so a tool defined against one copy of @toolpack/core is still
// recognised by a discoverer that loaded another copy.
const TOOL_BRAND = Symbol.for('@toolpack/core/defined-tool');

/** What `defineTool` returns: a JS/TS module exports these and discovery finds them. */
export interface DefinedTool<R = unknown> {
  readonly [TOOL_BRAND]: true;
  readonly name: string;
  readonly title?: string;
  readonly description: string;
  readonly inputSchema: ObjectJsonSchema;
  readonly outputSchema?: ObjectJsonSchema;
  readonly annotations?: ToolAnnotations;
  readonly timeoutMs?: number;
  /** Parses the arguments with the zod schema when there is one (so transforms apply), then runs. */
  run(args: unknown, context: ToolRunContext): Promise<R>;
}

function isZodSchema(value: unknown): value is z.ZodType {
  return typeof value === 'object' && value !== null && '_zod' in value;
}

function toObjectSchema(
  input: SchemaInput,
  role: 'input' | 'output',
  toolName: string,
): ObjectJsonSchema {
  let schema: JsonSchema;
  if (isZodSchema(input)) {
    try {
      schema = z.toJSONSchema(input, { target: 'draft-2020-12', io: role, unrepresentable: 'any' });
    } catch (cause) {
      throw new ToolpackError(
        'E_SCHEMA',
        `Tool ${toolName}: the ${role} zod schema cannot be expressed as JSON Schema.`,
        {
          cause,
          hint: 'Avoid transforms and custom types that JSON Schema cannot describe, or pass a JSON Schema instead.',
        },
      );
    }
    delete schema.$schema;
    // zod omits `additionalProperties` for a plain z.object on input (it strips unknown
    // keys); clients should be told not to send them, as every other source's schema says.
    if (schema.type === 'object' && schema.additionalProperties === undefined)
      schema.additionalProperties = false;
  } else {
    schema = input;
    const problems = findSchemaProblems(schema);
    if (problems.length > 0) {
      throw new ToolpackError(
        'E_SCHEMA',
        `Tool ${toolName}: the ${role} schema is not valid JSON Schema: ${problems.join('; ')}.`,
        {
          hint: 'Fix the schema so it validates as JSON Schema 2020-12.',
        },
      );
    }
  }
  if (schema.type !== 'object') {
    throw new ToolpackError(
      'E_SCHEMA',
      `Tool ${toolName}: the ${role} schema must describe an object (type "object").`,
      {
        hint:
          role === 'input'
            ? 'Wrap the parameters in z.object({ ... }).'
            : 'Return an object and describe it with z.object({ ... }).',
      },
    );
  }
  return schema as ObjectJsonSchema;
}

/**
 * Declares a tool in a JS/TS module. Export the result; discovery finds every exported
 * `defineTool` value. The name must already be a valid MCP name: JS authors choose it.
 */
export function defineTool<I extends SchemaInput, R>(spec: ToolSpec<I, R>): DefinedTool<R> {
  const problems = validateToolName(spec.name ?? '');
  if (problems.length > 0) {
    throw new ToolpackError(
      'E_TOOL_NAME',
      `Tool name ${JSON.stringify(spec.name)} is not valid: ${problems.join('; ')}.`,
      {
        hint: 'Use 1-64 characters from A-Z, a-z, 0-9, _ and -, such as send_notification.',
      },
    );
  }
  if (typeof spec.description !== 'string' || spec.description.trim() === '') {
    throw new ToolpackError('E_NO_DESCRIPTION', `Tool ${spec.name} has no description.`, {
      hint: 'Say in one sentence what the tool does: the model chooses tools by their descriptions.',
    });
  }
  if (typeof spec.run !== 'function') {
    throw new ToolpackError('E_NO_RUN', `Tool ${spec.name} has no run function.`, {
      hint: 'Pass run: async (args, context) => { ... }.',
    });
  }
  if (spec.timeoutMs !== undefined && !(Number.isInteger(spec.timeoutMs) && spec.timeoutMs > 0)) {
    throw new ToolpackError(
      'E_TIMEOUT',
      `Tool ${spec.name}: timeoutMs must be a positive whole number of milliseconds.`,
    );
  }
  const inputSchema = toObjectSchema(spec.input, 'input', spec.name);
  const outputSchema =
    spec.output === undefined ? undefined : toObjectSchema(spec.output, 'output', spec.name);
  const parser = isZodSchema(spec.input) ? spec.input : undefined;
  const run = spec.run;

  const tool: DefinedTool<R> = {
    [TOOL_BRAND]: true,
    name: spec.name,
    description: spec.description,
    inputSchema,
    ...(spec.title === undefined ? {} : { title: spec.title }),
    ...(outputSchema === undefined ? {} : { outputSchema }),
    ...(spec.annotations === undefined ? {} : { annotations: { ...spec.annotations } }),
    ...(spec.timeoutMs === undefined ? {} : { timeoutMs: spec.timeoutMs }),
    async run(args, context) {
      if (parser === undefined) return run(args as InferArgs<I>, context);
      const parsed = parser.safeParse(args);
      if (!parsed.success) {
        const detail = parsed.error.issues
          .map((issue) => `/${issue.path.map(String).join('/')} ${issue.message}`)
          .join('; ');
        throw new ToolpackError('E_ARGUMENTS', `Invalid arguments for ${spec.name}: ${detail}.`);
      }
      return run(parsed.data as InferArgs<I>, context);
    },
  };
  return Object.freeze(tool);
}

/** True for a value made by `defineTool`, from any copy of @toolpack/core. */
export function isDefinedTool(value: unknown): value is DefinedTool {
  return (
    typeof value === 'object' &&
    value !== null &&
    (value as Record<symbol, unknown>)[TOOL_BRAND] === true
  );
}

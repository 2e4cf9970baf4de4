import { z } from 'zod';
import { ToolpackError } from './errors.ts';
import { isPlainObject } from './is-plain-object.ts';
import { validateToolName } from './names.ts';
import type {
  JsonSchema,
  ObjectJsonSchema,
  ToolAnnotations,
  ToolInputExample,
  ToolRunContext,
} from './tool-model.ts';
import { findSchemaProblems, validateArguments } from './validate-arguments.ts';

/** A zod 4 schema or a plain JSON Schema object. */
export type SchemaInput = z.ZodType | JsonSchema;

type InferArgs<I> = I extends z.ZodType ? z.output<I> : Record<string, unknown>;
/** What a caller sends: a zod schema's input side (before defaults and transforms). */
type InferCallArgs<I> = I extends z.ZodType ? z.input<I> : Record<string, unknown>;

/** A worked call of the tool: its arguments as a client sends them, and what it shows. */
export interface ToolExample<I extends SchemaInput> {
  arguments: InferCallArgs<I>;
  description?: string;
}

export interface ToolSpec<I extends SchemaInput, R> {
  name: string;
  title?: string;
  description: string;
  input: I;
  output?: SchemaInput;
  annotations?: ToolAnnotations;
  timeoutMs?: number;
  /** Worked calls, checked against the input schema here; clients and find_tools show them. */
  examples?: readonly ToolExample<I>[];
  /** Calls take long: clients that support tasks may run them as one. */
  longRunning?: boolean;
  /** Each progress report (`context.progress`) restarts the call's timeout. */
  progressResetsTimeout?: boolean;
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
  readonly inputExamples?: readonly ToolInputExample[];
  readonly longRunning?: true;
  readonly progressResetsTimeout?: true;
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
    // z.string().regex(...) becomes a `pattern`, which must run in linear time like any other.
    const problems = findSchemaProblems(schema);
    if (problems.length > 0) {
      throw new ToolpackError(
        'E_SCHEMA',
        `Tool ${toolName}: the ${role} zod schema cannot be checked: ${problems.join('; ')}.`,
        {
          hint: 'docs/json-schema-patterns.md: write the regex without back-references or lookaround.',
        },
      );
    }
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
  const inputExamples = checkExamples(spec.examples, inputSchema, spec.name);
  for (const flag of ['longRunning', 'progressResetsTimeout'] as const) {
    if (spec[flag] !== undefined && typeof spec[flag] !== 'boolean') {
      throw new ToolpackError('E_SCHEMA', `Tool ${spec.name}: ${flag} must be true or false.`, {
        hint: `Pass ${flag}: true to opt in, or leave it out.`,
      });
    }
  }
  const parser = isZodSchema(spec.input) ? spec.input : undefined;
  const outputParser = isZodSchema(spec.output) ? spec.output : undefined;
  const run = spec.run;
  const runParsed = async (args: unknown, context: ToolRunContext): Promise<R> => {
    const value = await run(args as InferArgs<I>, context);
    return outputParser === undefined ? value : (conformOutput(value, outputParser) as R);
  };

  const tool: DefinedTool<R> = {
    [TOOL_BRAND]: true,
    name: spec.name,
    description: spec.description,
    inputSchema,
    ...(spec.title === undefined ? {} : { title: spec.title }),
    ...(outputSchema === undefined ? {} : { outputSchema }),
    ...(spec.annotations === undefined ? {} : { annotations: { ...spec.annotations } }),
    ...(spec.timeoutMs === undefined ? {} : { timeoutMs: spec.timeoutMs }),
    ...(inputExamples.length === 0 ? {} : { inputExamples }),
    ...(spec.longRunning === true ? { longRunning: true as const } : {}),
    ...(spec.progressResetsTimeout === true ? { progressResetsTimeout: true as const } : {}),
    async run(args, context) {
      if (parser === undefined) return runParsed(args, context);
      const parsed = parser.safeParse(args);
      if (!parsed.success) {
        const detail = parsed.error.issues
          .map((issue) => `/${issue.path.map(String).join('/')} ${issue.message}`)
          .join('; ');
        throw new ToolpackError('E_ARGUMENTS', `Invalid arguments for ${spec.name}: ${detail}.`);
      }
      return runParsed(parsed.data, context);
    },
  };
  return Object.freeze(tool);
}

/**
 * A zod output schema describes the value after parsing: unknown keys stripped, transforms
 * applied (its JSON Schema says `additionalProperties: false`). Returning the parsed value keeps
 * zod's meaning, so an extra key is dropped rather than failing the output check. A value that
 * does not parse goes on unchanged: the runner's output check names what is wrong with it.
 */
function conformOutput(value: unknown, outputParser: z.ZodType): unknown {
  if (!isPlainObject(value)) return value;
  if (Array.isArray(value.content)) {
    if (!isPlainObject(value.structuredContent)) return value;
    const parsed = outputParser.safeParse(value.structuredContent);
    return parsed.success ? { ...value, structuredContent: parsed.data } : value;
  }
  const parsed = outputParser.safeParse(value);
  return parsed.success ? parsed.data : value;
}

/**
 * The examples as plain copies, each checked against the input schema (the JSON Schema a
 * client sees, so an example is exactly a call the server accepts). A bad one is the author's
 * mistake in code, found when the module loads: thrown, naming the tool and the example.
 */
function checkExamples(
  examples: readonly ToolExample<SchemaInput>[] | undefined,
  inputSchema: ObjectJsonSchema,
  toolName: string,
): ToolInputExample[] {
  if (examples === undefined) return [];
  if (!Array.isArray(examples)) {
    throw new ToolpackError('E_SCHEMA', `Tool ${toolName}: examples must be an array.`, {
      hint: 'Pass examples: [{ arguments: { ... }, description: "..." }].',
    });
  }
  return examples.map((example: unknown, index) => {
    const entry = example as Partial<ToolInputExample> | null;
    const args = entry?.arguments;
    if (typeof args !== 'object' || args === null || Array.isArray(args)) {
      throw new ToolpackError(
        'E_SCHEMA',
        `Tool ${toolName}: examples[${index}] needs arguments, an object of argument values.`,
        { hint: 'Write each example as { arguments: { name: value }, description: "..." }.' },
      );
    }
    if (entry?.description !== undefined && typeof entry.description !== 'string') {
      throw new ToolpackError(
        'E_SCHEMA',
        `Tool ${toolName}: examples[${index}].description must be a string.`,
      );
    }
    const validation = validateArguments(inputSchema, args);
    if (!validation.valid) {
      throw new ToolpackError(
        'E_SCHEMA',
        `Tool ${toolName}: examples[${index}] does not fit the input schema: ${validation.message}.`,
        { hint: 'Make the example a call the tool accepts, or fix the input schema.' },
      );
    }
    const copy: ToolInputExample = {
      arguments: JSON.parse(JSON.stringify(args)) as Record<string, unknown>,
    };
    if (entry?.description !== undefined) copy.description = entry.description;
    return copy;
  });
}

/** True for a value made by `defineTool`, from any copy of @toolpack/core. */
export function isDefinedTool(value: unknown): value is DefinedTool {
  return (
    typeof value === 'object' &&
    value !== null &&
    (value as Record<symbol, unknown>)[TOOL_BRAND] === true
  );
}

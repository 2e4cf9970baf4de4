import { ToolpackError } from './errors.ts';
import { findPatternProblem } from './linear-pattern.ts';
import type { JsonSchema, ObjectJsonSchema, ToolParameterSet } from './tool-model.ts';

export const PARAMETER_TYPES = [
  'string',
  'integer',
  'number',
  'boolean',
  'array',
  'object',
] as const;
export type ParameterType = (typeof PARAMETER_TYPES)[number];

/** The type-level part of a parameter: also what an array's `items` is made of. */
export interface ValueSpec {
  /** Absent: any JSON value (PowerShell's `[object]` and untyped parameters take anything). */
  type?: ParameterType;
  enum?: readonly (string | number | boolean)[];
  /**
   * A string `enum` whose values match in any case (PowerShell's `ValidateSet` and enum types):
   * `enum` lists the canonical spellings, a call may send any case and the tool receives the
   * listed spelling. Served as the annotation `x-enumIgnoreCase: true` beside `enum`.
   */
  enumIgnoresCase?: boolean;
  /** JSON Schema `format`, e.g. `date-time` for PowerShell's `[datetime]`. */
  format?: string;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  exclusiveMaximum?: number;
  /** An ECMAScript regular expression, as JSON Schema requires. */
  pattern?: string;
  minLength?: number;
  maxLength?: number;
  minItems?: number;
  maxItems?: number;
  uniqueItems?: boolean;
  items?: ValueSpec;
  /** Object parameters: whether keys beyond `properties` are allowed (default true: a free-form bag). */
  properties?: Record<string, ValueSpec & { description?: string }>;
  requiredProperties?: readonly string[];
}

/** One parameter of a tool, as every source adapter describes it. */
export interface ParameterSpec extends ValueSpec {
  name: string;
  description?: string;
  required?: boolean;
  /**
   * The default the source itself declares. Left out when it declares none: a schema
   * never carries an invented default.
   */
  default?: unknown;
  examples?: readonly unknown[];
}

export interface BuildInputSchemaOptions {
  /** `additionalProperties` of the object; false unless the source says otherwise. */
  additionalProperties?: boolean;
}

const NAME_RULE = /^[A-Za-z_][A-Za-z0-9_.-]{0,127}$/;

/**
 * Every problem with a parameter list, in words, empty when it is usable: duplicate names
 * (PowerShell binds names case-insensitively, so `Path` and `path` collide), impossible
 * ranges, enum values or defaults of the wrong type, patterns that are not valid regexes.
 */
export function findParameterProblems(parameters: readonly ParameterSpec[]): string[] {
  const problems: string[] = [];
  const seen = new Map<string, string>();
  for (const parameter of parameters) {
    const label = `parameter ${JSON.stringify(parameter.name)}`;
    if (!NAME_RULE.test(parameter.name)) {
      problems.push(
        `${label}: a name must start with a letter or '_' and use letters, digits, '_', '.' or '-'`,
      );
    }
    const key = parameter.name.toLowerCase();
    const earlier = seen.get(key);
    if (earlier !== undefined) {
      problems.push(`${label}: declared twice (also as ${JSON.stringify(earlier)})`);
    }
    seen.set(key, parameter.name);
    problems.push(...findValueProblems(parameter, label));
    if (parameter.default !== undefined) {
      const mismatch = describeMismatch(parameter, parameter.default);
      if (mismatch !== undefined) problems.push(`${label}: the default ${mismatch}`);
    }
    for (const example of parameter.examples ?? []) {
      const mismatch = describeMismatch(parameter, example);
      if (mismatch !== undefined) problems.push(`${label}: the example ${mismatch}`);
    }
  }
  return problems;
}

function findValueProblems(spec: ValueSpec, label: string): string[] {
  const problems: string[] = [];
  if (spec.type !== undefined && !(PARAMETER_TYPES as readonly string[]).includes(spec.type)) {
    problems.push(
      `${label}: unsupported type ${JSON.stringify(spec.type)} (use ${PARAMETER_TYPES.join(', ')})`,
    );
    return problems;
  }
  const pairs: [keyof ValueSpec, keyof ValueSpec][] = [
    ['minimum', 'maximum'],
    ['minLength', 'maxLength'],
    ['minItems', 'maxItems'],
  ];
  for (const [low, high] of pairs) {
    const a = spec[low];
    const b = spec[high];
    if (typeof a === 'number' && typeof b === 'number' && a > b) {
      problems.push(`${label}: ${low} ${a} is greater than ${high} ${b}`);
    }
  }
  for (const key of ['minLength', 'maxLength', 'minItems', 'maxItems'] as const) {
    const value = spec[key];
    if (value !== undefined && (!Number.isInteger(value) || value < 0)) {
      problems.push(`${label}: ${key} must be a whole number >= 0, not ${value}`);
    }
  }
  if (spec.pattern !== undefined) {
    const before = problems.length;
    try {
      new RegExp(spec.pattern, 'u');
    } catch (error) {
      problems.push(
        `${label}: the pattern ${JSON.stringify(spec.pattern)} is not a valid regular expression (${(error as Error).message})`,
      );
    }
    const linear = problems.length === before ? findPatternProblem(spec.pattern) : undefined;
    if (linear !== undefined) problems.push(`${label}: ${linear}`);
  }
  if (spec.enum !== undefined) {
    if (spec.enum.length === 0) problems.push(`${label}: the list of allowed values is empty`);
    for (const value of spec.enum) {
      if (!matchesType(spec.type, value)) {
        problems.push(
          `${label}: the allowed value ${JSON.stringify(value)} is not of type ${String(spec.type)}`,
        );
      }
    }
  }
  if (spec.items !== undefined) {
    if (spec.type !== 'array')
      problems.push(`${label}: only an array parameter can describe its items`);
    problems.push(...findValueProblems(spec.items, `${label} items`));
  }
  for (const [name, property] of Object.entries(spec.properties ?? {})) {
    problems.push(...findValueProblems(property, `${label} property ${JSON.stringify(name)}`));
  }
  return problems;
}

function matchesType(type: ParameterType | undefined, value: unknown): boolean {
  switch (type) {
    case undefined:
      return true;
    case 'string':
      return typeof value === 'string';
    case 'integer':
      return typeof value === 'number' && Number.isInteger(value);
    case 'number':
      return typeof value === 'number' && Number.isFinite(value);
    case 'boolean':
      return typeof value === 'boolean';
    case 'array':
      return Array.isArray(value);
    case 'object':
      return typeof value === 'object' && value !== null && !Array.isArray(value);
  }
}

/** Why `value` does not fit `spec`, or undefined when it does (type, enum and bounds). */
function describeMismatch(spec: ValueSpec, value: unknown): string | undefined {
  if (!matchesType(spec.type, value))
    return `${JSON.stringify(value)} is not of type ${String(spec.type)}`;
  if (spec.enum !== undefined && findEnumValue(spec, value) === undefined) {
    return `${JSON.stringify(value)} is not one of ${spec.enum.map((v) => JSON.stringify(v)).join(', ')}`;
  }
  if (typeof value === 'number') {
    if (spec.minimum !== undefined && value < spec.minimum)
      return `${value} is below the minimum ${spec.minimum}`;
    if (spec.maximum !== undefined && value > spec.maximum)
      return `${value} is above the maximum ${spec.maximum}`;
  }
  if (Array.isArray(value) && spec.items !== undefined) {
    for (const item of value) {
      const mismatch = describeMismatch(spec.items, item);
      if (mismatch !== undefined) return `has an item that does not fit: ${mismatch}`;
    }
  }
  return undefined;
}

/** Whether two strings are equal ignoring case, one UTF-16 unit at a time as .NET's OrdinalIgnoreCase. */
function equalsIgnoringCase(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i += 1) {
    const x = a[i] as string;
    const y = b[i] as string;
    if (x === y) continue;
    const upperX = x.toUpperCase();
    const upperY = y.toUpperCase();
    // A character whose upper case is longer (`ß` -> `SS`) has no simple case pair.
    if (upperX.length !== 1 || upperX !== upperY) return false;
  }
  return true;
}

/**
 * The listed value `value` stands for: itself when listed, else (for an `enum` that ignores
 * case) the listed spelling of a string that differs only in case; undefined when none.
 */
export function findEnumValue(
  spec: Pick<ValueSpec, 'enum' | 'enumIgnoresCase'>,
  value: unknown,
): string | number | boolean | undefined {
  if (spec.enum === undefined) return undefined;
  if (spec.enum.includes(value as string | number | boolean))
    return value as string | number | boolean;
  if (spec.enumIgnoresCase !== true || typeof value !== 'string') return undefined;
  return spec.enum.find(
    (listed) => typeof listed === 'string' && equalsIgnoringCase(listed, value),
  );
}

/** The JSON Schema annotation that marks an `enum` matched in any case. */
export const ENUM_IGNORE_CASE_KEYWORD = 'x-enumIgnoreCase';

function buildValueSchema(spec: ValueSpec): JsonSchema {
  const schema: JsonSchema = {};
  if (spec.type !== undefined) schema.type = spec.type;
  if (spec.format !== undefined) schema.format = spec.format;
  if (spec.enum !== undefined) schema.enum = [...spec.enum];
  if (spec.enum !== undefined && spec.enumIgnoresCase === true)
    schema[ENUM_IGNORE_CASE_KEYWORD] = true;
  for (const key of [
    'minimum',
    'maximum',
    'exclusiveMinimum',
    'exclusiveMaximum',
    'pattern',
    'minLength',
    'maxLength',
    'minItems',
    'maxItems',
    'uniqueItems',
  ] as const) {
    if (spec[key] !== undefined) schema[key] = spec[key];
  }
  if (spec.items !== undefined) schema.items = buildValueSchema(spec.items);
  if (spec.properties !== undefined) {
    const properties: Record<string, JsonSchema> = {};
    for (const [name, property] of Object.entries(spec.properties)) {
      const propertySchema: JsonSchema = property.type === undefined ? {} : { type: property.type };
      if (property.description !== undefined) propertySchema.description = property.description;
      properties[name] = Object.assign(propertySchema, buildValueSchema(property));
    }
    schema.properties = properties;
    if (spec.requiredProperties !== undefined && spec.requiredProperties.length > 0) {
      schema.required = [...spec.requiredProperties];
    }
  }
  return schema;
}

/**
 * Turns a parameter list into an MCP `inputSchema` (JSON Schema 2020-12, `type: "object"`,
 * `additionalProperties: false` unless told otherwise). Throws `E_PARAMETERS` listing every
 * problem `findParameterProblems` finds.
 */
export function buildInputSchema(
  parameters: readonly ParameterSpec[],
  options: BuildInputSchemaOptions = {},
): ObjectJsonSchema {
  const problems = findParameterProblems(parameters);
  if (problems.length > 0) {
    throw new ToolpackError(
      'E_PARAMETERS',
      `The parameters cannot be turned into a schema: ${problems.join('; ')}.`,
      {
        hint: 'Fix each parameter named above in the tool source.',
      },
    );
  }
  const properties: Record<string, JsonSchema> = {};
  const required: string[] = [];
  for (const parameter of parameters) {
    // `type` then `description` first: the order a person reading `mcp list --json` expects.
    const schema: JsonSchema = parameter.type === undefined ? {} : { type: parameter.type };
    if (parameter.description !== undefined && parameter.description !== '') {
      schema.description = parameter.description;
    }
    Object.assign(schema, buildValueSchema(parameter));
    if (parameter.default !== undefined) schema.default = parameter.default;
    if (parameter.examples !== undefined && parameter.examples.length > 0) {
      schema.examples = [...parameter.examples];
    }
    properties[parameter.name] = schema;
    if (parameter.required) required.push(parameter.name);
  }
  const inputSchema: ObjectJsonSchema = { type: 'object', properties };
  if (required.length > 0) inputSchema.required = required;
  inputSchema.additionalProperties = options.additionalProperties ?? false;
  return inputSchema;
}

/** "The arguments name only these parameters": true of `{}` too. */
function onlyNames(names: readonly string[]): JsonSchema {
  return names.length === 0 ? { maxProperties: 0 } : { propertyNames: { enum: [...names] } };
}

/**
 * Gives an input schema one `oneOf` branch per parameter set (ToolParameterSet: a PowerShell
 * command's), the default first, so a call validates exactly when PowerShell binds it to one
 * set (discovery's parameter-sets tests check it against the engine; runners' bindParameterSet
 * decides the same). A branch requires its set's mandatory parameters
 * and allows only its set's parameters. PowerShell takes the default set whenever every named
 * argument belongs to it (and then insists on its mandatory parameters), so every other branch
 * also refuses calls whose names all fit the default set: a call that fits the default and
 * another set matches one branch, not two. `required` at the top keeps the parameters every set
 * requires, for clients that ignore `oneOf`.
 */
export function addParameterSetBranches(
  schema: ObjectJsonSchema,
  sets: readonly ToolParameterSet[],
): ObjectJsonSchema {
  const defaultSet = sets.find((set) => set.isDefault);
  const branches = sets.map((set) => {
    const branch: JsonSchema = {
      title: set.name,
      description: `Parameter set ${set.name}${set.isDefault ? ' (the default)' : ''}: ${set.parameters.length === 0 ? 'no parameters' : set.parameters.join(', ')}.`,
    };
    if (set.required.length > 0) branch.required = [...set.required];
    Object.assign(branch, onlyNames(set.parameters));
    if (defaultSet !== undefined && !set.isDefault) branch.not = onlyNames(defaultSet.parameters);
    return branch;
  });
  const required = (schema.required ?? []).filter((name) =>
    sets.every((set) => set.required.includes(name)),
  );
  const result: ObjectJsonSchema = { ...schema, oneOf: branches };
  if (required.length > 0) result.required = required;
  else delete result.required;
  return result;
}

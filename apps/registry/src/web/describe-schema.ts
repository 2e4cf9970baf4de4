/** One row of a tool's parameter table. */
export interface ParameterRow {
  name: string;
  type: string;
  required: boolean;
  description: string;
  /** Readable constraints: `one of: a, b`, `1 to 50`, `default: 5`, `pattern: ^x`. */
  constraints: string[];
}

export interface SchemaDescription {
  parameters: ParameterRow[];
  /** False when the schema allows parameters it does not list. */
  closed: boolean;
}

type Schema = Record<string, unknown>;

/**
 * Turns a tool's input schema, or its output schema (JSON Schema, an untrusted document from
 * a pack), into rows a person can read. Anything unexpected renders as less detail, never as
 * an error.
 */
export function describeInputSchema(inputSchema: unknown): SchemaDescription {
  const schema = asSchema(inputSchema);
  const properties = asSchema(schema.properties);
  const required = Array.isArray(schema.required)
    ? schema.required.filter((r) => typeof r === 'string')
    : [];
  const parameters = Object.entries(properties).map(([name, value]): ParameterRow => {
    const property = asSchema(value);
    return {
      name,
      type: describeType(property),
      required: required.includes(name),
      description: typeof property.description === 'string' ? property.description : '',
      constraints: describeConstraints(property),
    };
  });
  return { parameters, closed: schema.additionalProperties === false };
}

function asSchema(value: unknown): Schema {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Schema)
    : {};
}

export function describeType(schema: Schema, depth = 0): string {
  if (depth > 3) return 'any';
  const type = schema.type;
  const variants = (
    Array.isArray(schema.anyOf)
      ? schema.anyOf
      : Array.isArray(schema.oneOf)
        ? schema.oneOf
        : undefined
  ) as unknown[] | undefined;
  if (type === undefined && variants !== undefined)
    return [...new Set(variants.map((v) => describeType(asSchema(v), depth + 1)))].join(' or ');
  const names = (Array.isArray(type) ? type : [type]).filter(
    (t): t is string => typeof t === 'string',
  );
  if (names.length === 0) return schema.enum !== undefined ? 'enum' : 'any';
  return names
    .map((name) => {
      if (name === 'array') {
        const items = asSchema(schema.items);
        return Object.keys(items).length === 0
          ? 'array'
          : `array of ${describeType(items, depth + 1)}`;
      }
      if (name === 'string' && typeof schema.format === 'string')
        return `string (${schema.format})`;
      return name;
    })
    .join(' or ');
}

function describeConstraints(schema: Schema): string[] {
  const out: string[] = [];
  const show = (value: unknown) => (typeof value === 'string' ? value : JSON.stringify(value));
  if (Array.isArray(schema.enum)) out.push(`one of: ${schema.enum.map(show).join(', ')}`);
  if (schema.const !== undefined) out.push(`always ${show(schema.const)}`);
  const items = asSchema(schema.items);
  if (Array.isArray(items.enum)) out.push(`items one of: ${items.enum.map(show).join(', ')}`);
  out.push(...describeRange(schema.minimum, schema.maximum, ''));
  if (typeof schema.exclusiveMinimum === 'number') out.push(`more than ${schema.exclusiveMinimum}`);
  if (typeof schema.exclusiveMaximum === 'number') out.push(`less than ${schema.exclusiveMaximum}`);
  out.push(...describeRange(schema.minLength, schema.maxLength, ' characters'));
  out.push(...describeRange(schema.minItems, schema.maxItems, ' items'));
  if (typeof schema.pattern === 'string') out.push(`pattern: ${schema.pattern}`);
  if (schema.default !== undefined) out.push(`default: ${show(schema.default)}`);
  if (Array.isArray(schema.examples) && schema.examples.length > 0)
    out.push(`example: ${schema.examples.slice(0, 3).map(show).join(', ')}`);
  return out;
}

function describeRange(min: unknown, max: unknown, unit: string): string[] {
  const hasMin = typeof min === 'number';
  const hasMax = typeof max === 'number';
  if (hasMin && hasMax) return [min === max ? `exactly ${min}${unit}` : `${min} to ${max}${unit}`];
  if (hasMin) return [`at least ${min}${unit}`];
  if (hasMax) return [`at most ${max}${unit}`];
  return [];
}

/** One worked call of a tool, as the gallery shows it. */
export interface ExampleRow {
  description: string;
  /** The arguments as indented JSON. */
  arguments: string;
}

/**
 * A tool's input examples from its version document (untrusted: older registries have none,
 * a hostile one anything): entries that are not `{ arguments: {...} }` are left out.
 */
export function describeInputExamples(inputExamples: unknown): ExampleRow[] {
  if (!Array.isArray(inputExamples)) return [];
  return inputExamples.flatMap((entry: unknown): ExampleRow[] => {
    const example = asSchema(entry);
    const args = example.arguments;
    if (typeof args !== 'object' || args === null || Array.isArray(args)) return [];
    const description = typeof example.description === 'string' ? example.description : '';
    return [{ description, arguments: JSON.stringify(args, null, 2) }];
  });
}

import type { DiscoveredTool, JsonSchema, ObjectJsonSchema, SchemaDialect } from '@toolpack/core';
import { PROVIDER_RULES } from './provider-rules.ts';

/**
 * The input schema and description tools/list shows of a tool under a dialect. `exact` is the
 * tool's own schema. `portable` and `openai-strict` drop the root combinators (a PowerShell
 * command's parameter sets then go into the description) and rewrite the rest into what the
 * providers' rules in provider-rules.ts accept, saying in descriptions what a dropped keyword
 * meant. Calls are validated and bound against the exact schema in every dialect.
 */
export function listInputSchema(
  tool: DiscoveredTool,
  dialect: SchemaDialect,
): { inputSchema: ObjectJsonSchema; description: string } {
  if (dialect === 'exact') return { inputSchema: tool.inputSchema, description: tool.description };
  const root = inlineLocalReferences(tool.inputSchema, tool.inputSchema, 0);
  for (const keyword of ROOT_COMBINATORS) delete root[keyword];
  notePropertySets(root, tool.parameterSets);
  const inputSchema = (
    dialect === 'portable' ? toPortable(root) : toOpenAiStrict(root)
  ) as ObjectJsonSchema;
  // A root that only had combinators (no properties of its own) still lists as an object.
  inputSchema.type = 'object';
  if (dialect === 'portable') inputSchema.properties ??= {};
  return { inputSchema, description: describeParameterSets(tool) };
}

const ROOT_COMBINATORS = ['oneOf', 'anyOf', 'allOf', 'not'] as const;

/** How deep references are followed: a recursive one stops being inlined there. */
const MAX_REFERENCE_DEPTH = 8;

/**
 * The schema with each local `$ref` (`#/$defs/address`) replaced by what it points at, since
 * Gemini and this file's rewrites take no references: a model still sees the referenced
 * shape. A reference that cannot be followed, or recursion past MAX_REFERENCE_DEPTH, becomes
 * a schema of any value with the reference in its description.
 */
function inlineLocalReferences(node: JsonSchema, root: JsonSchema, depth: number): JsonSchema {
  const out: JsonSchema = {};
  for (const [keyword, value] of Object.entries(node)) {
    if (keyword === '$ref' && typeof value === 'string') {
      const target = depth < MAX_REFERENCE_DEPTH ? resolvePointer(root, value) : undefined;
      if (target === undefined) out.description = `See ${value}.`;
      else Object.assign(out, inlineLocalReferences(target, root, depth + 1));
    } else if (keyword === '$defs' || keyword === 'definitions') {
      continue;
    } else if (Array.isArray(value)) {
      out[keyword] = value.map((item) =>
        isSchema(item) ? inlineLocalReferences(item, root, depth) : item,
      );
    } else if (isSchema(value) && keyword !== 'default' && keyword !== 'const') {
      out[keyword] = inlineLocalReferences(value, root, depth);
    } else {
      out[keyword] = value;
    }
  }
  return out;
}

/** What a local JSON pointer (`#/$defs/address`) points at in `root`, if anything. */
function resolvePointer(root: JsonSchema, pointer: string): JsonSchema | undefined {
  if (!pointer.startsWith('#/')) return undefined;
  let node: unknown = root;
  for (const raw of pointer.slice(2).split('/')) {
    const part = decodeURIComponent(raw).replace(/~1/g, '/').replace(/~0/g, '~');
    if (!isSchema(node)) return undefined;
    node = node[part];
  }
  return isSchema(node) ? node : undefined;
}

/** The tool's description, with its parameter sets spelled out when it has several. */
function describeParameterSets(tool: DiscoveredTool): string {
  const sets = tool.parameterSets;
  if (sets === undefined || sets.length < 2) return tool.description;
  const described = sets.map((set) => {
    const parameters = set.parameters.map((name) =>
      set.required.includes(name) ? `${name} (required)` : name,
    );
    const label = set.isDefault ? `${set.name} (default)` : set.name;
    return `${label}: ${parameters.length === 0 ? 'no parameters' : parameters.join(', ')}`;
  });
  return `${tool.description}\n\nParameter sets (send the parameters of one set only): ${described.join('; ')}.`;
}

/**
 * Each parameter that is not in every set says in its own description which sets take it, and
 * each that only some sets require says where: a model reads a parameter's description where
 * it fills the parameter in, the tool's description may be far above.
 */
function notePropertySets(root: JsonSchema, sets: DiscoveredTool['parameterSets']): void {
  if (sets === undefined || sets.length < 2 || !isSchema(root.properties)) return;
  const properties = { ...root.properties } as Record<string, JsonSchema>;
  for (const [name, schema] of Object.entries(properties)) {
    if (!isSchema(schema)) continue;
    const taking = sets.filter((set) => set.parameters.includes(name));
    const requiring = taking.filter((set) => set.required.includes(name));
    const names = (some: typeof sets) =>
      `${some.length === 1 ? 'set' : 'sets'} ${some.map((set) => set.name).join(', ')}`;
    const only = taking.length > 0 && taking.length < sets.length;
    const some = requiring.length > 0 && requiring.length < sets.length;
    const notes: string[] = [];
    if (only && requiring.length === taking.length)
      notes.push(`Only in ${names(taking)}, required there.`);
    else if (only && requiring.length > 0)
      notes.push(`Only in ${names(taking)}; required in ${names(requiring)}.`);
    else if (only) notes.push(`Only in ${names(taking)}.`);
    else if (some) notes.push(`Required in ${names(requiring)}.`);
    properties[name] = withNotes(schema, notes);
  }
  root.properties = properties;
}

const isSchema = (value: unknown): value is JsonSchema =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const quoteAll = (values: readonly unknown[]) => values.map((v) => JSON.stringify(v)).join(', ');

/** The sentence a dropped keyword leaves in the description, or undefined to say nothing. */
function describeDropped(keyword: string, value: unknown): string | undefined {
  switch (keyword) {
    case 'examples':
      return Array.isArray(value) && value.length > 0
        ? `Example${value.length === 1 ? '' : 's'}: ${quoteAll(value)}.`
        : undefined;
    case 'format':
      return `Format: ${String(value)}.`;
    case 'exclusiveMinimum':
      return `Greater than ${String(value)}.`;
    case 'exclusiveMaximum':
      return `Less than ${String(value)}.`;
    case 'multipleOf':
      return `A multiple of ${String(value)}.`;
    case 'minLength':
      return `At least ${String(value)} character${value === 1 ? '' : 's'}.`;
    case 'maxLength':
      return `At most ${String(value)} character${value === 1 ? '' : 's'}.`;
    case 'uniqueItems':
      return value === true ? 'No duplicate items.' : undefined;
    case 'default':
      return `Default: ${JSON.stringify(value)}.`;
    default:
      return undefined;
  }
}

function withNotes(schema: JsonSchema, notes: readonly string[]): JsonSchema {
  if (notes.length === 0) return schema;
  const own = typeof schema.description === 'string' ? schema.description.trim() : '';
  return { ...schema, description: [own, ...notes].filter((part) => part !== '').join(' ') };
}

/** Keywords every provider's rules accept: Gemini's Schema fields that are JSON Schema too. */
const PORTABLE_KEYWORDS = without(PROVIDER_RULES.gemini.keywords, [
  'nullable',
  'example',
  'propertyOrdering',
  'format',
]);

/** Gemini's Developer API takes `date-time` as a string format (and `enum`, no JSON Schema one). */
const PORTABLE_FORMATS = without(PROVIDER_RULES.gemini.formats, ['enum']);

function toPortable(schema: JsonSchema): JsonSchema {
  const out: JsonSchema = {};
  const notes: string[] = [];
  for (const [keyword, value] of Object.entries(schema)) {
    if (keyword === 'properties' && isSchema(value)) {
      out.properties = Object.fromEntries(
        Object.entries(value).map(([name, sub]) => [name, isSchema(sub) ? toPortable(sub) : sub]),
      );
    } else if (keyword === 'items' && isSchema(value)) {
      out.items = toPortable(value);
    } else if ((keyword === 'anyOf' || keyword === 'oneOf') && Array.isArray(value)) {
      // Below the root, exactly-one and at-least-one differ only for overlapping branches,
      // which the server still tells apart when it validates the call.
      out.anyOf = value.map((branch) => (isSchema(branch) ? toPortable(branch) : branch));
    } else if (keyword === 'type' && Array.isArray(value)) {
      const types = value.filter((type) => type !== 'null');
      if (value.includes('null')) notes.push('May be null.');
      if (types.length === 1) out.type = types[0];
      else if (types.length > 1) out.anyOf = types.map((type) => ({ type }));
    } else if (keyword === 'const') {
      if (typeof value === 'string') out.enum = [value];
      else notes.push(`Always ${JSON.stringify(value)}.`);
    } else if (keyword === 'enum' && Array.isArray(value)) {
      // Gemini's enum is a list of strings.
      if (value.every((item) => typeof item === 'string')) out.enum = value;
      else notes.push(`One of ${quoteAll(value)}.`);
    } else if (keyword === 'format') {
      if (PORTABLE_FORMATS.has(String(value))) out.format = value;
      else notes.push(describeDropped(keyword, value) ?? '');
    } else if (PORTABLE_KEYWORDS.has(keyword)) {
      out[keyword] = value;
    } else {
      const note = describeDropped(keyword, value);
      if (note !== undefined) notes.push(note);
    }
  }
  return withNotes(
    out,
    notes.filter((note) => note !== ''),
  );
}

/** The keywords OpenAI's strict mode supports besides the structure this file writes. */
const STRICT_KEYWORDS = without(PROVIDER_RULES['openai-strict'].keywords, [
  'properties',
  'required',
  'additionalProperties',
  'items',
  'anyOf',
  '$defs',
  '$ref',
  'format',
]);

const STRICT_FORMATS = PROVIDER_RULES['openai-strict'].formats ?? new Set<string>();

function without(set: ReadonlySet<string> | undefined, left: readonly string[]): Set<string> {
  return new Set([...(set ?? [])].filter((item) => !left.includes(item)));
}

/**
 * Whether a schema is an object whose keys it does not name (a PowerShell hashtable, a map):
 * strict mode has no form for one, so below the root it is listed as JSON text.
 */
export function isFreeFormObject(schema: JsonSchema): boolean {
  const types = Array.isArray(schema.type) ? schema.type : [schema.type];
  const named = isSchema(schema.properties) && Object.keys(schema.properties).length > 0;
  return types.includes('object') && !named && schema.additionalProperties !== false;
}

/**
 * OpenAI strict: every object closed and every property required, an optional one then also
 * taking null, a free-form object below the root as JSON text (both of which the server reads
 * back, read-strict-arguments.ts).
 */
function toOpenAiStrict(schema: JsonSchema, nested = false): JsonSchema {
  if (nested && isFreeFormObject(schema)) {
    const own = typeof schema.description === 'string' ? { description: schema.description } : {};
    return withNotes({ type: 'string', ...own }, [
      'A JSON object, as text (strict mode cannot list its keys).',
    ]);
  }
  const out: JsonSchema = {};
  const notes: string[] = [];
  let properties: Record<string, JsonSchema> | undefined;
  for (const [keyword, value] of Object.entries(schema)) {
    if (keyword === 'properties' && isSchema(value)) {
      properties = value as Record<string, JsonSchema>;
    } else if (keyword === 'items' && isSchema(value)) {
      out.items = toOpenAiStrict(value, true);
    } else if ((keyword === 'anyOf' || keyword === 'oneOf') && Array.isArray(value)) {
      out.anyOf = value.map((branch) => (isSchema(branch) ? toOpenAiStrict(branch, true) : branch));
    } else if (keyword === 'format') {
      if (STRICT_FORMATS.has(String(value))) out.format = value;
      else notes.push(describeDropped(keyword, value) ?? '');
    } else if (STRICT_KEYWORDS.has(keyword)) {
      out[keyword] = value;
    } else if (keyword !== 'required' && keyword !== 'additionalProperties') {
      const note = describeDropped(keyword, value);
      if (note !== undefined) notes.push(note);
    }
  }
  const isObject =
    out.type === 'object' || (Array.isArray(out.type) && out.type.includes('object'));
  if (isObject || properties !== undefined) {
    const required = new Set(Array.isArray(schema.required) ? (schema.required as string[]) : []);
    const entries = Object.entries(properties ?? {});
    out.properties = Object.fromEntries(
      entries.map(([name, sub]) => {
        const strict = toOpenAiStrict(sub, true);
        return [name, required.has(name) ? strict : allowNull(strict)];
      }),
    );
    out.required = entries.map(([name]) => name);
    out.additionalProperties = false;
    if (isFreeFormObject(schema))
      notes.push('Strict mode cannot list free-form keys: send an empty object.');
  }
  return withNotes(
    out,
    notes.filter((note) => note !== ''),
  );
}

/** The schema, also taking null: how strict mode lets a required property be left out. */
function allowNull(schema: JsonSchema): JsonSchema {
  const note = 'Null when not given.';
  if (Array.isArray(schema.anyOf))
    return withNotes({ ...schema, anyOf: [...schema.anyOf, { type: 'null' }] }, [note]);
  // Without a type of its own (a const, or any value) it becomes one branch of two.
  if (schema.type === undefined || schema.const !== undefined)
    return withNotes({ anyOf: [schema, { type: 'null' }] }, [note]);
  const out: JsonSchema = { ...schema };
  if (typeof out.type === 'string') out.type = [out.type, 'null'];
  else if (Array.isArray(out.type) && !out.type.includes('null')) out.type = [...out.type, 'null'];
  if (Array.isArray(out.enum) && !out.enum.includes(null)) out.enum = [...out.enum, null];
  return withNotes(out, [note]);
}

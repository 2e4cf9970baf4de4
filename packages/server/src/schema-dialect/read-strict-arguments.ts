import { isPlainObject, type JsonSchema } from '@toolpack/core';
import { isFreeFormObject } from './list-input-schema.ts';

const isSchema = (value: unknown): value is JsonSchema =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const typesOf = (schema: JsonSchema): unknown[] =>
  Array.isArray(schema.type) ? schema.type : [schema.type];

/** Whether the exact schema of a value takes null itself (then null is a value, not "not given"). */
function takesNull(schema: JsonSchema): boolean {
  if (typesOf(schema).includes('null')) return true;
  if (Array.isArray(schema.enum) && schema.enum.includes(null)) return true;
  if (schema.const === null) return true;
  for (const keyword of ['anyOf', 'oneOf']) {
    const branches = schema[keyword];
    if (Array.isArray(branches) && branches.some((branch) => isSchema(branch) && takesNull(branch)))
      return true;
  }
  // A property without a type (any value) takes null as it is.
  return schema.type === undefined && schema.enum === undefined && schema.const === undefined;
}

/** A value read back from the strict listing into what its exact schema means by it. */
function readStrictValue(schema: JsonSchema, value: unknown): unknown {
  // Listed as JSON text (strict mode has no free-form object); a string the schema takes
  // itself, or text that is no JSON object, is left for validation to judge.
  if (
    typeof value === 'string' &&
    isFreeFormObject(schema) &&
    !typesOf(schema).includes('string')
  ) {
    try {
      const parsed: unknown = JSON.parse(value);
      return isPlainObject(parsed) ? parsed : value;
    } catch {
      return value;
    }
  }
  if (Array.isArray(value) && isSchema(schema.items))
    return value.map((item) => readStrictValue(schema.items as JsonSchema, item));
  if (!isPlainObject(value) || !isSchema(schema.properties)) return value;
  const properties = schema.properties;
  const out: Record<string, unknown> = {};
  for (const [name, item] of Object.entries(value)) {
    const property = properties[name];
    if (!isSchema(property)) out[name] = item;
    else if (item !== null || takesNull(property)) out[name] = readStrictValue(property, item);
  }
  return out;
}

/**
 * The arguments of a call made from an `openai-strict` listing, as the tool's exact schema
 * means them. Strict mode lists every property as required and an optional one as also taking
 * null, so a model leaves a parameter out by sending null: such a null is dropped (at any
 * depth) wherever the exact schema takes no null itself. A free-form object below the root is
 * listed as JSON text, which is parsed back. Anything else is passed on untouched for
 * validation to judge.
 */
export function readStrictArguments(schema: JsonSchema, args: unknown): unknown {
  if (!isPlainObject(args) || !isSchema(schema.properties)) return args;
  return readStrictValue(schema, args);
}

import type { JsonSchema } from '@toolpack/core';

const isSchema = (value: unknown): value is JsonSchema =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** Whether the exact schema of a value takes null itself (then null is a value, not "not given"). */
function takesNull(schema: JsonSchema): boolean {
  if (schema.type === 'null') return true;
  if (Array.isArray(schema.type) && schema.type.includes('null')) return true;
  if (Array.isArray(schema.enum) && schema.enum.includes(null)) return true;
  if (schema.const === null) return true;
  for (const keyword of ['anyOf', 'oneOf'])
    if (
      Array.isArray(schema[keyword]) &&
      (schema[keyword] as unknown[]).some((branch) => isSchema(branch) && takesNull(branch))
    )
      return true;
  // A property without a type (any value) takes null as it is.
  return schema.type === undefined && schema.enum === undefined && schema.const === undefined;
}

/**
 * The arguments of a call made from an `openai-strict` listing, as the tool's exact schema
 * means them: strict mode lists every property as required and an optional one as also taking
 * null, so a model leaves a parameter out by sending null. Such a null is dropped (at any depth
 * of nested objects) wherever the exact schema does not take null itself; anything else is
 * passed on untouched for validation to judge.
 */
export function dropNullArguments(schema: JsonSchema, args: unknown): unknown {
  if (!isSchema(args) || !isSchema(schema.properties)) return args;
  const properties = schema.properties;
  const out: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(args)) {
    const property = properties[name];
    if (!isSchema(property)) {
      out[name] = value;
      continue;
    }
    if (value === null && !takesNull(property)) continue;
    out[name] = dropNullArguments(property, value);
  }
  return out;
}

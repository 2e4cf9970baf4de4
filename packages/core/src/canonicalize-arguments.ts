import { isPlainObject } from './is-plain-object.ts';
import { ENUM_IGNORE_CASE_KEYWORD, findEnumValue } from './parameter-model.ts';
import type { JsonSchema } from './tool-model.ts';

/** Per schema object: whether any part of it has an `enum` matched in any case. */
const hasIgnoredCase = new WeakMap<object, boolean>();

function mentionsIgnoredCase(schema: JsonSchema): boolean {
  let known = hasIgnoredCase.get(schema);
  if (known === undefined) {
    known = JSON.stringify(schema).includes(`"${ENUM_IGNORE_CASE_KEYWORD}":true`);
    hasIgnoredCase.set(schema, known);
  }
  return known;
}

function canonicalizeValue(schema: unknown, value: unknown): unknown {
  if (!isPlainObject(schema)) return value;
  if (schema[ENUM_IGNORE_CASE_KEYWORD] === true && Array.isArray(schema.enum)) {
    const listed = findEnumValue(
      { enum: schema.enum as (string | number | boolean)[], enumIgnoresCase: true },
      value,
    );
    return listed === undefined ? value : listed;
  }
  if (Array.isArray(value) && schema.items !== undefined) {
    let changed = false;
    const items = value.map((item) => {
      const canonical = canonicalizeValue(schema.items, item);
      if (canonical !== item) changed = true;
      return canonical;
    });
    return changed ? items : value;
  }
  if (isPlainObject(value) && isPlainObject(schema.properties)) {
    const properties = schema.properties;
    let copy: Record<string, unknown> | undefined;
    for (const [key, item] of Object.entries(value)) {
      if (!Object.hasOwn(properties, key)) continue;
      const canonical = canonicalizeValue(properties[key], item);
      if (canonical === item) continue;
      copy ??= { ...value };
      copy[key] = canonical;
    }
    return copy ?? value;
  }
  return value;
}

/**
 * The arguments as the tool receives them: a string sent for an `enum` that ignores case
 * (`x-enumIgnoreCase`, PowerShell's `ValidateSet` and enum types) becomes the listed spelling,
 * as PowerShell binds `markdown` to `ValidateSet('Markdown')` and the script sees what it
 * declared. Everything else is returned as it came (the same object when nothing changed);
 * validation still decides whether the arguments are acceptable.
 */
export function canonicalizeArguments(schema: JsonSchema, args: unknown): unknown {
  if (!mentionsIgnoredCase(schema)) return args;
  return canonicalizeValue(schema, args);
}

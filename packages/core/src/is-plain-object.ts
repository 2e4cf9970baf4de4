/**
 * True for an object made by `{}`, `JSON.parse` or a YAML parser (or with a null prototype):
 * not null, not an array, not a class instance such as a Date or a Map.
 */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const prototype = Object.getPrototypeOf(value) as unknown;
  return prototype === Object.prototype || prototype === null;
}

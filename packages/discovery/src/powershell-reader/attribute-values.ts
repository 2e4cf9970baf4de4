import type { ParameterType, ValueSpec } from '@toolpack/core';
import { parseNumberLiteral } from './constant-value.ts';
import type { ConstantResult } from './constant-value.ts';
import type { AttributeArgument } from './reader.ts';

/** The text of an attribute argument that is a constant string. */
export function constantString(result: ConstantResult | undefined): string | undefined {
  return result?.constant === true && typeof result.value === 'string' ? result.value : undefined;
}

/**
 * A named attribute argument bound to a string property (`ParameterSetName`, `HelpMessage`), as
 * the engine converts it: a bare `[CmdletBinding(DefaultParameterSetName)]` is `$true`, so
 * the set is named `True`; a number is its digits.
 */
export function attributeString(argument: AttributeArgument | undefined): string | undefined {
  if (argument === undefined || !argument.value.constant) return undefined;
  const value = argument.value.value;
  if (typeof value === 'string') return value;
  if (typeof value === 'boolean') return value ? 'True' : 'False';
  if (typeof value === 'number') return String(value);
  return undefined;
}

/** Whether a named attribute argument is on: `Mandatory`, `Mandatory = $true`, `Mandatory = 1`. */
export function isTruthy(argument: AttributeArgument | undefined): boolean {
  if (argument === undefined) return false;
  if (!argument.value.constant) return !/^\$false$/i.test(argument.text);
  const value = argument.value.value;
  return (
    value === true ||
    (typeof value === 'number' && value !== 0) ||
    (typeof value === 'string' && value !== '')
  );
}

/** An attribute argument as a number, when it is a constant one (a bare `Position` is `$true`: 1). */
export function constantNumber(argument: AttributeArgument | undefined): number | undefined {
  if (argument === undefined || !argument.value.constant) return undefined;
  const value = argument.value.value;
  if (typeof value === 'number') return value;
  if (typeof value === 'boolean' && argument.name !== undefined) return value ? 1 : 0;
  if (typeof value === 'string') return parseNumberLiteral(value.trim());
  return undefined;
}

/** Converts an attribute value (ValidateSet entry, default) to the JSON type of its target. */
export function coerce(
  value: unknown,
  type: ParameterType | undefined,
): { ok: true; value: unknown } | { ok: false } {
  switch (type) {
    // Untyped: PowerShell binds the value as it is.
    case undefined:
      return { ok: true, value };
    case 'string':
      if (typeof value === 'string') return { ok: true, value };
      if (typeof value === 'number') return { ok: true, value: String(value) };
      if (typeof value === 'boolean') return { ok: true, value: value ? 'True' : 'False' };
      return { ok: false };
    case 'integer':
    case 'number': {
      const number = typeof value === 'string' ? parseNumberLiteral(value.trim()) : value;
      if (typeof number !== 'number') return { ok: false };
      if (type === 'integer' && !Number.isInteger(number)) return { ok: false };
      return { ok: true, value: number };
    }
    case 'boolean':
      if (typeof value === 'boolean') return { ok: true, value };
      if (typeof value === 'number') return { ok: true, value: value !== 0 };
      return { ok: false };
    case 'array':
      return { ok: true, value: Array.isArray(value) ? value : [value] };
    case 'object':
      return typeof value === 'object' && value !== null && !Array.isArray(value)
        ? { ok: true, value }
        : { ok: false };
  }
}

/** `coerce`, into the items of an array parameter too. */
export function coerceDeep(
  value: unknown,
  spec: ValueSpec,
): { ok: true; value: unknown } | { ok: false } {
  const coerced = coerce(value, spec.type);
  if (!coerced.ok || spec.type !== 'array' || spec.items === undefined) return coerced;
  const items: unknown[] = [];
  for (const item of coerced.value as unknown[]) {
    const inner = coerceDeep(item, spec.items);
    if (!inner.ok) return inner;
    items.push(inner.value);
  }
  return { ok: true, value: items };
}

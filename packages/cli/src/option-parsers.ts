import { InvalidArgumentError } from 'commander';
import { SCHEMA_DIALECTS, type SchemaDialect } from '@toolpack/core';

/** Commander's parser for a repeatable option: every occurrence, in order. */
export function collect(value: string, previous: string[] = []): string[] {
  return [...previous, value];
}

export function parseCount(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1)
    throw new InvalidArgumentError('expected a whole number >= 1.');
  return n;
}

export function parseTimeout(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) {
    throw new InvalidArgumentError('expected a whole number of milliseconds >= 1.');
  }
  return n;
}

/** `--schema-dialect`: how tools/list writes input schemas. */
export function parseSchemaDialect(value: string): SchemaDialect {
  if (!(SCHEMA_DIALECTS as readonly string[]).includes(value))
    throw new InvalidArgumentError(`expected one of ${SCHEMA_DIALECTS.join(', ')}.`);
  return value as SchemaDialect;
}

/** What `--flat-schemas` (deprecated) says it now is. */
export const FLAT_SCHEMAS_NOTE =
  '--flat-schemas is deprecated: it is --schema-dialect portable, the default (no root oneOf; parameter sets in the description).';

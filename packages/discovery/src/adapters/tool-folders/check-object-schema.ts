import { findSchemaProblems, isPlainObject } from '@toolpack/core';
import type { JsonSchema, ObjectJsonSchema } from '@toolpack/core';
import { type LineOf, type Report, describeValue } from './metadata-report.ts';

interface CheckSchemaOptions {
  value: unknown;
  key: string;
  /**
   * The input schema gets `additionalProperties: false` and `required: []` unless set (as
   * dotbot's tools/list sends them), and its `required` is checked.
   */
  input: boolean;
  report: Report;
  lineOf: LineOf;
}

/**
 * Checks an inputSchema/outputSchema value with core's JSON Schema check and reports each
 * problem at its line; undefined when the schema cannot be served.
 */
export function checkObjectSchema(options: CheckSchemaOptions): ObjectJsonSchema | undefined {
  const { value, key, input, report, lineOf } = options;
  const code = input ? 'E_INPUT_SCHEMA' : 'E_OUTPUT_SCHEMA';
  if (!isPlainObject(value)) {
    report(
      'error',
      code,
      `${key} must be a JSON Schema object, not ${describeValue(value)}.`,
      lineOf(key),
      `Write ${key}: with type: object and properties: below it.`,
    );
    return undefined;
  }
  const schema = structuredClone(value) as JsonSchema;
  let ok = true;
  if (schema.type !== 'object') {
    report(
      'error',
      code,
      schema.type === undefined
        ? `${key} has no type: a tool's ${input ? 'arguments' : 'result'} must be an object.`
        : `${key} has type ${JSON.stringify(schema.type)}, but a tool's ${input ? 'arguments' : 'result'} must be an object.`,
      lineOf(key, 'type'),
      `Add type: object under ${key}.`,
    );
    ok = false;
  }
  // dotbot turns a lone or empty `required` into a list before serving it; do the same.
  if (schema.required === null) {
    delete schema.required;
  } else if (typeof schema.required === 'string') {
    report(
      'warning',
      'W_SCHEMA_REQUIRED',
      `${key}.required should be a list; read as [${schema.required}].`,
      lineOf(key, 'required'),
      `Write required: [${schema.required}].`,
    );
    schema.required = [schema.required];
  }
  // Ajv reports one mistake several ways (`type: integr` fails enum, array and anyOf): keep
  // the first report per place.
  const reported = new Set<string>();
  for (const problem of findSchemaProblems(schema)) {
    const match = /^(\/\S*) (.*)$/.exec(problem);
    const pointer = match?.[1] ?? '';
    if (reported.has(pointer)) continue;
    reported.add(pointer);
    const segments =
      pointer === '/' || pointer === ''
        ? []
        : pointer.split('/').slice(1).map(decodePointerSegment);
    const isType = segments[segments.length - 1] === 'type';
    const isPattern =
      segments[segments.length - 1] === 'pattern' ||
      segments[segments.length - 2] === 'patternProperties';
    const detail =
      match === null
        ? problem
        : isType
          ? `${pointer} is not a JSON Schema type`
          : `${pointer} ${match[2] ?? ''}`;
    report(
      'error',
      code,
      `${key} is not valid JSON Schema: ${detail}.`,
      lineOf(key, ...segments),
      isType
        ? 'Use one of string, integer, number, boolean, array, object or null.'
        : isPattern
          ? 'Patterns run in linear time (RE2): write it without back-references or lookaround (docs/json-schema-patterns.md).'
          : 'Check the schema against JSON Schema 2020-12.',
    );
    ok = false;
  }
  if (!ok) return undefined;
  const objectSchema = schema as ObjectJsonSchema;
  if (input) {
    objectSchema.additionalProperties ??= false;
    // dotbot's tools/list always sends a `required` list (empty when none is declared).
    objectSchema.required ??= [];
    const properties = isPlainObject(objectSchema.properties) ? objectSchema.properties : {};
    const undeclared = (objectSchema.required ?? []).filter((name) => !(name in properties));
    if (undeclared.length > 0 && objectSchema.additionalProperties === false) {
      report(
        'error',
        code,
        `${key}.required lists ${undeclared.map((n) => JSON.stringify(n)).join(', ')}, which ${undeclared.length === 1 ? 'is' : 'are'} not under properties: no call could pass.`,
        lineOf(key, 'required'),
        'Declare each required argument under properties, or remove it from required.',
      );
      return undefined;
    }
  }
  return objectSchema;
}

function decodePointerSegment(segment: string): string | number {
  const text = segment.replace(/~1/g, '/').replace(/~0/g, '~');
  return /^\d+$/.test(text) ? Number(text) : text;
}

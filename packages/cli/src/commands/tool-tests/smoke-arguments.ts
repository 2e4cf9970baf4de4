import {
  compileLinearPattern,
  validateArguments,
  type JsonSchema,
  type LinearPattern,
} from '@toolpack/core';
import { samplePattern } from './sample-pattern.ts';

export type SmokeArguments =
  { ok: true; args: Record<string, unknown> } | { ok: false; problem: string };

type Sample = { value: unknown } | { problem: string };

const MAX_DEPTH = 8;

const FORMAT_SAMPLES: Record<string, string> = {
  date: '2026-01-01',
  'date-time': '2026-01-01T00:00:00Z',
  time: '12:00:00Z',
  duration: 'P1D',
  email: 'user@example.com',
  'idn-email': 'user@example.com',
  hostname: 'example.com',
  'idn-hostname': 'example.com',
  ipv4: '127.0.0.1',
  ipv6: '::1',
  uri: 'https://example.com/',
  'uri-reference': 'https://example.com/',
  iri: 'https://example.com/',
  'iri-reference': 'https://example.com/',
  url: 'https://example.com/',
  uuid: '00000000-0000-4000-8000-000000000000',
  regex: '.*',
  'json-pointer': '/a',
  'relative-json-pointer': '0',
  'uri-template': 'https://example.com/{id}',
};

// Strings tried in turn against minLength/maxLength/pattern: short, plain, then common shapes.
const STRING_CANDIDATES = [
  'example',
  'a',
  'abc',
  'A',
  'Example',
  '1',
  '0',
  'a1',
  'example-1',
  'example_1',
  'user@example.com',
  'https://example.com/',
  '2026-01-01',
  '1.0.0',
  'ABC',
  '123',
];

interface SampleOptions {
  /** Use `examples`/`example`/`default` first; off for the second try when those were invalid. */
  useHints: boolean;
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const length = (text: string): number => [...text].length;

/**
 * Arguments for a smoke test, made from the input schema alone: every required property
 * gets its example, default, first enum value or const, or else the smallest value of its
 * type that keeps to minimum/maximum, minLength/maxLength, a pattern and minItems. The
 * result is checked against the schema; a schema it cannot satisfy is a `problem` (never an
 * exception), worded so the author knows which parameter needs an example.
 */
export function generateSmokeArguments(schema: JsonSchema): SmokeArguments {
  let lastProblem = 'no valid arguments could be made';
  for (const useHints of [true, false]) {
    let sample: Sample;
    try {
      sample = sampleValue(schema, { useHints }, 0, '');
    } catch (error) {
      return { ok: false, problem: `the schema could not be read: ${(error as Error).message}` };
    }
    if ('problem' in sample) {
      lastProblem = sample.problem;
      continue;
    }
    if (!isObject(sample.value)) {
      return { ok: false, problem: 'the input schema does not describe an object' };
    }
    let check: ReturnType<typeof validateArguments>;
    try {
      check = validateArguments(schema, sample.value);
    } catch (error) {
      return { ok: false, problem: `the input schema is not valid: ${(error as Error).message}` };
    }
    if (check.valid) return { ok: true, args: sample.value };
    lastProblem = `the made-up arguments ${JSON.stringify(sample.value)} do not fit the schema (${check.message})`;
  }
  return { ok: false, problem: lastProblem };
}

function sampleValue(schema: unknown, options: SampleOptions, depth: number, at: string): Sample {
  const where = at === '' ? 'the arguments' : `parameter ${at.slice(1)}`;
  if (schema === true || schema === undefined) return { value: 'example' };
  if (schema === false) return { problem: `${where}: the schema is false, which accepts no value` };
  if (!isObject(schema)) return { problem: `${where}: the schema is not an object` };
  if (depth > MAX_DEPTH) return { problem: `${where}: nested more than ${MAX_DEPTH} levels deep` };

  if ('const' in schema) return { value: schema.const };
  if (options.useHints) {
    if (Array.isArray(schema.examples) && schema.examples.length > 0)
      return { value: schema.examples[0] };
    if ('example' in schema) return { value: schema.example };
    if ('default' in schema) return { value: schema.default };
  }
  if (Array.isArray(schema.enum)) {
    return schema.enum.length > 0
      ? { value: schema.enum[0] }
      : { problem: `${where}: the enum is empty` };
  }
  if (typeof schema.$ref === 'string') {
    return {
      problem: `${where}: uses $ref (${schema.$ref}), which the smoke test does not follow`,
    };
  }
  for (const key of ['anyOf', 'oneOf'] as const) {
    const branches = schema[key];
    if (Array.isArray(branches) && branches.length > 0) {
      let first: Sample | undefined;
      for (const branch of branches) {
        const merged = isObject(branch) ? { ...withoutKey(schema, key), ...branch } : branch;
        const sample = sampleValue(merged, options, depth + 1, at);
        if ('value' in sample) return sample;
        first ??= sample;
      }
      return first ?? { problem: `${where}: none of its ${key} branches can be sampled` };
    }
  }
  if (Array.isArray(schema.allOf) && schema.allOf.length > 0) {
    return sampleValue(mergeAllOf(schema), options, depth + 1, at);
  }

  switch (pickType(schema)) {
    case 'string':
      return sampleString(schema, where);
    case 'integer':
      return sampleNumber(schema, true, where);
    case 'number':
      return sampleNumber(schema, false, where);
    case 'boolean':
      return { value: false };
    case 'null':
      return { value: null };
    case 'array':
      return sampleArray(schema, options, depth, at);
    case 'object':
      return sampleObject(schema, options, depth, at);
    default:
      return { value: 'example' };
  }
}

function withoutKey(schema: Record<string, unknown>, key: string): Record<string, unknown> {
  const copy = { ...schema };
  delete copy[key];
  return copy;
}

/** Enough of allOf for sampling: properties merged, required united, other keywords last-wins. */
function mergeAllOf(schema: Record<string, unknown>): Record<string, unknown> {
  const merged: Record<string, unknown> = withoutKey(schema, 'allOf');
  for (const part of schema.allOf as unknown[]) {
    if (!isObject(part)) continue;
    const properties = {
      ...(isObject(merged.properties) ? merged.properties : {}),
      ...(isObject(part.properties) ? part.properties : {}),
    };
    const required = [
      ...(Array.isArray(merged.required) ? merged.required : []),
      ...(Array.isArray(part.required) ? part.required : []),
    ];
    Object.assign(merged, part, { properties, required: [...new Set(required)] });
  }
  return merged;
}

function pickType(schema: Record<string, unknown>): string | undefined {
  const type = schema.type;
  if (typeof type === 'string') return type;
  if (Array.isArray(type)) {
    const named = type.filter((t): t is string => typeof t === 'string');
    return named.find((t) => t !== 'null') ?? named[0];
  }
  if (isObject(schema.properties) || Array.isArray(schema.required)) return 'object';
  if ('items' in schema || 'prefixItems' in schema) return 'array';
  if (typeof schema.minimum === 'number' || typeof schema.maximum === 'number') return 'number';
  if ('pattern' in schema || 'minLength' in schema || 'format' in schema) return 'string';
  return undefined;
}

function sampleString(schema: Record<string, unknown>, where: string): Sample {
  const minLength = typeof schema.minLength === 'number' ? Math.max(0, schema.minLength) : 0;
  const maxLength =
    typeof schema.maxLength === 'number' ? schema.maxLength : Number.POSITIVE_INFINITY;
  // The server's engine (linear time): a pack's pattern must not hang `mcp test` either.
  let pattern: LinearPattern | undefined;
  if (typeof schema.pattern === 'string') {
    try {
      pattern = compileLinearPattern(schema.pattern);
    } catch (error) {
      return { problem: `${where}: ${(error as Error).message}` };
    }
  }
  if (minLength > maxLength) {
    return { problem: `${where}: minLength ${minLength} is above maxLength ${maxLength}` };
  }
  const format = typeof schema.format === 'string' ? FORMAT_SAMPLES[schema.format] : undefined;
  // Long minimums: repeat a short candidate, capped so a silly minLength cannot eat memory.
  const padded = (text: string) =>
    length(text) >= minLength || minLength > 10_000 || text === ''
      ? text
      : text.repeat(Math.ceil(minLength / length(text)));
  const fromPattern =
    typeof schema.pattern === 'string' ? samplePattern(schema.pattern) : undefined;
  const candidates = [
    ...(format === undefined ? [] : [format]),
    ...(fromPattern === undefined ? [] : [fromPattern]),
    ...STRING_CANDIDATES,
    '',
  ];
  for (const candidate of candidates) {
    for (const text of [candidate, padded(candidate)]) {
      const n = length(text);
      if (n < minLength || n > maxLength) continue;
      if (pattern !== undefined && !pattern.test(text)) continue;
      return { value: text };
    }
  }
  return {
    problem:
      pattern === undefined
        ? `${where}: no sample string has ${minLength}-${maxLength} characters`
        : `${where}: no sample string matches /${String(schema.pattern)}/`,
  };
}

function sampleNumber(schema: Record<string, unknown>, integer: boolean, where: string): Sample {
  const num = (value: unknown) =>
    typeof value === 'number' && Number.isFinite(value) ? value : undefined;
  const minimum = num(schema.minimum);
  const maximum = num(schema.maximum);
  const exclusiveMinimum = num(schema.exclusiveMinimum);
  const exclusiveMaximum = num(schema.exclusiveMaximum);
  const multipleOf = num(schema.multipleOf);
  const fits = (value: number) =>
    (!integer || Number.isInteger(value)) &&
    (minimum === undefined || value >= minimum) &&
    (maximum === undefined || value <= maximum) &&
    (exclusiveMinimum === undefined || value > exclusiveMinimum) &&
    (exclusiveMaximum === undefined || value < exclusiveMaximum) &&
    (multipleOf === undefined || multipleOf <= 0 || isMultiple(value, multipleOf));

  const low = Math.max(
    minimum ?? Number.NEGATIVE_INFINITY,
    exclusiveMinimum === undefined ? Number.NEGATIVE_INFINITY : exclusiveMinimum,
  );
  const high = Math.min(
    maximum ?? Number.POSITIVE_INFINITY,
    exclusiveMaximum === undefined ? Number.POSITIVE_INFINITY : exclusiveMaximum,
  );
  const candidates = [0, 1];
  if (Number.isFinite(low)) {
    const step = multipleOf !== undefined && multipleOf > 0 ? multipleOf : integer ? 1 : 0;
    const start = step > 0 ? Math.ceil(low / step) * step : low;
    candidates.push(start, start + (step || 1), Math.ceil(low), Math.ceil(low) + 1);
  }
  if (Number.isFinite(high)) {
    const step = multipleOf !== undefined && multipleOf > 0 ? multipleOf : integer ? 1 : 0;
    const start = step > 0 ? Math.floor(high / step) * step : high;
    candidates.push(start, start - (step || 1), Math.floor(high), Math.floor(high) - 1);
  }
  if (Number.isFinite(low) && Number.isFinite(high)) candidates.push((low + high) / 2);
  for (const candidate of candidates) {
    if (Number.isFinite(candidate) && fits(candidate)) return { value: candidate };
  }
  return { problem: `${where}: no sample ${integer ? 'integer' : 'number'} fits its bounds` };
}

function isMultiple(value: number, of: number): boolean {
  const quotient = value / of;
  return Math.abs(quotient - Math.round(quotient)) < 1e-9;
}

function sampleArray(
  schema: Record<string, unknown>,
  options: SampleOptions,
  depth: number,
  at: string,
): Sample {
  const minItems =
    typeof schema.minItems === 'number' ? Math.max(0, Math.ceil(schema.minItems)) : 0;
  if (minItems > 1_000)
    return {
      problem: `${at === '' ? 'the arguments' : `parameter ${at.slice(1)}`}: needs more than 1000 items`,
    };
  const prefix = Array.isArray(schema.prefixItems) ? schema.prefixItems : [];
  const items: unknown[] = [];
  for (let i = 0; i < minItems; i++) {
    const itemSchema = i < prefix.length ? prefix[i] : schema.items;
    const sample = sampleValue(itemSchema, options, depth + 1, `${at}/${i}`);
    if ('problem' in sample) return sample;
    items.push(schema.uniqueItems === true ? makeDistinct(sample.value, i) : sample.value);
  }
  return { value: items };
}

/** uniqueItems: the i-th copy of a sampled value made different from the others. */
function makeDistinct(value: unknown, index: number): unknown {
  if (index === 0) return value;
  if (typeof value === 'number') return value + index;
  if (typeof value === 'string') return `${value}${index}`;
  return value;
}

function sampleObject(
  schema: Record<string, unknown>,
  options: SampleOptions,
  depth: number,
  at: string,
): Sample {
  const properties = isObject(schema.properties) ? schema.properties : {};
  const required = Array.isArray(schema.required)
    ? schema.required.filter((key): key is string => typeof key === 'string')
    : [];
  const minProperties = typeof schema.minProperties === 'number' ? schema.minProperties : 0;
  const keys = [...new Set(required)];
  for (const key of Object.keys(properties)) {
    if (keys.length >= minProperties) break;
    if (!keys.includes(key)) keys.push(key);
  }
  const value: Record<string, unknown> = {};
  for (const key of keys) {
    const propertySchema =
      key in properties
        ? properties[key]
        : isObject(schema.additionalProperties)
          ? schema.additionalProperties
          : true;
    const sample = sampleValue(propertySchema, options, depth + 1, `${at}/${key}`);
    if ('problem' in sample) return sample;
    value[key] = sample.value;
  }
  return { value };
}

import fc from 'fast-check';
import { validateArguments, type JsonSchema } from '@toolpack/core';
import { describe, expect, it, vi } from 'vitest';
import { generateSmokeArguments } from './smoke-arguments.ts';
import { fuzzRuns, fuzzTimeout, WORST_CASE_INPUT_MS } from '@toolpack/fuzz-runs';

const object = (
  properties: Record<string, JsonSchema>,
  required = Object.keys(properties),
): JsonSchema => ({
  type: 'object',
  properties,
  required,
  additionalProperties: false,
});

describe('generateSmokeArguments', { timeout: fuzzTimeout() }, () => {
  it('prefers examples, then defaults, enums and consts', () => {
    expect(
      generateSmokeArguments(
        object({
          a: { type: 'string', examples: ['from example'] },
          b: { type: 'integer', default: 7 },
          c: { type: 'string', enum: ['x', 'y'] },
          d: { const: 'fixed' },
        }),
      ),
    ).toEqual({ ok: true, args: { a: 'from example', b: 7, c: 'x', d: 'fixed' } });
  });

  it('fills only required properties, with the smallest values that fit', () => {
    expect(
      generateSmokeArguments(
        object(
          {
            count: { type: 'integer', minimum: 3, maximum: 9 },
            ratio: { type: 'number', exclusiveMinimum: 0, maximum: 1 },
            flag: { type: 'boolean' },
            tags: {
              type: 'array',
              items: { type: 'string', minLength: 2 },
              minItems: 2,
              uniqueItems: true,
            },
            nested: object({ id: { type: 'string', format: 'uuid' } }),
            optional: { type: 'string' },
          },
          ['count', 'ratio', 'flag', 'tags', 'nested'],
        ),
      ),
    ).toEqual({
      ok: true,
      args: {
        count: 3,
        ratio: 1,
        flag: false,
        tags: ['example', 'example1'],
        nested: { id: '00000000-0000-4000-8000-000000000000' },
      },
    });
  });

  it('honours simple patterns and lengths, and multipleOf', () => {
    const result = generateSmokeArguments(
      object({
        version: { type: 'string', pattern: '^\\d+\\.\\d+\\.\\d+$' },
        code: { type: 'string', pattern: '^[A-Z]{3}-\\d{2}$' },
        long: { type: 'string', minLength: 12 },
        short: { type: 'string', maxLength: 1 },
        even: { type: 'integer', minimum: 5, multipleOf: 2 },
        day: { type: 'string', format: 'date' },
      }),
    );
    expect(result).toEqual({
      ok: true,
      args: {
        version: '0.0.0',
        code: 'AAA-00',
        long: 'exampleexample',
        short: 'a',
        even: 6,
        day: '2026-01-01',
      },
    });
  });

  it('falls back from an example that does not fit to a made-up value', () => {
    expect(
      generateSmokeArguments(object({ n: { type: 'integer', minimum: 1, examples: ['many'] } })),
    ).toEqual({
      ok: true,
      args: { n: 1 },
    });
  });

  it('says which parameter it could not fill, never throws', () => {
    const refs = generateSmokeArguments(object({ x: { $ref: '#/$defs/x' } }));
    expect(refs).toEqual({ ok: false, problem: expect.stringContaining('parameter x: uses $ref') });
    const impossible = generateSmokeArguments(object({ x: { type: 'string', pattern: '(?=a)b' } }));
    expect(impossible).toEqual({ ok: false, problem: expect.stringContaining('parameter x') });
    const bounds = generateSmokeArguments(
      object({ x: { type: 'integer', minimum: 2, maximum: 1 } }),
    );
    expect(bounds).toEqual({
      ok: false,
      problem: expect.stringContaining('parameter x: no sample integer'),
    });
  });

  it('takes the first branch of anyOf/oneOf that can be sampled, and merges allOf', () => {
    expect(
      generateSmokeArguments(
        object({
          a: {
            anyOf: [
              // No string fits (a pattern with lookaround is refused outright now).
              { type: 'string', pattern: '^a{3}$', maxLength: 2 },
              { type: 'integer', minimum: 4 },
            ],
          },
          b: {
            allOf: [
              { type: 'object', properties: { p: { type: 'string' } }, required: ['p'] },
              { required: ['p'] },
            ],
          },
        }),
      ),
    ).toEqual({ ok: true, args: { a: 4, b: { p: 'example' } } });
  });

  // Any JSON value as a schema: the generator answers with arguments the schema accepts or a
  // problem, never an exception, and quickly.
  it('never throws and only returns arguments the schema accepts (fuzz)', () => {
    const keyword = fc.constantFrom(
      'type',
      'properties',
      'required',
      'items',
      'minItems',
      'minimum',
      'maximum',
      'exclusiveMinimum',
      'multipleOf',
      'minLength',
      'maxLength',
      'pattern',
      'enum',
      'const',
      'anyOf',
      'oneOf',
      'allOf',
      'format',
      'examples',
      'default',
      'uniqueItems',
      'prefixItems',
      'additionalProperties',
      '$ref',
    );
    const { schema } = fc.letrec((tie) => ({
      schema: fc.oneof(
        { depthSize: 'small', withCrossShrink: true },
        fc.boolean(),
        fc.dictionary(keyword, tie('value'), { maxKeys: 5 }),
      ),
      value: fc.oneof(
        { depthSize: 'small' },
        fc.constantFrom(
          'string',
          'integer',
          'number',
          'boolean',
          'array',
          'object',
          'null',
          'date',
          'uuid',
          '^a+$',
          '[',
          '#/x',
        ),
        fc.integer({ min: -5, max: 20 }),
        fc.double({ noNaN: true, min: -10, max: 10 }),
        fc.array(fc.constantFrom('a', 'b', 'string', 'integer'), { maxLength: 3 }),
        fc.dictionary(fc.constantFrom('a', 'b', 'c'), tie('schema'), { maxKeys: 3 }),
        tie('schema'),
      ),
    }));
    // Ajv (in @toolpack/core) warns on the console about unknown formats; random schemas have many.
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    try {
      fc.assert(
        fc.property(schema, (value) => {
          const input = { type: 'object', properties: { a: value, b: value }, required: ['a'] };
          const started = Date.now();
          const result = generateSmokeArguments(input);
          expect(Date.now() - started).toBeLessThan(WORST_CASE_INPUT_MS);
          if (result.ok) {
            let valid = true;
            try {
              valid = validateArguments(input, result.args).valid;
            } catch {
              // A schema Ajv cannot compile is not the generator's to judge.
            }
            expect(valid).toBe(true);
          } else {
            expect(typeof result.problem).toBe('string');
          }
        }),
        { numRuns: fuzzRuns(1_500) },
      );
    } finally {
      warn.mockRestore();
    }
  });
});

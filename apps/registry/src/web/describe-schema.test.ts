import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { describeInputSchema } from './describe-schema.ts';
import { fuzzRuns } from '@toolpack/fuzz-runs';

describe('describeInputSchema', () => {
  it('turns properties into rows with types, required flags and readable constraints', () => {
    const described = describeInputSchema({
      type: 'object',
      properties: {
        when: { type: 'string', format: 'date-time', description: 'When.' },
        ids: { type: 'array', items: { type: 'integer' }, minItems: 1, maxItems: 5 },
        kinds: { type: 'array', items: { enum: ['a', 'b'] } },
        mode: { type: ['string', 'null'], enum: ['fast', 'slow'], default: 'fast' },
        size: { anyOf: [{ type: 'integer' }, { type: 'string' }], exclusiveMinimum: 0 },
        name: {
          type: 'string',
          minLength: 3,
          maxLength: 3,
          pattern: '^[a-z]+$',
          examples: ['abc'],
        },
        anything: {},
      },
      required: ['when', 'ids'],
      additionalProperties: false,
    });
    expect(described.closed).toBe(true);
    expect(described.parameters.map((p) => [p.name, p.type, p.required, p.constraints])).toEqual([
      ['when', 'string (date-time)', true, []],
      ['ids', 'array of integer', true, ['1 to 5 items']],
      ['kinds', 'array of enum', false, ['items one of: a, b']],
      ['mode', 'string or null', false, ['one of: fast, slow', 'default: fast']],
      ['size', 'integer or string', false, ['more than 0']],
      ['name', 'string', false, ['exactly 3 characters', 'pattern: ^[a-z]+$', 'example: abc']],
      ['anything', 'any', false, []],
    ]);
  });

  it('renders less detail, never an exception, for any JSON (fuzz)', () => {
    fc.assert(
      fc.property(
        fc.jsonValue(),
        fc.dictionary(fc.string(), fc.jsonValue()),
        (schema, properties) => {
          describeInputSchema(schema);
          describeInputSchema({ type: 'object', properties, required: Object.keys(properties) });
        },
      ),
      { numRuns: fuzzRuns(2000) },
    );
  });
});

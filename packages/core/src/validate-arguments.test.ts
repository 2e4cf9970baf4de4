import { describe, expect, it } from 'vitest';
import { ToolpackError } from './errors.ts';
import { buildInputSchema } from './parameter-model.ts';
import {
  createArgumentValidator,
  findSchemaProblems,
  validateArguments,
} from './validate-arguments.ts';

const schema = buildInputSchema([
  { name: 'count', type: 'integer', description: 'How many', minimum: 1, maximum: 100 },
  { name: 'mode', type: 'string', description: 'Mode', enum: ['fast', 'safe'] },
  { name: 'path', type: 'string', description: 'Where', required: true },
  { name: 'when', type: 'string', format: 'date-time', description: 'When' },
  { name: 'tags', type: 'array', items: { type: 'string' }, description: 'Tags', maxItems: 2 },
]);

describe('createArgumentValidator', () => {
  const validate = createArgumentValidator(schema);

  it('accepts valid arguments', () => {
    expect(
      validate({ path: '/a', count: 5, mode: 'fast', when: '2026-11-21T10:00:00Z', tags: ['x'] }),
    ).toEqual({ valid: true });
  });

  it('names the path and the rule of every failure', () => {
    const result = validate({
      count: 101,
      mode: 'slow',
      extra: 1,
      when: 'yesterday',
      tags: ['a', 'b', 3],
    });
    expect(result.valid).toBe(false);
    if (result.valid) return;
    expect(result.errors).toEqual(
      expect.arrayContaining([
        { path: '/path', rule: 'required', message: '/path is required' },
        {
          path: '/extra',
          rule: 'additionalProperties',
          message: '/extra is not an accepted argument',
        },
        { path: '/count', rule: 'maximum', message: '/count must be <= 100' },
        { path: '/mode', rule: 'enum', message: '/mode must be one of "fast", "safe"' },
        { path: '/when', rule: 'format', message: '/when must match format "date-time"' },
        { path: '/tags', rule: 'maxItems', message: '/tags must NOT have more than 2 items' },
        { path: '/tags/2', rule: 'type', message: '/tags/2 must be string' },
      ]),
    );
    expect(result.message).toContain('/count must be <= 100');
  });

  it('reports a non-object argument list at the root', () => {
    const result = validate([1, 2]);
    expect(result).toMatchObject({
      valid: false,
      errors: [{ path: '/', rule: 'type', message: '/ must be object' }],
    });
  });

  it('escapes JSON Pointer segments', () => {
    const result = validateArguments(
      { type: 'object', properties: {}, additionalProperties: false },
      { 'a/b~c': 1 },
    );
    expect(result).toMatchObject({ valid: false, errors: [{ path: '/a~1b~0c' }] });
  });

  it('compiles each schema object once', () => {
    expect(createArgumentValidator(schema)({ path: 'x' })).toEqual({ valid: true });
  });

  it('throws E_SCHEMA for a schema that is not JSON Schema', () => {
    expect(() =>
      createArgumentValidator({ type: 'object', properties: { a: { type: 'strnig' } } }),
    ).toThrow(ToolpackError);
  });
});

describe('findSchemaProblems', () => {
  it('accepts valid schemas and explains invalid ones', () => {
    expect(findSchemaProblems(schema)).toEqual([]);
    expect(findSchemaProblems([])).toEqual(['a schema must be a JSON object']);
    expect(findSchemaProblems({ type: 'object', required: 'x' })).toEqual([
      '/required must be array',
    ]);
  });
});

describe('findSchemaProblems with references', () => {
  it('reports a reference that cannot be resolved', () => {
    expect(
      findSchemaProblems({ type: 'object', properties: { a: { $ref: '#/$defs/missing' } } })[0],
    ).toMatch(/can't resolve reference #\/\$defs\/missing/);
    expect(
      findSchemaProblems({
        type: 'object',
        $defs: { n: { type: 'integer' } },
        properties: { a: { $ref: '#/$defs/n' } },
      }),
    ).toEqual([]);
  });
});

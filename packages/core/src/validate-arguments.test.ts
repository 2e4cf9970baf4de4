import { describe, expect, it } from 'vitest';
import { ToolpackError } from './errors.ts';
import { buildInputSchema } from './parameter-model.ts';
import {
  createArgumentValidator,
  findSchemaProblems,
  MAX_REPORTED_ARGUMENT_ERRORS,
  MAX_UNBOUNDED_PATTERN_TEXT,
  validateArguments,
} from './validate-arguments.ts';
import { compileLinearPattern } from './linear-pattern.ts';

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

describe('bounded problem reports', () => {
  const validate = createArgumentValidator(schema);
  const manyUnknown = (count: number, keyLength = 8): Record<string, unknown> => {
    const args: Record<string, unknown> = { path: '/tmp' };
    for (let i = 0; i < count; i++) args[`k${String(i).padStart(keyLength, '0')}`] = 1;
    return args;
  };

  it('reports the first 20 of 100,000 unknown keys and counts the rest', () => {
    const result = validate(manyUnknown(100_000));
    expect(result.valid).toBe(false);
    if (result.valid) return;
    expect(result.errors).toHaveLength(MAX_REPORTED_ARGUMENT_ERRORS);
    expect(result.moreErrors).toBe(100_000 - MAX_REPORTED_ARGUMENT_ERRORS);
    expect(result.message).toMatch(/; and 99980 more problems$/);
    expect(result.message.length).toBeLessThan(2_000);
  });

  it('clips a huge key name in what it echoes', () => {
    const result = validate({ path: '/tmp', ['x'.repeat(100_000)]: 1 });
    expect(result.valid).toBe(false);
    if (!result.valid) expect(result.message.length).toBeLessThan(300);
  });

  it('caps the problems Ajv finds too (not only unknown keys)', () => {
    const list = createArgumentValidator({
      type: 'object',
      properties: { items: { type: 'array', items: { type: 'integer' } } },
    });
    const result = list({ items: Array.from({ length: 500 }, () => 'x') });
    expect(result.valid).toBe(false);
    if (result.valid) return;
    expect(result.errors).toHaveLength(MAX_REPORTED_ARGUMENT_ERRORS);
    expect(result.moreErrors).toBe(480);
  });

  it('still lists every problem when there are few', () => {
    const result = validate(manyUnknown(3));
    expect(result).toMatchObject({ valid: false, moreErrors: 0 });
    if (!result.valid) expect(result.errors).toHaveLength(3);
  });
});

describe('unknown argument names', () => {
  const closed = {
    type: 'object',
    properties: {
      title: { type: 'string' },
      max_length: { type: 'integer' },
      options: {
        type: 'object',
        properties: { keep_case: { type: 'boolean' } },
        additionalProperties: false,
      },
    },
    additionalProperties: false,
  } as const;

  it('suggests the declared name a near miss meant (maxlength -> max_length), at any depth', () => {
    const result = validateArguments(closed, {
      title: 'a',
      maxlength: 3,
      options: { keepcase: true },
      zzz: 1,
    });
    expect(result.valid).toBe(false);
    if (result.valid) return;
    expect(result.errors.map((e) => e.message)).toEqual([
      '/maxlength is not an accepted argument (did you mean max_length?)',
      '/zzz is not an accepted argument',
      '/options/keepcase is not an accepted argument (did you mean keep_case?)',
    ]);
  });

  it('suggests names also when there are too many unknown keys to hand to Ajv', () => {
    const args: Record<string, unknown> = { Title: 'x' };
    for (let i = 0; i < MAX_REPORTED_ARGUMENT_ERRORS + 5; i += 1) args[`junk_${i}`] = i;
    const result = validateArguments(closed, args);
    expect(result.valid).toBe(false);
    if (result.valid) return;
    expect(result.errors[0]?.message).toBe(
      '/Title is not an accepted argument (did you mean title?)',
    );
    expect(result.moreErrors).toBe(6);
  });
});

describe('patterns run in linear time', () => {
  it('refuses 34 `a`s and a `b` against ^(a|a)*$ at once, in an argument and in a patternProperties key', () => {
    const schema = {
      type: 'object',
      properties: { name: { type: 'string', pattern: '^(a|a)*$' } },
      patternProperties: { '^(b|b)*$': { type: 'string' } },
    } as const;
    const validate = createArgumentValidator(schema);
    const attack = `${'a'.repeat(34)}b`;
    // With V8's engine either check would hold the thread for about a minute.
    expect(validate({ name: attack })).toMatchObject({
      valid: false,
      errors: [{ path: '/name', rule: 'pattern' }],
    });
    expect(validate({ name: 'aaa', [`${'b'.repeat(34)}c`]: 'x' })).toEqual({ valid: true });
    expect(validate({ name: 'aaa', bbb: 1 })).toMatchObject({ valid: false });
  });

  it('does not read a string too long for its maxLength against its pattern too', () => {
    const validate = createArgumentValidator({
      type: 'object',
      properties: {
        short: { type: 'string', maxLength: 3, pattern: '^[a-z]+$' },
        free: { type: 'string', pattern: '^[a-z]+$' },
      },
    });
    // Refused for its length alone (a pattern problem would only repeat it, at a price).
    expect(validate({ short: '1'.repeat(7) })).toMatchObject({
      valid: false,
      errors: [{ path: '/short', rule: 'maxLength' }],
    });
    expect(validate({ short: '12', free: '1' })).toMatchObject({
      valid: false,
      errors: [
        { path: '/short', rule: 'pattern', message: '/short must match pattern "^[a-z]+$"' },
        { path: '/free', rule: 'pattern' },
      ],
    });
    // Four letters are over a maxLength of 3 but not twice it: both problems are told.
    expect(validate({ short: '1234' })).toMatchObject({
      errors: [{ rule: 'maxLength' }, { rule: 'pattern' }],
    });
    expect(validate({ short: 'abc', free: 'x' })).toEqual({ valid: true });
  });

  it('reads at most MAX_UNBOUNDED_PATTERN_TEXT a check against patterns without a maxLength', () => {
    const validate = createArgumentValidator({
      type: 'object',
      properties: {
        free: { type: 'string', pattern: '^[a-z]+$' },
        list: { type: 'array', items: { type: 'string', pattern: '^[a-z]+$' } },
        bounded: { type: 'string', maxLength: 4 * 1024 * 1024, pattern: '^[a-z]+$' },
      },
    });
    const huge = 'a'.repeat(16 * 1024 * 1024 - 1);
    // What reading it costs without the budget: the engine's pass over 16 MiB.
    const readStarted = performance.now();
    expect(compileLinearPattern('^[a-z]+$').test(huge)).toBe(true);
    const readMs = performance.now() - readStarted;
    const checkStarted = performance.now();
    const refused = validate({ free: huge });
    const checkMs = performance.now() - checkStarted;
    expect(refused).toEqual({
      valid: false,
      errors: [
        {
          path: '/free',
          rule: 'pattern',
          message: `/free is too long to check against pattern "^[a-z]+$" (${MAX_UNBOUNDED_PATTERN_TEXT} characters at most in one call where the schema sets no maxLength; send shorter text, or give the parameter a maxLength)`,
        },
      ],
      moreErrors: 0,
      message: expect.stringContaining('is too long to check') as string,
    });
    expect(checkMs).toBeLessThan(readMs / 10);
    // The budget is for all strings of one check together, and each check has its own.
    const most = 'a'.repeat(MAX_UNBOUNDED_PATTERN_TEXT / 2);
    expect(validate({ free: most, list: [most] })).toEqual({ valid: true });
    expect(validate({ free: most, list: [most, 'b'] })).toMatchObject({
      valid: false,
      errors: [{ path: '/list/1', message: expect.stringContaining('too long to check') }],
    });
    // A mismatch within the budget is told as before; a maxLength is the author's own bound.
    expect(validate({ free: 'A' })).toMatchObject({
      errors: [{ message: '/free must match pattern "^[a-z]+$"' }],
    });
    expect(validate({ bounded: 'a'.repeat(MAX_UNBOUNDED_PATTERN_TEXT * 2), free: 'x' })).toEqual({
      valid: true,
    });
  });

  it('refuses to compile a schema whose pattern the engine cannot run, and findSchemaProblems says where', () => {
    const schema = {
      type: 'object',
      properties: {
        pattern: { type: 'string', pattern: '^(?!admin)' },
        list: { type: 'array', items: { type: 'string', pattern: '(a)\\1' } },
        safe: { const: { pattern: '(a)\\1' } },
      },
      patternProperties: { '(?<=x)y': {} },
    };
    expect(() => createArgumentValidator(schema)).toThrow(/E_SCHEMA|linear-time engine/);
    expect(findSchemaProblems(schema).sort()).toEqual([
      '/patternProperties/(?<=x)y the pattern "(?<=x)y" uses a lookbehind ((?<=…), which the linear-time engine (RE2) cannot run',
      '/properties/list/items/pattern the pattern "(a)\\\\1" uses a back-reference (\\1), which the linear-time engine (RE2) cannot run',
      '/properties/pattern/pattern the pattern "^(?!admin)" uses a lookahead ((?!…), which the linear-time engine (RE2) cannot run',
    ]);
  });
});

import { Ajv2020 } from 'ajv/dist/2020.js';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ToolpackError } from './errors.ts';
import {
  addParameterSetBranches,
  buildInputSchema,
  findParameterProblems,
  type ParameterSpec,
} from './parameter-model.ts';
import { fuzzRuns, fuzzTimeout } from '@toolpack/fuzz-runs';

const metaValidator = new Ajv2020({ strict: false });
function expectValid2020(schema: object): void {
  const valid = metaValidator.validateSchema(schema);
  expect(metaValidator.errors ?? []).toEqual([]);
  expect(valid).toBe(true);
}

describe('buildInputSchema', { timeout: fuzzTimeout() }, () => {
  it('emits an object schema with every keyword the parameter model has', () => {
    const parameters: ParameterSpec[] = [
      {
        name: 'path',
        type: 'string',
        description: 'File to read',
        required: true,
        pattern: '^[^\\0]+$',
        minLength: 1,
        maxLength: 260,
        examples: ['/tmp/a.txt'],
      },
      {
        name: 'count',
        type: 'integer',
        description: 'How many',
        minimum: 1,
        maximum: 100,
        default: 10,
      },
      {
        name: 'ratio',
        type: 'number',
        description: 'Share',
        exclusiveMinimum: 0,
        exclusiveMaximum: 1,
      },
      {
        name: 'mode',
        type: 'string',
        description: 'Mode',
        enum: ['fast', 'safe'],
        default: 'safe',
      },
      { name: 'force', type: 'boolean', description: 'Overwrite' },
      {
        name: 'tags',
        type: 'array',
        description: 'Tags',
        items: { type: 'string', enum: ['a', 'b'] },
        minItems: 1,
        maxItems: 5,
        uniqueItems: true,
      },
      { name: 'options', type: 'object', description: 'Free-form options' },
      { name: 'when', type: 'string', format: 'date-time', description: 'When' },
      {
        name: 'target',
        type: 'object',
        description: 'Where',
        properties: {
          host: { type: 'string', description: 'Host name' },
          port: { type: 'integer', minimum: 1 },
        },
        requiredProperties: ['host'],
      },
    ];
    const schema = buildInputSchema(parameters);
    expect(schema).toEqual({
      type: 'object',
      properties: {
        path: {
          type: 'string',
          description: 'File to read',
          pattern: '^[^\\0]+$',
          minLength: 1,
          maxLength: 260,
          examples: ['/tmp/a.txt'],
        },
        count: { type: 'integer', description: 'How many', minimum: 1, maximum: 100, default: 10 },
        ratio: { type: 'number', description: 'Share', exclusiveMinimum: 0, exclusiveMaximum: 1 },
        mode: { type: 'string', description: 'Mode', enum: ['fast', 'safe'], default: 'safe' },
        force: { type: 'boolean', description: 'Overwrite' },
        tags: {
          type: 'array',
          description: 'Tags',
          items: { type: 'string', enum: ['a', 'b'] },
          minItems: 1,
          maxItems: 5,
          uniqueItems: true,
        },
        options: { type: 'object', description: 'Free-form options' },
        when: { type: 'string', format: 'date-time', description: 'When' },
        target: {
          type: 'object',
          description: 'Where',
          properties: {
            host: { type: 'string', description: 'Host name' },
            port: { type: 'integer', minimum: 1 },
          },
          required: ['host'],
        },
      },
      required: ['path'],
      additionalProperties: false,
    });
    expectValid2020(schema);
  });

  it('invents no defaults and no required list when nothing is required', () => {
    const schema = buildInputSchema([
      { name: 'verbose', type: 'boolean', description: 'Talk more' },
    ]);
    expect(schema).toEqual({
      type: 'object',
      properties: { verbose: { type: 'boolean', description: 'Talk more' } },
      additionalProperties: false,
    });
    expect(JSON.stringify(schema)).not.toContain('default');
  });

  it('keeps falsy declared defaults (0, false, empty string)', () => {
    const schema = buildInputSchema([
      { name: 'n', type: 'integer', default: 0 },
      { name: 'b', type: 'boolean', default: false },
      { name: 's', type: 'string', default: '' },
    ]);
    expect(schema.properties?.n?.default).toBe(0);
    expect(schema.properties?.b?.default).toBe(false);
    expect(schema.properties?.s?.default).toBe('');
  });

  it('describes an empty parameter list as an empty object', () => {
    const schema = buildInputSchema([]);
    expect(schema).toEqual({ type: 'object', properties: {}, additionalProperties: false });
    expectValid2020(schema);
  });

  it('allows extra properties only when the source says so', () => {
    expect(buildInputSchema([], { additionalProperties: true }).additionalProperties).toBe(true);
  });

  it('refuses unusable parameter lists with every problem at once', () => {
    const bad: ParameterSpec[] = [
      { name: 'Path', type: 'string' },
      { name: 'path', type: 'string' },
      { name: 'n', type: 'integer', minimum: 10, maximum: 1, default: 1.5 },
      { name: 'mode', type: 'string', enum: ['a', 2] },
      { name: 're', type: 'string', pattern: '(' },
      { name: 'len', type: 'string', minLength: -1 },
      { name: '1bad', type: 'string' },
      { name: 'kind', type: 'date' as never },
      { name: 'pick', type: 'string', enum: ['a'], default: 'b' },
      { name: 'list', type: 'string', items: { type: 'string' } },
      { name: 'none', type: 'string', enum: [] },
    ];
    const problems = findParameterProblems(bad);
    expect(problems).toEqual([
      'parameter "path": declared twice (also as "Path")',
      'parameter "n": minimum 10 is greater than maximum 1',
      'parameter "n": the default 1.5 is not of type integer',
      'parameter "mode": the allowed value 2 is not of type string',
      expect.stringMatching(/^parameter "re": the pattern "\(" is not a valid regular expression/),
      'parameter "len": minLength must be a whole number >= 0, not -1',
      expect.stringMatching(/^parameter "1bad": a name must start with a letter/),
      'parameter "kind": unsupported type "date" (use string, integer, number, boolean, array, object)',
      'parameter "pick": the default "b" is not one of "a"',
      'parameter "list": only an array parameter can describe its items',
      'parameter "none": the list of allowed values is empty',
    ]);
    expect(() => buildInputSchema(bad)).toThrow(ToolpackError);
    try {
      buildInputSchema(bad);
    } catch (error) {
      expect((error as ToolpackError).code).toBe('E_PARAMETERS');
      expect((error as ToolpackError).message).toContain('declared twice');
      expect((error as ToolpackError).message).toContain('not one of "a"');
    }
  });

  it('checks array defaults item by item', () => {
    expect(
      findParameterProblems([
        { name: 'ids', type: 'array', items: { type: 'integer' }, default: [1, 'x'] },
      ]),
    ).toEqual([
      'parameter "ids": the default has an item that does not fit: "x" is not of type integer',
    ]);
  });

  it('emits valid JSON Schema 2020-12 for any list findParameterProblems accepts', () => {
    const type = fc.constantFrom(
      'string',
      'integer',
      'number',
      'boolean',
      'array',
      'object',
    ) as fc.Arbitrary<ParameterSpec['type']>;
    const spec = fc.record(
      {
        name: fc.stringMatching(/^[A-Za-z_][A-Za-z0-9_]{0,12}$/),
        type,
        description: fc.string({ maxLength: 20 }),
        required: fc.boolean(),
        minimum: fc.integer({ min: -5, max: 5 }),
        maxLength: fc.nat(10),
        pattern: fc.constantFrom('^a', '[0-9]+', '\\d{2}'),
        items: fc.record({ type }),
        enum: fc.array(fc.string({ maxLength: 3 }), { minLength: 1, maxLength: 3 }),
        default: fc.oneof(fc.string(), fc.integer(), fc.boolean()),
      },
      { requiredKeys: ['name', 'type'] },
    );
    fc.assert(
      fc.property(fc.array(spec, { maxLength: 6 }), (parameters) => {
        if (findParameterProblems(parameters).length > 0) {
          expect(() => buildInputSchema(parameters)).toThrow(ToolpackError);
          return;
        }
        const schema = buildInputSchema(parameters);
        expect(schema.type).toBe('object');
        expectValid2020(schema);
        for (const parameter of parameters) {
          const property = schema.properties?.[parameter.name];
          expect('default' in (property ?? {})).toBe(parameter.default !== undefined);
        }
      }),
      { numRuns: fuzzRuns(1500) },
    );
  });
});

describe('addParameterSetBranches', () => {
  const schema = buildInputSchema([
    { name: 'Name', type: 'string', description: 'A name.', required: true },
    { name: 'Id', type: 'integer', description: 'An id.', required: true },
    { name: 'Top', type: 'integer', description: 'How many.' },
  ]);
  const sets = [
    { name: 'ByName', isDefault: true, parameters: ['Name', 'Top'], required: ['Name'] },
    { name: 'ById', isDefault: false, parameters: ['Id', 'Top'], required: ['Id'] },
  ];

  it('keeps every property, requires at the top only what every set requires, and adds a branch per set', () => {
    const withSets = addParameterSetBranches(schema, sets);
    expect(Object.keys(withSets.properties ?? {})).toEqual(['Name', 'Id', 'Top']);
    expect(withSets.required).toBeUndefined();
    expect(withSets.oneOf).toEqual([
      {
        title: 'ByName',
        description: 'Parameter set ByName (the default): Name, Top.',
        required: ['Name'],
        propertyNames: { enum: ['Name', 'Top'] },
      },
      {
        title: 'ById',
        description: 'Parameter set ById: Id, Top.',
        required: ['Id'],
        propertyNames: { enum: ['Id', 'Top'] },
        not: { propertyNames: { enum: ['Name', 'Top'] } },
      },
    ]);
    // The schema given is not changed.
    expect(schema.required).toEqual(['Name', 'Id']);
  });

  it('validates as PowerShell binds: the default set takes what fits it, a call fits one set', () => {
    const validate = new Ajv2020({ strict: false }).compile(addParameterSetBranches(schema, sets));
    expect(validate({ Name: 'a', Top: 1 })).toBe(true);
    expect(validate({ Id: 1 })).toBe(true);
    // Fits the default set's names, which then needs Name; ById alone would take it.
    expect(validate({ Top: 1 })).toBe(false);
    expect(validate({ Name: 'a', Id: 1 })).toBe(false);
  });

  it('describes an empty default set as one taking no arguments', () => {
    const empty = addParameterSetBranches(schema, [
      { name: 'None', isDefault: true, parameters: [], required: [] },
      { name: 'ById', isDefault: false, parameters: ['Id'], required: [] },
    ]);
    expect(
      (empty.oneOf as Array<Record<string, unknown>>).map((b) => [b.maxProperties, b.not]),
    ).toEqual([
      [0, undefined],
      [undefined, { maxProperties: 0 }],
    ]);
  });
});

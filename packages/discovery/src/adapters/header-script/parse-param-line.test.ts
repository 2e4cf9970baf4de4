import { describe, expect, it } from 'vitest';
import type { ParamLineResult } from './declaration-types.ts';
import { parseParamLine } from './parse-param-line.ts';

function parsed(body: string, dialect: 'header' | 'basic' = 'header') {
  const result = parseParamLine(body, { dialect });
  if (!result.ok) throw new Error(`expected ok, got ${JSON.stringify(result.problems)}`);
  return result.value;
}

function problems(result: ParamLineResult) {
  return result.ok ? [] : result.problems;
}

describe('parseParamLine', () => {
  it('reads clauses in any order, keywords in any case', () => {
    expect(parsed(' n as INTEGER description "N" optional like 3').spec).toEqual({
      name: 'n',
      type: 'integer',
      examples: [3],
      required: false,
      description: 'N',
    });
  });

  it('defaults the type to string, as BotServer does', () => {
    expect(parsed(' city DESCRIPTION "City"').spec).toMatchObject({
      type: 'string',
      required: true,
    });
  });

  it('says when a DESCRIPTION clause is missing so the next line can supply it', () => {
    expect(parsed(' city AS string').hasDescription).toBe(false);
    expect(parsed(' city AS string DESCRIPTION "x"').hasDescription).toBe(true);
  });

  it.each([
    ['integer', '5', 5],
    ['integer', '"5"', 5],
    ['integer', '-12', -12],
    ['number', '2.5', 2.5],
    ['number', '"1e3"', 1000],
    ['boolean', 'TRUE', true],
    ['boolean', '"false"', false],
    ['string', '12312312', '12312312'],
    ['string', '"a b"', 'a b'],
    ['array', '[1, "x"]', [1, 'x']],
    ['array', '"["urgent", "follow-up"]"', ['urgent', 'follow-up']],
    ['object', '{"a": {"b": [1]}}', { a: { b: [1] } }],
    ['object', '"{"theme": "dark"}"', { theme: 'dark' }],
  ])('types LIKE for %s: %s', (type, literal, expected) => {
    expect(parsed(` p AS ${type} LIKE ${literal} DESCRIPTION "d"`).spec.examples).toEqual([
      expected,
    ]);
  });

  it.each([
    ['integer', '2.5'],
    ['integer', '99999999999999999999'],
    ['number', 'NaN'],
    ['boolean', 'yes'],
    ['array', '{"a": 1}'],
    ['object', '[1]'],
    ['object', '"plain"'],
  ])('refuses LIKE for %s: %s', (type, literal) => {
    expect(
      problems(
        parseParamLine(` p AS ${type} LIKE ${literal} DESCRIPTION "d"`, { dialect: 'header' }),
      ),
    ).toEqual([expect.objectContaining({ code: 'E_PARAM_VALUE' })]);
  });

  it('puts an ENUM of an array parameter on its items, inferring their type when OF is absent', () => {
    expect(parsed(' p AS array ENUM [1, 2] DESCRIPTION "d"').spec.items).toEqual({
      type: 'integer',
      enum: [1, 2],
    });
    expect(parsed(' p AS array OF number ENUM [1, 2] DESCRIPTION "d"').spec.items).toEqual({
      type: 'number',
      enum: [1, 2],
    });
    expect(parsed(' p AS array ENUM [true] DESCRIPTION "d"').spec.items).toEqual({
      type: 'boolean',
      enum: [true],
    });
    expect(parsed(' p AS array ENUM ["a", 1] DESCRIPTION "d"').spec.items).toEqual({
      type: 'string',
      enum: ['a', 1],
    });
  });

  it('makes a parameter with a DEFAULT optional and types the default', () => {
    expect(parsed(' p AS number DEFAULT "0.5" DESCRIPTION "d"').spec).toMatchObject({
      default: 0.5,
      required: false,
    });
  });

  it('refuses a clause given twice, an unknown word and OF on a non-array', () => {
    expect(
      problems(parseParamLine(' p AS string AS integer', { dialect: 'header' }))[0]?.message,
    ).toContain('AS twice');
    expect(
      problems(parseParamLine(' p AS string REQUIRED', { dialect: 'header' }))[0]?.message,
    ).toContain('"REQUIRED"');
    expect(problems(parseParamLine(' p AS string OF string', { dialect: 'header' }))[0]?.code).toBe(
      'E_PARAM_TYPE',
    );
    expect(problems(parseParamLine(' p AS array OF array', { dialect: 'header' }))[0]?.code).toBe(
      'E_PARAM_TYPE',
    );
    expect(problems(parseParamLine(' p AS', { dialect: 'header' }))[0]?.message).toContain(
      'AS needs a type',
    );
  });

  it('refuses ENUM values that are objects, and unclosed JSON', () => {
    expect(problems(parseParamLine(' p ENUM [{"a": 1}]', { dialect: 'header' }))[0]?.code).toBe(
      'E_PARAM_ENUM',
    );
    expect(problems(parseParamLine(' p ENUM ["a"', { dialect: 'header' }))[0]?.message).toContain(
      'not closed',
    );
    expect(problems(parseParamLine(' p LIKE', { dialect: 'header' }))[0]?.message).toContain(
      'needs a value',
    );
  });

  it('knows date and datetime only in BASIC, as ISO 8601 strings', () => {
    expect(parsed(' d AS date LIKE "2026-01-31" DESCRIPTION "d"', 'basic').spec).toMatchObject({
      type: 'string',
      format: 'date',
    });
    expect(parsed(' d AS datetime DESCRIPTION "d"', 'basic').spec).toMatchObject({
      type: 'string',
      format: 'date-time',
    });
    expect(
      problems(parseParamLine(' d AS date DESCRIPTION "d"', { dialect: 'header' }))[0]?.code,
    ).toBe('E_PARAM_TYPE');
  });

  it('drops the date format with a warning when the example is not ISO 8601', () => {
    const value = parsed(' d AS datetime LIKE "tomorrow at 9" DESCRIPTION "d"', 'basic');
    expect(value.spec.format).toBeUndefined();
    expect(value.warnings).toEqual([expect.objectContaining({ code: 'W_DATE_FORMAT' })]);
  });
});

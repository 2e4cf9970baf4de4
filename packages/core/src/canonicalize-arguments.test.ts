import { describe, expect, it } from 'vitest';
import { canonicalizeArguments } from './canonicalize-arguments.ts';
import { buildInputSchema, findParameterProblems } from './parameter-model.ts';
import { validateArguments } from './validate-arguments.ts';

const schema = buildInputSchema([
  {
    name: 'Format',
    type: 'string',
    description: 'Output format',
    enum: ['Markdown', 'Html'],
    enumIgnoresCase: true,
    default: 'Markdown',
  },
  {
    name: 'Days',
    type: 'array',
    description: 'Days',
    items: { type: 'string', enum: ['Monday', 'Tuesday'], enumIgnoresCase: true },
  },
  { name: 'Exact', type: 'string', description: 'Case counts', enum: ['Yes', 'No'] },
  { name: 'Anything', description: 'Any JSON value' },
]);

describe('canonicalizeArguments', () => {
  it('serves the canonical spellings in enum and marks the enum as ignoring case', () => {
    expect(schema.properties?.Format).toEqual({
      type: 'string',
      description: 'Output format',
      enum: ['Markdown', 'Html'],
      'x-enumIgnoreCase': true,
      default: 'Markdown',
    });
    expect(schema.properties?.Anything).toEqual({ description: 'Any JSON value' });
  });

  it('binds the listed spelling of a value sent in another case, items included', () => {
    const args = { Format: 'mARKDOWN', Days: ['monday', 'TUESDAY'], Exact: 'Yes' };
    expect(canonicalizeArguments(schema, args)).toEqual({
      Format: 'Markdown',
      Days: ['Monday', 'Tuesday'],
      Exact: 'Yes',
    });
    expect(args.Format).toBe('mARKDOWN');
  });

  it('accepts any case where the enum ignores case, and only there', () => {
    expect(validateArguments(schema, { Format: 'html', Days: ['MONDAY'] }).valid).toBe(true);
    const exact = validateArguments(schema, { Exact: 'yes' });
    expect(exact.valid).toBe(false);
    expect(validateArguments(schema, { Format: 'pdf' }).valid).toBe(false);
  });

  it('leaves what matches nothing, and schemas without the mark, as they came', () => {
    const args = { Format: 'pdf', Anything: { a: [1, null] } };
    expect(canonicalizeArguments(schema, args)).toBe(args);
    const plain = buildInputSchema([
      { name: 'Exact', type: 'string', description: 'x', enum: ['Yes'] },
    ]);
    const sent = { Exact: 'yes' };
    expect(canonicalizeArguments(plain, sent)).toBe(sent);
  });

  it('compares case as .NET OrdinalIgnoreCase: one character for one', () => {
    const eszett = buildInputSchema([
      { name: 'S', type: 'string', description: 'x', enum: ['Straße'], enumIgnoresCase: true },
    ]);
    expect(canonicalizeArguments(eszett, { S: 'STRASSE' })).toEqual({ S: 'STRASSE' });
    expect(canonicalizeArguments(eszett, { S: 'STRAßE' })).toEqual({ S: 'Straße' });
  });

  it('takes a default in another case as valid, and an untyped default of any kind', () => {
    expect(
      findParameterProblems([
        {
          name: 'F',
          type: 'string',
          enum: ['Markdown'],
          enumIgnoresCase: true,
          default: 'markdown',
        },
        { name: 'G', default: { any: ['thing'] } },
      ]),
    ).toEqual([]);
    expect(
      findParameterProblems([
        { name: 'F', type: 'string', enum: ['Markdown'], default: 'markdown' },
      ]),
    ).toHaveLength(1);
  });
});

import { describe, expect, it } from 'vitest';
import { listInputSchema } from './list-input-schema.ts';
import { readStrictArguments } from './read-strict-arguments.ts';

const schema = {
  type: 'object' as const,
  properties: {
    Path: { type: 'string' },
    Note: { type: ['string', 'null'] },
    Any: { description: 'any value' },
    Options: { type: 'object', properties: { Deep: { type: 'boolean' } } },
    Settings: { type: 'object', description: 'A hashtable.' },
    Rows: { type: 'array', items: { type: 'object', properties: { Id: { type: 'integer' } } } },
  },
};

describe('readStrictArguments', () => {
  it('drops a null the exact schema does not take: the strict listing\'s "not given"', () => {
    expect(
      readStrictArguments(schema, { Path: null, Options: { Deep: null }, Rows: [{ Id: null }] }),
    ).toEqual({ Options: {}, Rows: [{}] });
  });

  it('keeps a null the exact schema takes, and every other value', () => {
    const args = { Path: 'a', Note: null, Any: null, Options: { Deep: true }, Extra: null };
    expect(readStrictArguments(schema, args)).toEqual(args);
  });

  it('parses back a free-form object the strict listing asked for as JSON text', () => {
    const listed = listInputSchema(
      {
        name: 't',
        description: 'Does t.',
        inputSchema: schema,
        source: { kind: 'js-module', path: 't.ts' },
        invocation: { runner: 'node-worker', modulePath: 't.ts', exportName: 't' },
        originalName: 't',
      },
      'openai-strict',
    );
    expect(listed.inputSchema.properties?.Settings).toEqual({
      type: ['string', 'null'],
      description:
        'A hashtable. A JSON object, as text (strict mode cannot list its keys). Null when not given.',
    });
    expect(readStrictArguments(schema, { Settings: '{"Depth": 2}' })).toEqual({
      Settings: { Depth: 2 },
    });
    // Text that is no JSON object stays text, for validation to refuse as not an object.
    expect(readStrictArguments(schema, { Settings: '[1]' })).toEqual({ Settings: '[1]' });
    expect(readStrictArguments(schema, { Settings: 'x' })).toEqual({ Settings: 'x' });
  });

  it('leaves what is not an object for validation to judge', () => {
    expect(readStrictArguments(schema, null)).toBeNull();
    expect(readStrictArguments(schema, ['a'])).toEqual(['a']);
  });
});

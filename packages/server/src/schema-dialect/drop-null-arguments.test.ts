import { describe, expect, it } from 'vitest';
import { dropNullArguments } from './drop-null-arguments.ts';

const schema = {
  type: 'object',
  properties: {
    Path: { type: 'string' },
    Note: { type: ['string', 'null'] },
    Any: { description: 'any value' },
    Options: { type: 'object', properties: { Deep: { type: 'boolean' } } },
  },
};

describe('dropNullArguments', () => {
  it('drops a null the exact schema does not take: the strict listing\'s "not given"', () => {
    expect(dropNullArguments(schema, { Path: null, Options: { Deep: null } })).toEqual({
      Options: {},
    });
  });

  it('keeps a null the exact schema takes, and every other value', () => {
    const args = { Path: 'a', Note: null, Any: null, Options: { Deep: true }, Extra: null };
    expect(dropNullArguments(schema, args)).toEqual(args);
  });

  it('leaves what is not an object for validation to judge', () => {
    expect(dropNullArguments(schema, null)).toBeNull();
    expect(dropNullArguments(schema, ['a'])).toEqual(['a']);
  });
});

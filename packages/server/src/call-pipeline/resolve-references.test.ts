import { describe, expect, it } from 'vitest';
import { resolveReferences } from './resolve-references.ts';

const scope = {
  input: { name: 'ada', tags: ['a', 'b'], count: 3 },
  steps: new Map<string, unknown>([['fetch', { body: { items: [{ id: 7 }] } }]]),
};

describe('resolveReferences', () => {
  it('keeps a lone reference as the value it points at', () => {
    expect(resolveReferences('${input.tags}', scope)).toEqual(['a', 'b']);
    expect(resolveReferences('${steps.fetch.result.body.items[0].id}', scope)).toBe(7);
    expect(resolveReferences('${input.count}', scope)).toBe(3);
  });

  it('turns references inside text into text (JSON for non-strings, nothing for missing)', () => {
    expect(
      resolveReferences(
        'hi ${input.name}, ${input.count} tags: ${input.tags}${input.missing}',
        scope,
      ),
    ).toBe('hi ada, 3 tags: ["a","b"]');
  });

  it('drops keys and items whose lone reference is missing', () => {
    expect(
      resolveReferences(
        { a: '${input.missing}', b: ['${input.missing}', 1], c: { d: '${input.name}' } },
        scope,
      ),
    ).toEqual({
      b: [1],
      c: { d: 'ada' },
    });
  });

  it('writes $${ as a literal ${', () => {
    expect(resolveReferences('$${input.name} is ${input.name}', scope)).toBe(
      '${input.name} is ada',
    );
  });

  it('leaves other values alone', () => {
    expect(resolveReferences(42, scope)).toBe(42);
    expect(resolveReferences(null, scope)).toBe(null);
  });
});

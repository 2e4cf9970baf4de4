import { describe, expect, it } from 'vitest';
import { parseReference, scanReferences } from './workflow-references.ts';

describe('scanReferences', () => {
  it('finds input and step references with their paths', () => {
    expect(
      scanReferences('a ${input.user.email} b ${ steps.fetch.result.items[2]["odd key"] } c'),
    ).toEqual({
      ok: true,
      references: [
        { kind: 'input', name: 'user', path: ['email'], text: '${input.user.email}' },
        {
          kind: 'step',
          id: 'fetch',
          path: ['items', 2, 'odd key'],
          text: '${ steps.fetch.result.items[2]["odd key"] }',
        },
      ],
    });
  });

  it('skips $${ literals and text without references', () => {
    expect(scanReferences('price: $${amount} and {braces}')).toEqual({ ok: true, references: [] });
  });

  it('reports the first reference it cannot read', () => {
    expect(scanReferences('${input.a} ${secrets.token}')).toMatchObject({
      ok: false,
      text: '${secrets.token}',
    });
    expect(scanReferences('${input.a')).toMatchObject({
      ok: false,
      problem: expect.stringContaining('not closed'),
    });
  });
});

describe('parseReference', () => {
  it.each([
    ['input', 'names no input'],
    ['steps', 'names no step'],
    ['steps.a', 'without .result'],
    ['steps.a.output', 'without .result'],
    ['input.a..b', 'cannot be read'],
    ['input.a[x]', 'cannot be read'],
    ['inputs.a', 'not a reference'],
  ])('refuses %s', (expression, problem) => {
    expect(parseReference(expression)).toContain(problem);
  });
});

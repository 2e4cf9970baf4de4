import { describe, expect, it } from 'vitest';
import { classifyDeclarationLine, parseDeclarations } from './parse-declarations.ts';

describe('classifyDeclarationLine', () => {
  it.each([
    ['PARAM x AS string', 'header', 'param'],
    ['param x as string', 'header', 'param'],
    ['param is a word in this sentence', 'header', 'other'],
    ['PARAM', 'header', 'param'],
    ['DESCRIPTION "x"', 'header', 'description'],
    ['DESCRIPTION plain', 'header', 'description'],
    ['Description: prose', 'header', 'other'],
    ['Description of things', 'header', 'other'],
    ['description "x"', 'header', 'description'],
    ['description of things', 'basic', 'description'],
    ['description = "x"', 'basic', 'other'],
    ['PARAMETERS x', 'basic', 'other'],
    ['TALK "x"', 'basic', 'other'],
    ['OUTPUT total AS integer', 'header', 'output'],
    ['output total as integer', 'header', 'output'],
    ['Output: a JSON object', 'header', 'other'],
    ['output is printed as JSON', 'basic', 'output'],
    ['EXAMPLE {"a": 1}', 'header', 'example'],
    ['example {"a": 1}', 'header', 'example'],
    ['Example: run it twice', 'header', 'other'],
    ['OPTIONS long-running', 'header', 'options'],
    ['Options: none', 'header', 'other'],
    ['options long-running', 'basic', 'options'],
    ['TIMEOUT 10m', 'header', 'timeout'],
    ['timeout 30s', 'header', 'timeout'],
    ['Timeout after a while', 'header', 'other'],
    ['TIMEOUT = 5', 'basic', 'other'],
  ] as const)('%s (%s) is %s', (text, dialect, kind) => {
    expect(classifyDeclarationLine(text, dialect)).toBe(kind);
  });
});

describe('parseDeclarations', () => {
  it("does not give a broken PARAM line's description to the tool", () => {
    const result = parseDeclarations(
      [
        { text: 'PARAM 9x AS string', line: 1 },
        { text: 'DESCRIPTION "the parameter"', line: 2 },
        { text: 'DESCRIPTION "the tool"', line: 4 },
      ],
      { path: 'x.bas', dialect: 'basic' },
    );
    expect(result.description).toBe('the tool');
    expect(result.diagnostics.map((d) => d.code)).toEqual(['E_PARAM_NAME']);
  });

  it('reports declaresTool false when there is nothing to declare', () => {
    expect(
      parseDeclarations([{ text: 'just words', line: 1 }], { path: 'x.sh', dialect: 'header' }),
    ).toEqual({
      parameters: [],
      outputs: [],
      examples: [],
      diagnostics: [],
      annotations: {},
      declaresTool: false,
    });
  });
});

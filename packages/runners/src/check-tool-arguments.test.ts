import { describe, expect, it } from 'vitest';
import { checkToolArguments } from './check-tool-arguments.ts';
import { firstText, makeTool } from './testing/make-tool.ts';

const greet = makeTool({
  name: 'greet',
  invocation: { runner: 'builtin', builtin: 'describe_tool' },
  properties: { name: { type: 'string' }, times: { type: 'integer', minimum: 1 } },
  required: ['name'],
  additionalProperties: false,
});

describe('checkToolArguments', () => {
  it('passes arguments the schema accepts', () => {
    expect(checkToolArguments(greet, { name: 'Ada', times: 2 })).toBeUndefined();
  });

  it('answers an error result naming the tool, the path and the rule', () => {
    const result = checkToolArguments(greet, { name: 'Ada', times: 0 });
    expect(result?.isError).toBe(true);
    expect(firstText(result!)).toMatch(/^Invalid arguments for tool "greet": .*times.*>= 1/);
    expect(firstText(checkToolArguments(greet, {})!)).toMatch(/name/);
  });

  it('answers an error result, not an exception, for a schema that cannot compile', () => {
    const broken = {
      ...greet,
      inputSchema: { type: 'object', properties: { x: { type: 'nope' } } },
    };
    const result = checkToolArguments(broken as typeof greet, {});
    expect(result?.isError).toBe(true);
    expect(firstText(result!)).toMatch(/cannot be called: its input schema is not valid/);
  });
});

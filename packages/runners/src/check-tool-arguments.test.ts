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

  describe('with several parameter sets', () => {
    const sets = [
      { name: 'ByName', isDefault: true, parameters: ['Name', 'Top'], required: ['Name'] },
      { name: 'ById', isDefault: false, parameters: ['Id', 'Top'], required: ['Id'] },
    ];
    const find = {
      ...makeTool({
        name: 'find',
        invocation: { runner: 'pwsh', mode: 'script', scriptPath: '/x/Find.ps1' },
        properties: {
          Name: { type: 'string' },
          Id: { type: 'integer' },
          Top: { type: 'integer', minimum: 1 },
        },
        additionalProperties: false,
      }),
      parameterSets: sets,
    };
    // The oneOf itself must not decide: without parameterSets, Ajv's oneOf message is all a
    // caller would get.
    find.inputSchema = {
      ...find.inputSchema,
      oneOf: [{ required: ['Name'] }, { required: ['Id'] }],
    };

    it('passes arguments that bind one set', () => {
      expect(checkToolArguments(find, { Name: 'a', Top: 2 })).toBeUndefined();
      expect(checkToolArguments(find, { Id: 3 })).toBeUndefined();
    });

    it('answers E_PARAMETER_SET_MATCH naming each set and what the call lacks or has too much', () => {
      const text = firstText(checkToolArguments(find, { Name: 'a', Id: 3 })!);
      expect(text).toMatch(/^E_PARAMETER_SET_MATCH Invalid arguments for tool "find": /);
      expect(text).toContain(
        'set ByName (the default) does not take Id; set ById does not take Name',
      );
      expect(text).toContain(
        'ByName (default) takes Name, Top, needs Name; ById takes Id, Top, needs Id',
      );
    });

    it('still reports a bad value first, by its path and rule', () => {
      const text = firstText(checkToolArguments(find, { Id: 3, Top: 0 })!);
      expect(text).toMatch(/^Invalid arguments for tool "find": .*Top.*>= 1/);
    });
  });
});

import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Diagnostic } from '@toolpack/core';
import { describe, expect, it } from 'vitest';
import { applyHelpLeniency } from '../lenient-help.ts';
import type { SourceResult } from '../types.ts';
import { describePowerShellScript } from './describe-script.ts';

const scripts = fileURLToPath(new URL('./fixtures/scripts/', import.meta.url));

async function describeFixture(name: string, path = join(scripts, name)): Promise<SourceResult> {
  return describePowerShellScript({ path, content: await readFile(join(scripts, name), 'utf8') });
}

function problems(result: SourceResult): string[] {
  return result.diagnostics
    .filter((d) => d.code !== 'I_RENAMED')
    .map((d) => `${d.severity} ${d.code} ${d.line}`);
}

function find(result: SourceResult, code: string): Diagnostic | undefined {
  return result.diagnostics.find((d) => d.code === code);
}

function properties(result: SourceResult): Record<string, Record<string, unknown>> {
  return (result.tools[0]?.inputSchema.properties ?? {}) as Record<string, Record<string, unknown>>;
}

describe('describePowerShellScript', () => {
  it('turns a documented script into a tool', async () => {
    const path = join(scripts, 'Get-Widget.ps1');
    const result = await describeFixture('Get-Widget.ps1');
    expect(problems(result)).toEqual([]);
    expect(result.tools).toEqual([
      {
        name: 'Get_Widget',
        originalName: 'Get-Widget',
        description:
          'Gets widgets from the store.\n\nReads the widget store and returns every widget\nthat matches the filters.',
        inputSchema: {
          type: 'object',
          properties: {
            Name: {
              type: 'string',
              enum: ['gear', 'bolt', 'nut'],
              'x-enumIgnoreCase': true,
              description: "The widget's name.",
            },
            Count: {
              type: 'integer',
              minimum: 1,
              maximum: 100,
              description: 'How many widgets to return at most.',
              default: 10,
            },
            Tag: {
              type: 'array',
              items: { type: 'string' },
              description: 'Only widgets with these tags.',
            },
            IncludeRetired: {
              type: 'boolean',
              description: 'Include retired widgets.',
              default: false,
            },
          },
          required: ['Name'],
          additionalProperties: false,
        },
        annotations: { readOnlyHint: true, idempotentHint: true },
        inputExamples: [{ arguments: { Name: 'gear', Count: 3 } }],
        source: { kind: 'script', path, line: 26 },
        invocation: { runner: 'pwsh', mode: 'script', scriptPath: path },
      },
    ]);
  });

  it('says when the tool name differs from the file name', async () => {
    const result = await describeFixture('Get-Widget.ps1');
    const renamed = find(result, 'I_RENAMED');
    expect(renamed?.severity).toBe('info');
    expect(renamed?.message).toContain('Get_Widget');
    expect(renamed?.message).toContain("replaced '-' with '_'");
  });

  it('refuses a name with no letters or digits', async () => {
    const result = await describeFixture('no-params.ps1', '/scripts/---.ps1');
    expect(result.tools).toEqual([]);
    expect(find(result, 'E_TOOL_NAME')?.severity).toBe('error');
  });

  it('reads help written as # line comments', async () => {
    const result = await describeFixture('line-comment-help.ps1');
    expect(result.tools[0]?.description).toBe(
      'Says hello.\n\nWrites a greeting for the given person.',
    );
    expect(properties(result).Person).toEqual({
      type: 'string',
      description: 'Who to greet.',
      default: 'world',
    });
  });

  it('reads help at the end of a script', async () => {
    const result = await describeFixture('help-at-end.ps1');
    expect(result.tools[0]?.description).toBe('Reads a file.');
    expect(result.tools[0]?.source.line).toBe(1);
  });

  it('takes help two blank lines above a first function as the script help', async () => {
    expect((await describeFixture('help-far-from-function.ps1')).tools[0]?.description).toContain(
      'Script help',
    );
  });

  it('leaves help right above a first function to the function, and says so', async () => {
    const result = await describeFixture('help-next-to-function.ps1');
    expect(result.tools).toEqual([]);
    const error = find(result, 'E_NO_DESCRIPTION');
    expect(error?.line).toBe(1);
    expect(error?.message).toContain('gives the help to that function');
    const alsoWithParam = await describeFixture('short-function-first.ps1');
    expect(find(alsoWithParam, 'E_NO_DESCRIPTION')?.message).toContain('function at line 6');
  });

  it('takes a description alone, dedented', async () => {
    const result = await describeFixture('description-only.ps1');
    expect(result.tools[0]?.description).toBe(
      'Only a description, indented,\n    with a deeper line.',
    );
  });

  it('makes a tool of a script without parameters', async () => {
    const result = await describeFixture('no-params.ps1');
    expect(result.tools[0]?.inputSchema).toEqual({
      type: 'object',
      properties: {},
      additionalProperties: false,
    });
    expect(result.tools[0]?.description).toBe('Takes no parameters.\n\nPrints the date.');
  });

  it('refuses a script without help, naming each undocumented parameter too', async () => {
    const result = await describeFixture('no-help.ps1');
    expect(result.tools).toEqual([]);
    expect(problems(result)).toEqual([
      'error E_NO_DESCRIPTION 2',
      'error E_PARAMETER_NO_DESCRIPTION 2',
    ]);
    expect(find(result, 'E_NO_DESCRIPTION')?.hint).toContain('.SYNOPSIS');
  });

  it('explains help PowerShell ignores: text on the keyword line', async () => {
    const result = await describeFixture('synopsis-same-line.ps1');
    const error = find(result, 'E_NO_DESCRIPTION');
    expect(error?.line).toBe(2);
    expect(error?.message).toContain('".SYNOPSIS" has text on its own line');
  });

  it('explains help PowerShell ignores: a #Requires line glued to it', async () => {
    expect(
      find(await describeFixture('requires-adjacent.ps1'), 'E_NO_DESCRIPTION')?.message,
    ).toContain('"Requires -Version 7"');
    expect((await describeFixture('requires-separated.ps1')).tools).toHaveLength(1);
  });

  it('refuses a parameter without a description and says where and how to fix it', async () => {
    const result = applyHelpLeniency(await describeFixture('param-no-description.ps1'), false);
    expect(result.tools).toEqual([]);
    const error = find(result, 'E_PARAMETER_NO_DESCRIPTION');
    expect(error).toMatchObject({ severity: 'error', line: 10 });
    expect(error?.message).toContain('$Destination');
    expect(error?.hint).toContain('.PARAMETER Destination');
    expect(error?.hint).toContain('lenientHelp: true');
  });

  it('serves a tool with undescribed parameters under lenient help, with a warning each', async () => {
    const read = await describeFixture('param-no-description.ps1');
    const result = applyHelpLeniency(read, true);
    expect(result.tools.map((tool) => tool.name)).toEqual(['param_no_description']);
    expect(result.tools[0]).not.toHaveProperty('parameterHelpGaps');
    expect(problems(result)).toEqual(['warning W_PARAMETER_NO_DESCRIPTION 10']);
    expect(find(result, 'W_PARAMETER_NO_DESCRIPTION')?.message).toMatch(/served anyway/);
    // Any other error still refuses the tool, lenient or not.
    const broken = applyHelpLeniency(await describeFixture('unrepresentable-mandatory.ps1'), true);
    expect(broken.tools).toEqual([]);
  });

  it('takes parameter descriptions from help, comments or HelpMessage, in that order', async () => {
    const result = await describeFixture('param-comment-descriptions.ps1');
    const descriptions = Object.fromEntries(
      Object.entries(properties(result)).map(([name, schema]) => [name, schema.description]),
    );
    expect(descriptions).toEqual({
      Documented: 'From the help section.',
      LineComment: 'A line comment above the parameter.',
      BlockComment: 'A block comment\nabove the parameter.',
      Between: 'A comment between the attributes and the variable.',
      HelpMessageOnly: 'From HelpMessage.',
      Trailing: 'A comment after the last parameter.',
    });
  });

  it('reads several parameter sets into parameterSets and a oneOf, the default set first', async () => {
    const result = await describeFixture('parameter-sets.ps1');
    expect(problems(result)).toEqual([]);
    const tool = result.tools[0];
    expect(tool?.parameterSets).toEqual([
      { name: 'ByName', isDefault: false, parameters: ['Name'], required: ['Name'] },
      { name: 'ById', isDefault: false, parameters: ['Id'], required: ['Id'] },
    ]);
    // Every parameter stays in properties; none is required in every set.
    expect(Object.keys(tool?.inputSchema.properties ?? {})).toEqual(['Name', 'Id']);
    expect(tool?.inputSchema.required).toBeUndefined();
    expect(tool?.inputSchema.oneOf).toEqual([
      expect.objectContaining({
        title: 'ByName',
        required: ['Name'],
        propertyNames: { enum: ['Name'] },
      }),
      expect.objectContaining({ title: 'ById', required: ['Id'], propertyNames: { enum: ['Id'] } }),
    ]);

    const withDefault = (await describeFixture('default-parameter-set.ps1')).tools[0];
    expect(withDefault?.parameterSets?.map((set) => [set.name, set.isDefault])).toEqual([
      ['None', true],
      ['ByName', false],
    ]);
  });

  it('refuses a parameter declared twice in one set, as PowerShell does', async () => {
    const result = await describeFixture('repeated-parameter-set.ps1');
    expect(result.tools).toEqual([]);
    const error = find(result, 'E_PARAMETER_SETS');
    expect(error?.message).toContain('$Name');
    expect(error?.message).toContain('ByName');
    expect(error?.line).toBe(13);
  });

  it('refuses more than 32 parameter sets, as PowerShell does', async () => {
    const result = await describeFixture('too-many-parameter-sets.ps1');
    expect(result.tools).toEqual([]);
    expect(find(result, 'E_PARAMETER_SETS')?.message).toBe(
      'The script has 33 parameter sets; PowerShell refuses to load a command with more than 32.',
    );
  });

  it('accepts a single named parameter set', async () => {
    const result = await describeFixture('single-parameter-set.ps1');
    expect(problems(result)).toEqual([]);
    expect(result.tools[0]?.inputSchema.required).toEqual(['Name']);
  });

  it('refuses ReadOnlyHint and DestructiveHint together', async () => {
    const result = await describeFixture('conflicting-hints.ps1');
    expect(result.tools).toEqual([]);
    expect(find(result, 'E_CONFLICTING_HINTS')?.line).toBe(6);
  });

  it('warns about unknown hints but keeps the tool', async () => {
    const result = await describeFixture('unknown-hint.ps1');
    expect(result.tools[0]?.annotations).toEqual({ readOnlyHint: true });
    expect(problems(result)).toEqual(['warning W_UNKNOWN_HINT 6', 'warning W_UNKNOWN_HINT 7']);
  });

  it('warns about help for a parameter that does not exist', async () => {
    const result = await describeFixture('unknown-help-param.ps1');
    expect(result.tools).toHaveLength(1);
    expect(problems(result)).toEqual(['warning W_UNKNOWN_PARAMETER_HELP 5']);
  });

  it('takes help for the common parameters a command has, and does not repeat the synopsis', async () => {
    const result = await describeFixture('repeated-synopsis.ps1');
    // -WhatIf and -Confirm (SupportsShouldProcess) and -Verbose (advanced) are the engine's own.
    expect(problems(result)).toEqual([]);
    expect(result.tools[0]?.description).toBe(
      'Removes stale widgets. A widget is stale when nobody has read it\nfor the given number of days.',
    );
    expect(Object.keys(properties(result))).toEqual(['Days']);
  });

  it('still warns about help for a common parameter the command does not have', async () => {
    const result = await describeFixture('whatif-help-simple.ps1');
    expect(problems(result)).toEqual(['warning W_UNKNOWN_PARAMETER_HELP 7']);
    expect(result.tools[0]?.description).toBe('Removes stale widgets, without ShouldProcess.');
  });

  it.each([
    ['parse-error.ps1', 7, 'no closing quote'],
    ['missing-brace.ps1', 7, '"{" is never closed'],
    ['trailing-comma.ps1', 7, 'comma after the last parameter'],
    ['missing-comma.ps1', 9, 'a comma is missing after the parameter $Name'],
    ['default-comma.ps1', 7, 'expected a parameter variable'],
    ['ordered-parameter.ps1', 7, '[ordered] can only precede a hashtable literal'],
  ])('refuses %s with the line of the syntax error', async (name, line, text) => {
    const result = await describeFixture(name);
    expect(result.tools).toEqual([]);
    const error = find(result, 'E_PARSE');
    expect(error?.line).toBe(line);
    expect(error?.message).toContain(text);
  });

  it('is not fooled by here-strings or strings containing #> and param(', async () => {
    const result = await describeFixture('here-strings.ps1');
    expect(problems(result)).toEqual([]);
    expect(Object.keys(properties(result))).toEqual(['Template']);
    expect(properties(result).Template?.default).toBe(
      '#> not the end of a comment\nparam( not a param block',
    );
  });

  it('is not fooled by comments containing param(', async () => {
    const result = await describeFixture('comment-param.ps1');
    expect(Object.keys(properties(result))).toEqual(['Real']);
    expect(properties(result).Real?.description).toBe('The only real parameter.');
  });

  it('handles odd casing, tabs, CRLF, multi-line attributes and line continuations', async () => {
    const result = await describeFixture('odd-spacing.ps1');
    expect(problems(result)).toEqual([]);
    expect(result.tools[0]?.description).toBe('Odd casing, tabs and CRLF line endings.');
    expect(result.tools[0]?.inputSchema).toEqual({
      type: 'object',
      properties: {
        Path: { type: 'string', description: 'The path.' },
        Retries: { type: 'integer', description: 'How often to retry.', default: 3 },
      },
      required: ['Path'],
      additionalProperties: false,
    });
  });

  it('maps every PowerShell type', async () => {
    const result = await describeFixture('types.ps1');
    const types = Object.fromEntries(
      Object.entries(properties(result)).map(([name, { description: _description, ...schema }]) => [
        name,
        schema,
      ]),
    );
    expect(types).toEqual({
      Text: { type: 'string' },
      Letter: { type: 'string', minLength: 1, maxLength: 1 },
      Flag: { type: 'boolean' },
      Toggle: { type: 'boolean', default: false },
      Whole: { type: 'integer' },
      Big: { type: 'integer' },
      Qualified: { type: 'integer' },
      Small: { type: 'integer', minimum: 0, maximum: 255 },
      Unsigned: { type: 'integer', minimum: 0, maximum: 4294967295 },
      Ratio: { type: 'number' },
      Money: { type: 'number' },
      Single: { type: 'number' },
      Names: { type: 'array', items: { type: 'string' } },
      Numbers: { type: 'array', items: { type: 'integer' } },
      Things: { type: 'array' },
      Bag: { type: 'array' },
      Settings: { type: 'object' },
      Record: { type: 'object' },
      Ordered: { type: 'object' },
      When: { type: 'string', format: 'date-time' },
      Id: { type: 'string', format: 'uuid' },
      Link: { type: 'string', format: 'uri' },
      Rows: { type: 'array', items: { type: 'object' } },
      List: { type: 'array', items: { type: 'string' } },
      Maybe: { type: 'integer' },
      File: { type: 'string' },
      Duration: { type: 'string' },
      // [object]: PowerShell binds any value.
      Anything: {},
    });
    expect(problems(result)).toEqual(['info I_UNTYPED_PARAMETER 61']);
  });

  it('turns validation attributes into schema keywords', async () => {
    const result = await describeFixture('validation.ps1');
    expect(problems(result)).toEqual([]);
    const schema = properties(result);
    expect(schema.Level).toMatchObject({ enum: ['Low', 'Medium', 'High'] });
    expect(schema.Tier).toMatchObject({ type: 'integer', enum: [1, 2, 3] });
    expect(schema.Score).toMatchObject({ minimum: 0, maximum: 10 });
    expect(schema.Positive).toMatchObject({ exclusiveMinimum: 0 });
    expect(schema.NonNegative).toMatchObject({ minimum: 0 });
    expect(schema.Large).toMatchObject({ minimum: 1, maximum: 2147483647 });
    expect(schema.Code).toMatchObject({ pattern: '^\\d{3}-[A-Za-z]+$' });
    expect(schema.Lower).toMatchObject({ pattern: '^[a-z]+$' });
    expect(schema.Short).toMatchObject({ minLength: 2, maxLength: 8 });
    expect(schema.Few).toMatchObject({ minItems: 1, maxItems: 5 });
    expect(schema.Required).toMatchObject({ minLength: 1 });
    expect(schema.NonEmptyList).toMatchObject({
      minItems: 1,
      items: { type: 'string', minLength: 1 },
    });
    expect(schema.Colors).toMatchObject({ items: { type: 'string', enum: ['red', 'green'] } });
    expect(schema.Spread).toMatchObject({ enum: ['one', 'two'] });
    expect(schema.Checked).toEqual({ type: 'string', description: 'script-validated' });
  });

  it('keeps constant defaults and invents none', async () => {
    const result = await describeFixture('defaults.ps1');
    const defaults = Object.fromEntries(
      Object.entries(properties(result)).map(([name, schema]) => [name, schema.default]),
    );
    expect(defaults).toEqual({
      Number: 5,
      Negative: -3,
      Fraction: 1.5,
      Single: 'x',
      Double: 'y',
      Escaped: 'tab\tend',
      Yes: true,
      Off: false,
      // A switch left out is $false: PowerShell's binding, not an invented default.
      NoDefault: false,
      List: ['a', 'b'],
      Scalar: [7],
      Table: { a: 1, b: 'two' },
      FromEnv: undefined,
      Now: undefined,
      Interpolated: undefined,
      Hex: 16,
      Size: 2048,
      Nothing: undefined,
      OutOfSet: undefined,
      MandatoryWithDefault: undefined,
    });
    expect(problems(result)).toEqual(['warning W_DEFAULT_INVALID 45']);
  });

  it('lets untyped parameters take any JSON value, and suggests a type from the default', async () => {
    const result = await describeFixture('untyped.ps1');
    const schemas = properties(result);
    expect(Object.values(schemas).map((schema) => schema.type)).toEqual([
      undefined,
      undefined,
      undefined,
      undefined,
    ]);
    expect(schemas.Count?.default).toBe(3);
    expect(schemas.Level).toMatchObject({ minimum: 1, maximum: 5 });
    const infos = result.diagnostics.filter((d) => d.code === 'I_UNTYPED_PARAMETER');
    expect(infos.map((d) => d.hint)).toEqual([
      'Give it a type such as [string] if clients should be told what to send.',
      'Give it a type such as [int] if clients should be told what to send.',
      'Give it a type such as [int] if clients should be told what to send.',
      'Give it a type such as [switch] if clients should be told what to send.',
    ]);
  });

  it('takes ValidateSet values in any case unless IgnoreCase = $false, with the default as written', async () => {
    const result = await describeFixture('validate-set-case.ps1');
    expect(problems(result)).toEqual([]);
    const schemas = properties(result);
    expect(schemas.Format).toMatchObject({
      enum: ['Markdown', 'Html'],
      'x-enumIgnoreCase': true,
      default: 'markdown',
    });
    expect(schemas.Exact).toEqual({
      type: 'string',
      enum: ['Yes', 'No'],
      description: 'Case counts here.',
    });
    expect(schemas.Days).toMatchObject({
      items: { enum: ['Monday', 'Friday'], 'x-enumIgnoreCase': true },
    });
  });

  it('drops a parameter set that needs a live object, and serves the others', async () => {
    const result = await describeFixture('unrepresentable-set.ps1');
    expect(problems(result)).toEqual([
      'warning W_PARAMETER_TYPE 17',
      'warning W_PARAMETER_SET_DROPPED 17',
    ]);
    const tool = result.tools[0];
    expect(Object.keys(properties(result))).toEqual(['Name', 'Path']);
    expect(tool?.parameterSets).toEqual([
      { name: 'ByName', isDefault: true, parameters: ['Name'], required: ['Name'] },
      { name: 'ByModule', isDefault: false, parameters: [], required: ['Module'] },
      { name: 'ByPath', isDefault: false, parameters: ['Path'], required: ['Path'] },
    ]);
    // Needed in every set, it still refuses the tool.
    const refused = await describeFixture('unrepresentable-mandatory.ps1');
    expect(refused.tools).toEqual([]);
    expect(problems(refused)).toEqual(['error E_PARAMETER_TYPE 9']);
  });

  it('leaves out an optional parameter of a type JSON cannot carry, and a credential for discovery to bind', async () => {
    const optional = await describeFixture('optional-unsupported.ps1');
    expect(Object.keys(properties(optional))).toEqual(['Name']);
    expect(problems(optional)).toEqual(['warning W_PARAMETER_TYPE 7']);
    // A mandatory [pscredential] is bound from toolpack.yaml's credentials: or refused by
    // discovery (bind-credentials.test.ts), not by the reader, whose result is cached per file.
    const mandatory = await describeFixture('unsupported-type.ps1');
    expect(problems(mandatory)).toEqual(['warning W_PARAMETER_TYPE 7']);
    expect(mandatory.tools[0]?.credentialParameters).toEqual([
      { name: 'Credential', type: 'pscredential', line: 11, required: true },
    ]);
  });

  it('refuses a common parameter name in an advanced script', async () => {
    const result = await describeFixture('common-parameter.ps1');
    expect(result.tools).toEqual([]);
    expect(find(result, 'E_COMMON_PARAMETER')?.message).toContain('-Verbose');
  });

  it('never emits common parameters', async () => {
    const result = await describeFixture('Get-Widget.ps1');
    const names = Object.keys(properties(result)).map((name) => name.toLowerCase());
    for (const common of ['verbose', 'debug', 'erroraction', 'whatif', 'confirm', 'outvariable'])
      expect(names).not.toContain(common);
  });

  it('refuses duplicate parameter names', async () => {
    const result = await describeFixture('duplicate-parameter.ps1');
    expect(result.tools).toEqual([]);
    expect(find(result, 'E_PARAMETERS')?.message).toContain('declared twice');
  });

  it('reads scripts with begin, process and end blocks', async () => {
    const result = await describeFixture('named-blocks.ps1');
    expect(result.tools[0]?.description).toBe('Uses begin, process and end blocks.');
  });

  it('drops (?i) with a warning and leaves out patterns ECMAScript cannot express', async () => {
    const result = await describeFixture('inline-case.ps1');
    expect(properties(result).Code?.pattern).toBe('^[aA][bB]\\d$');
    expect(properties(result).Atomic?.pattern).toBeUndefined();
    expect(problems(result)).toEqual([
      'warning W_PATTERN_CHANGED 7',
      'warning W_VALIDATION_IGNORED 11',
    ]);
  });

  it('produces only plain JSON', async () => {
    const result = await describeFixture('Get-Widget.ps1');
    expect(JSON.parse(JSON.stringify(result))).toEqual(result);
  });

  it('leaves out a ValidatePattern the linear-time engine cannot run, saying why at its line', async () => {
    const result = await describeFixture('Set-Handle.ps1');
    expect(problems(result)).toEqual(['warning W_VALIDATION_IGNORED 13']);
    expect(find(result, 'W_VALIDATION_IGNORED')?.message).toBe(
      '[ValidatePattern(...)] on $Handle is not part of the schema: once converted to ECMAScript, the pattern "^(?![aA][dD][mM][iI][nN])\\\\w+$" uses a lookahead ((?!…), which the linear-time engine (RE2) cannot run.',
    );
    expect(properties(result).Handle).toEqual({ type: 'string', description: expect.any(String) });
    expect(properties(result).Team?.pattern).toBe('^[a-z]{2,8}$');
  });
});

import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { hasPwsh, PWSH_TEST_TAG, pwshEngine } from '@toolpack/pwsh-probe';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describePowerShellModule } from './describe-module.ts';
import { describePowerShellScriptContent } from './describe-script.ts';
import { resolveTypeName, suggestTypeName } from './find-unresolved-types.ts';

/** A script whose one parameter has the type written `type`, after `prelude` lines. */
function script(type: string, prelude = ''): string {
  return `${prelude}<#\n.SYNOPSIS\nSets the mode.\n.PARAMETER Mode\nThe mode.\n#>\nparam(\n    [${type}]$Mode\n)\n"mode $Mode"\n`;
}

function unresolved(content: string) {
  const result = describePowerShellScriptContent({ path: '/scripts/Set-Mode.ps1', content });
  return {
    tools: result.tools,
    errors: result.diagnostics.filter((d) => d.code === 'E_UNRESOLVED_TYPE'),
    asString: result.diagnostics.filter((d) => d.code === 'I_PARAMETER_AS_STRING'),
  };
}

const NOT_TYPES = ['strin', 'IO.FileInf', 'System.Collections.Generic.List[strng]', 'hashtabel'];

describe('findUnresolvedTypes', () => {
  it('refuses a script whose parameter type names no type, with the type meant', () => {
    const result = unresolved(script('strin'));
    expect(result.tools).toEqual([]);
    expect(result.asString).toEqual([]);
    expect(result.errors).toEqual([
      expect.objectContaining({
        severity: 'error',
        line: 8,
        message: expect.stringContaining(
          'Parameter $Mode of the script has the type [strin], which names no type PowerShell knows',
        ),
        hint: 'Did you mean [string]? Correct the spelling.',
      }),
    ]);
    expect(unresolved(script('IO.FileInf')).errors[0]?.hint).toMatch(/\[IO\.FileInfo\]/);
    expect(unresolved(script('System.Collections.Generic.List[strng]')).errors[0]?.message).toMatch(
      /\[strng\] \(in \[System\.Collections\.Generic\.List\[strng\]\]\)/,
    );
  });

  it('knows accelerators, full and short names, generics, arrays and used namespaces', () => {
    for (const type of [
      'string',
      'String',
      'System.String',
      'IO.FileInfo',
      'string[]',
      'int[,]',
      'System.Collections.Generic.List[string]',
      'System.Collections.Generic.Dictionary[string, int]',
      'Nullable[int]',
      'Environment+SpecialFolder',
      'System.Web.HttpUtility',
      'Microsoft.PowerShell.Commands.WebRequestMethod',
      'pscredential',
      'switch',
    ])
      expect(unresolved(script(type)).errors, type).toEqual([]);
    expect(
      unresolved(script('List[string]', 'using namespace System.Collections.Generic\n')).errors,
    ).toEqual([]);
    // Without the using statement PowerShell does not find `List` either.
    expect(unresolved(script('List[string]')).errors[0]?.message).toMatch(/\[List\]/);
  });

  it('leaves alone what the file or its module may define, and namespaces the table does not cover', () => {
    for (const [type, prelude] of [
      ['Widget', 'class Widget { [string]$Name }\n'],
      ['Colour', 'enum Colour { Red }\n'],
      ['strin', "Add-Type -TypeDefinition 'public class strin {}'\n"],
      ['strin', 'using assembly ./Widgets.dll\n'],
      ['strin', '#Requires -Modules Widgets\n'],
      ['Microsoft.Graph.User', ''],
      ['OfficeOpenXml.ExcelPackage', ''],
      ['strin', 'using namespace Widgets.Types\n'],
    ] as const)
      expect(unresolved(script(type, prelude)).errors, `${prelude}${type}`).toEqual([]);
    expect(
      resolveTypeName('Microsoft.Graph.User', { usingNamespaces: [], loadsTypes: false }),
    ).toEqual({
      name: 'Microsoft.Graph.User',
      status: 'undecided',
    });
  });

  it('judges a module function by its whole module: its other files, RequiredAssemblies', async () => {
    const work = mkdtempSync(join(tmpdir(), 'toolpack-types-'));
    try {
      const fn = (type: string) =>
        `function Set-Mode {\n    <#\n    .SYNOPSIS\n    Sets the mode.\n    .PARAMETER Mode\n    The mode.\n    #>\n    param([${type}]$Mode)\n    $Mode\n}\n`;
      const write = (name: string, files: Record<string, string>) => {
        mkdirSync(join(work, name));
        for (const [file, text] of Object.entries(files))
          writeFileSync(join(work, name, file), text);
        return join(work, name, Object.keys(files)[0] as string);
      };
      const typo = await describePowerShellModule({
        path: write('Typo', { 'Typo.psm1': fn('strin') }),
      });
      expect(typo.diagnostics.filter((d) => d.code === 'E_UNRESOLVED_TYPE')).toHaveLength(1);
      const ownClass = await describePowerShellModule({
        path: write('OwnClass', {
          'OwnClass.psm1': `. $PSScriptRoot/Types.ps1\n${fn('Mode')}`,
          'Types.ps1': 'class Mode { [string]$Name }\n',
        }),
      });
      expect(ownClass.diagnostics.filter((d) => d.code === 'E_UNRESOLVED_TYPE')).toEqual([]);
      const assemblies = await describePowerShellModule({
        path: write('Assemblies', {
          'Assemblies.psd1':
            "@{ ModuleVersion = '1.0'; RootModule = 'Assemblies.psm1'; RequiredAssemblies = 'Lib.dll' }\n",
          'Assemblies.psm1': fn('LibMode'),
        }),
      });
      expect(assemblies.diagnostics.filter((d) => d.code === 'E_UNRESOLVED_TYPE')).toEqual([]);
    } finally {
      rmSync(work, { recursive: true, force: true });
    }
  });

  it('suggests only close names', () => {
    expect(suggestTypeName('strin')).toBe('string');
    expect(suggestTypeName('hashtabel')).toBe('hashtable');
    expect(suggestTypeName('Quux')).toBeUndefined();
  });
});

describe.skipIf(!hasPwsh)(`unresolved types on ${pwshEngine?.description ?? 'pwsh'}`, () => {
  let work = '';
  let answers: Record<string, string> = {};

  beforeAll(() => {
    work = mkdtempSync(join(tmpdir(), 'toolpack-types-'));
    const names = [...NOT_TYPES, 'string'];
    names.forEach((type, index) => writeFileSync(join(work, `s${index}.ps1`), script(type)));
    const suggestions = NOT_TYPES.map((type) =>
      suggestTypeName(
        resolveTypeName(type, { usingNamespaces: [], loadsTypes: false })?.name ?? '',
      ),
    );
    const probe = join(work, 'probe.ps1');
    writeFileSync(
      probe,
      [
        '$answer = [ordered]@{}',
        `$i = 0; foreach ($type in @(${names.map((n) => `'${n}'`).join(', ')})) {`,
        `  try { $answer[$type] = "ran: " + (& (Join-Path '${work.replace(/'/g, "''")}' "s$i.ps1") -Mode x) } catch { $answer[$type] = "failed: $_" }`,
        '  $i++',
        '}',
        `foreach ($type in @(${suggestions.map((n) => `'${n}'`).join(', ')})) { $answer["suggested $type"] = [string]($null -ne ($type -as [type])) }`,
        '$answer | ConvertTo-Json -Compress',
      ].join('\n'),
    );
    answers = JSON.parse(
      execFileSync('pwsh', ['-NoLogo', '-NoProfile', '-NonInteractive', '-File', probe], {
        encoding: 'utf8',
        timeout: 120_000,
      }),
    ) as Record<string, string>;
  }, 130_000);

  afterAll(() => {
    if (work !== '') rmSync(work, { recursive: true, force: true });
  });

  it(`${PWSH_TEST_TAG} matches pwsh: each refused script fails on every call, each suggestion is a type`, () => {
    for (const type of NOT_TYPES) {
      expect(unresolved(script(type)).errors, type).toHaveLength(1);
      expect(answers[type], type).toMatch(/^failed: Unable to find type \[/);
    }
    expect(unresolved(script('string')).errors).toEqual([]);
    expect(answers.string).toBe('ran: mode x');
    for (const [key, value] of Object.entries(answers))
      if (key.startsWith('suggested ')) expect(value, key).toBe('True');
  });
});

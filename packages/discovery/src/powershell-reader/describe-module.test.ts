import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { isToolpackError } from '@toolpack/core';
import { describe, expect, it } from 'vitest';
import { applyHelpLeniency } from '../lenient-help.ts';
import type { SourceResult } from '../types.ts';
import { describePowerShellModule, readPowerShellModule } from './describe-module.ts';
import { parsePowerShellManifest } from './parse-module-manifest.ts';

const modules = fileURLToPath(new URL('./fixtures/modules/', import.meta.url));

function fixture(relative: string): string {
  return join(modules, relative);
}

function names(result: SourceResult): string[] {
  return result.tools.map((tool) => tool.name);
}

function problems(result: SourceResult): string[] {
  return result.diagnostics
    .filter((d) => d.code !== 'I_RENAMED')
    .map((d) => `${d.severity} ${d.code} ${d.path.slice(modules.length)}:${d.line ?? ''}`);
}

describe('describePowerShellModule', () => {
  it("lists the names of the module's own enums and of well-known .NET ones", async () => {
    const result = await describePowerShellModule({ path: fixture('EnumTypes/EnumTypes.psm1') });
    expect(problems(result)).toEqual([]);
    const properties = result.tools[0]?.inputSchema.properties ?? {};
    expect(properties.Color).toMatchObject({
      type: 'string',
      enum: ['Red', 'Green', 'Blue'],
      'x-enumIgnoreCase': true,
    });
    expect(new RegExp(properties.Shade?.pattern as string, 'u').test('light, DARK')).toBe(true);
    // The default as written: the schema's enum ignores case, so it is valid as it stands.
    expect(properties.Day).toMatchObject({
      enum: expect.arrayContaining(['Friday']),
      default: 'friday',
    });
    expect(properties.Command?.enum).toEqual(['Text', 'StoredProcedure', 'TableDirect']);
  });

  it('makes a tool of each function the manifest exports, however its help is placed', async () => {
    const manifest = fixture('WidgetTools/WidgetTools.psd1');
    const script = fixture('WidgetTools/WidgetTools.psm1');
    const result = await describePowerShellModule({ path: manifest });
    expect(names(result)).toEqual(['Get_Widget', 'Set_Widget', 'Remove_Widget', 'Find_Widget']);
    const [get, set, remove, find] = result.tools;
    expect(get).toEqual({
      name: 'Get_Widget',
      originalName: 'Get-Widget',
      description: 'Gets a widget.',
      inputSchema: {
        type: 'object',
        properties: { Name: { type: 'string', description: "The widget's name." } },
        required: ['Name'],
        additionalProperties: false,
      },
      annotations: { readOnlyHint: true },
      source: { kind: 'ps-module', path: script, line: 9 },
      invocation: {
        runner: 'pwsh',
        mode: 'module',
        modulePath: manifest,
        functionName: 'Get-Widget',
      },
    });
    expect(set?.description).toBe('Changes a widget.\n\nWrites the new size to the store.');
    expect(set?.inputSchema.properties?.Size).toEqual({
      type: 'integer',
      minimum: 1,
      maximum: 10,
      description: 'The new size.',
      default: 1,
    });
    expect(remove?.annotations).toEqual({ destructiveHint: true });
    expect(remove?.inputSchema.properties).toEqual({
      Name: { type: 'string', description: 'The widget to remove.' },
      Force: { type: 'boolean', description: 'Skip the confirmation.', default: false },
    });
    expect(find?.inputSchema.properties?.Pattern).toEqual({
      type: 'string',
      description: 'The wildcard.',
      default: '*',
    });
  });

  it('refuses one bad function without hiding the others, and warns about listed names nobody defines', async () => {
    const result = await describePowerShellModule({
      path: fixture('WidgetTools/WidgetTools.psd1'),
    });
    expect(problems(result)).toEqual([
      'warning W_FUNCTION_NOT_FOUND WidgetTools/WidgetTools.psd1:8',
      'error E_NO_DESCRIPTION WidgetTools/WidgetTools.psm1:62',
      'error E_PARAMETER_NO_DESCRIPTION WidgetTools/WidgetTools.psm1:63',
    ]);
    expect(result.diagnostics.find((d) => d.code === 'E_NO_DESCRIPTION')?.message).toContain(
      'Test-Widget',
    );
  });

  it('names each function after itself and says so', async () => {
    const result = await describePowerShellModule({
      path: fixture('WidgetTools/WidgetTools.psd1'),
    });
    const renamed = result.diagnostics.filter((d) => d.code === 'I_RENAMED');
    expect(renamed.map((d) => d.line)).toEqual([9, 20, 39, 57]);
  });

  it('follows Export-ModuleMember: comma lists, arrays, wildcards and continuations', async () => {
    const path = fixture('ExportList/ExportList.psm1');
    const result = await describePowerShellModule({ path });
    expect(names(result)).toEqual(['Get_Alpha', 'Get_Beta', 'Set_Gamma']);
    expect(result.tools[0]?.invocation).toEqual({
      runner: 'pwsh',
      mode: 'module',
      modulePath: path,
      functionName: 'Get-Alpha',
    });
  });

  it('exports every top-level function when the module does not say, except global: ones', async () => {
    const result = await describePowerShellModule({ path: fixture('NoExport/NoExport.psm1') });
    // Get-Three is `function global:Get-Three`: Import-Module does not export it (parity.test.ts).
    expect(result.tools.map((tool) => tool.originalName)).toEqual(['Get-One', 'Get-Two']);
    expect(problems(result)).toEqual([]);
  });

  it('finds functions in files a module dot-sources at run time, using the manifest list', async () => {
    const result = await describePowerShellModule({ path: fixture('DotSourced/DotSourced.psd1') });
    expect(
      result.tools.map((tool) => [tool.originalName, tool.source.path.slice(modules.length)]),
    ).toEqual([
      ['Get-Public', 'DotSourced/Public/Get-Public.ps1'],
      ['Set-Public', 'DotSourced/Public/Set-Public.ps1'],
    ]);
    expect(problems(result)).toEqual([]);
  });

  it('follows the Public/Private template: Get-ChildItem into variables, a foreach, $Public.Basename', async () => {
    const result = await readPowerShellModule({
      path: fixture('PublicPrivate/PublicPrivate.psd1'),
    });
    // Private is loaded but not exported; Public/Sub is not listed without -Recurse.
    expect(result.tools.map((tool) => tool.originalName)).toEqual(['Get-PPWidget', 'Set-PPWidget']);
    expect(problems(result)).toEqual([]);
    expect(result.staticReading).toEqual({ exact: true, unresolved: [] });
  });

  it('follows dot-sourcing in ForEach-Object over each folder of a foreach', async () => {
    const result = await readPowerShellModule({
      path: fixture('PipelineDotSource/PipelineDotSource.psm1'),
    });
    expect(result.tools.map((tool) => tool.originalName)).toEqual(['Get-PLHelper', 'Get-PLItem']);
    expect(result.staticReading.exact).toBe(true);
  });

  it('applies Export-ModuleMember in a dot-sourced file to the module, as PowerShell does', async () => {
    const result = await readPowerShellModule({ path: fixture('FileExports/FileExports.psm1') });
    expect(result.tools.map((tool) => tool.originalName)).toEqual(['Get-FEItem']);
    expect(result.staticReading.exact).toBe(true);
  });

  it('keeps test files out when the module filters them with Where-Object', async () => {
    const result = await readPowerShellModule({
      path: fixture('FilteredFolders/FilteredFolders.psm1'),
    });
    expect(result.tools.map((tool) => tool.originalName)).toEqual([
      'Get-FFFunction',
      'Get-FFPublic',
    ]);
    expect(result.staticReading.exact).toBe(true);
  });

  it('follows a helper function that dot-sources its -Path, only where the call itself is dot-sourced', async () => {
    const result = await readPowerShellModule({
      path: fixture('HelperDotSource/HelperDotSource.psm1'),
    });
    // Get-HDLost is loaded by a call without the dot: it lives and dies in the helper's scope.
    expect(result.tools.map((tool) => tool.originalName).sort()).toEqual([
      'Get-HDOne',
      'Get-HDTwo',
      'Import-ModuleFile',
    ]);
    expect(problems(result)).toEqual([]);
    expect(result.staticReading.exact).toBe(true);
  });

  it('reads whole folder trees with -Recurse -Filter, and only the folders the module names', async () => {
    const result = await readPowerShellModule({
      path: fixture('RecurseFolders/RecurseFolders.psd1'),
    });
    expect(
      result.tools.map((tool) => [tool.originalName, tool.source.path.slice(modules.length)]),
    ).toEqual([
      ['Get-RFPublic', 'RecurseFolders/public/Get-RFPublic.ps1'],
      ['Get-RFShort', 'RecurseFolders/public/Get-RFShort.ps1'],
      ['Get-RFNested', 'RecurseFolders/public/nested/Get-RFNested.ps1'],
    ]);
    // Get-RFShort's helper `function Format-RFLine() { param(...) }` is valid PowerShell.
    expect(problems(result)).toEqual([]);
    expect(result.staticReading.exact).toBe(true);
  });

  it('refuses only the functions of a dot-sourced file that does not parse', async () => {
    const result = await readPowerShellModule({ path: fixture('BrokenFile/BrokenFile.psm1') });
    expect(names(result)).toEqual(['Get_BFGood']);
    const errors = result.diagnostics.filter((d) => d.severity === 'error');
    expect(errors.map((d) => [d.code, d.path.slice(modules.length), d.line])).toEqual([
      ['E_PARSE', 'BrokenFile/Public/Get-BFBroken.ps1', 6],
      ['E_PARSE', 'BrokenFile/Public/Get-BFBroken.ps1', 7],
    ]);
    expect(errors[0]?.message).toContain('Get-BFBroken is not served');
  });

  it('says which construct it could not follow, with its line, when the reading is not exact', async () => {
    const result = await readPowerShellModule({
      path: fixture('DynamicExport/DynamicExport.psm1'),
    });
    expect(result.staticReading).toEqual({
      exact: false,
      unresolved: [
        {
          path: fixture('DynamicExport/DynamicExport.psm1'),
          line: 20,
          construct: 'Export-ModuleMember -Function $names',
        },
      ],
    });
  });

  it('follows literal dot-sourced paths and warns about missing ones', async () => {
    const result = await describePowerShellModule({
      path: fixture('StaticDotSource/StaticDotSource.psm1'),
    });
    expect(result.tools.map((tool) => tool.originalName).sort()).toEqual([
      'Get-Local',
      'Get-Thing',
    ]);
    expect(problems(result)).toEqual([
      'warning W_DOT_SOURCE_MISSING StaticDotSource/StaticDotSource.psm1:2',
    ]);
  });

  it('refuses exports only known at run time when no manifest lists them', async () => {
    const result = await describePowerShellModule({
      path: fixture('DynamicExport/DynamicExport.psm1'),
    });
    expect(names(result)).toEqual(['Get_Listed']);
    const error = result.diagnostics.find((d) => d.code === 'E_DYNAMIC_EXPORTS');
    expect(error?.line).toBe(20);
    expect(error?.message).toContain('$names');
    expect(error?.hint).toContain('FunctionsToExport');
  });

  it('loads nested modules and .ps1 files, and skips installed ones', async () => {
    const result = await describePowerShellModule({ path: fixture('Nested/Nested.psd1') });
    expect(result.tools.map((tool) => tool.originalName)).toEqual([
      'Get-Root',
      'Get-Helper',
      'Get-More',
    ]);
    expect(problems(result)).toEqual(['info I_NESTED_MODULE_SKIPPED Nested/Nested.psd1:3']);
  });

  it('reads the legacy ModuleToProcess key', async () => {
    expect(names(await describePowerShellModule({ path: fixture('Legacy/Legacy.psd1') }))).toEqual([
      'Get_Old',
    ]);
  });

  it('exports nothing for FunctionsToExport = @(), and warns', async () => {
    const result = await describePowerShellModule({
      path: fixture('EmptyExports/EmptyExports.psd1'),
    });
    expect(result.tools).toEqual([]);
    expect(problems(result)).toEqual(['warning W_NO_FUNCTIONS EmptyExports/EmptyExports.psd1:']);
  });

  it('warns about a binary root module and still reads script modules next to it', async () => {
    const result = await describePowerShellModule({ path: fixture('Binary/Binary.psd1') });
    expect(names(result)).toEqual(['Get_Scripted']);
    expect(problems(result)).toEqual(['warning W_BINARY_MODULE Binary/Binary.psd1:2']);
  });

  it('refuses each bad function on its own', async () => {
    const result = await describePowerShellModule({
      path: fixture('BrokenFunction/BrokenFunction.psm1'),
    });
    // Get-Sets has two parameter sets: a tool since several sets are read.
    // Get-NoParamHelp lacks a parameter description: built, and refused unless help is lenient.
    expect(names(applyHelpLeniency(result, false))).toEqual([
      'Get_Good',
      'Get_Sets',
      'Get_AlsoGood',
    ]);
    expect(problems(result)).toEqual([
      'error E_PARAMETER_NO_DESCRIPTION BrokenFunction/BrokenFunction.psm1:31',
    ]);
  });

  it('reports a missing root module', async () => {
    const result = await describePowerShellModule({
      path: fixture('MissingRoot/MissingRoot.psd1'),
    });
    expect(result.tools).toEqual([]);
    expect(problems(result)).toEqual([
      'error E_ROOT_MODULE_MISSING MissingRoot/MissingRoot.psd1:2',
    ]);
    expect(result.diagnostics[0]?.message).toContain('DoesNotExist.psm1');
  });

  it('reports a manifest that does not parse or is not a hashtable', async () => {
    const bad = await describePowerShellModule({ path: fixture('BadManifest/BadManifest.psd1') });
    expect(bad.tools).toEqual([]);
    expect(bad.diagnostics.every((d) => d.severity === 'error' && d.code === 'E_PARSE')).toBe(true);
    const notHashtable = await describePowerShellModule({
      path: fixture('NotHashtable/NotHashtable.psd1'),
    });
    expect(problems(notHashtable)).toEqual(['error E_MANIFEST NotHashtable/NotHashtable.psd1:1']);
  });

  it('refuses a manifest without ModuleVersion, which Import-Module refuses', async () => {
    const result = await describePowerShellModule({ path: fixture('NoVersion/NoVersion.psd1') });
    expect(result.tools).toEqual([]);
    expect(problems(result)).toEqual(['error E_MANIFEST NoVersion/NoVersion.psd1:1']);
  });

  it('makes no tools of a module file PowerShell cannot parse', async () => {
    const result = await describePowerShellModule({ path: fixture('ParseError/ParseError.psm1') });
    expect(result.tools).toEqual([]);
    expect(result.diagnostics[0]).toMatchObject({ severity: 'error', code: 'E_PARSE', line: 10 });
  });

  it('reports a module file that does not exist', async () => {
    const result = await describePowerShellModule({ path: fixture('Nowhere/Nowhere.psm1') });
    expect(result.tools).toEqual([]);
    expect(result.diagnostics[0]?.code).toBe('E_MODULE_FILE');
    expect(result.diagnostics[0]?.message).toContain('does not exist');
  });

  it('throws for a path that is not a module file', async () => {
    const error = await describePowerShellModule({ path: 'x.ps1' }).catch((e: unknown) => e);
    expect(isToolpackError(error) && error.code).toBe('E_MODULE_PATH');
  });

  it('reads files through the given reader', async () => {
    const files: Record<string, string> = {
      '/virtual/V.psm1': 'function Get-V {\n  <#\n  .SYNOPSIS\n  Virtual.\n  #>\n  param()\n}\n',
    };
    const result = await describePowerShellModule({
      path: '/virtual/V.psm1',
      readFile: async (path) => {
        const content = files[path];
        if (content === undefined) throw Object.assign(new Error('missing'), { code: 'ENOENT' });
        return content;
      },
    });
    expect(names(result)).toEqual(['Get_V']);
  });
});

describe('parsePowerShellManifest', () => {
  it('reads the keys discovery needs', async () => {
    const path = fixture('WidgetTools/WidgetTools.psd1');
    const { manifest, diagnostics } = parsePowerShellManifest({
      path,
      content: await readFile(path, 'utf8'),
    });
    expect(diagnostics).toEqual([]);
    expect(manifest?.rootModule).toBe('WidgetTools.psm1');
    expect(manifest?.functionsToExport).toEqual([
      'Get-Widget',
      'Set-Widget',
      'Remove-Widget',
      'Find-*',
      'Test-Widget',
      'Get-Missing',
    ]);
    expect(manifest?.lines.functionstoexport).toBe(8);
  });

  it('accepts a single string, a comma list and $null', () => {
    const read = (content: string) =>
      parsePowerShellManifest({ path: 'm.psd1', content }).manifest?.functionsToExport;
    expect(read("@{ FunctionsToExport = 'Get-*' }")).toEqual(['Get-*']);
    expect(read("@{ FunctionsToExport = 'a',\n  'b' }")).toEqual(['a', 'b']);
    expect(read('@{ FunctionsToExport = $null }')).toBeUndefined();
    expect(read('@{ }')).toBeUndefined();
  });

  it('refuses computed values for the keys it reads', () => {
    const { diagnostics } = parsePowerShellManifest({
      path: 'm.psd1',
      content: '@{\n  RootModule = "$PSScriptRoot/x.psm1"\n  ModuleVersion = \'1.0\'\n}',
    });
    expect(diagnostics).toMatchObject([{ severity: 'error', code: 'E_MANIFEST', line: 2 }]);
  });
});

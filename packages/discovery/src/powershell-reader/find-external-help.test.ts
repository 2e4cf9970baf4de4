import { execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { DiscoveredTool } from '@toolpack/core';
import { describe, expect, it } from 'vitest';
import { FileParseCache } from '../cache/file-parse-cache.ts';
import type { SourceResult } from '../types.ts';
import { describeEngineExports } from './describe-engine-exports.ts';
import { describePowerShellModule } from './describe-module.ts';
import { discoverPowerShellModule } from './discover-powershell-module.ts';
import { listHelpCultures, readUiCulture } from './find-external-help.ts';

const fixtures = fileURLToPath(new URL('./fixtures/', import.meta.url));
const external = `${fixtures}external-help/`;

function byName(result: SourceResult): Map<string, DiscoveredTool> {
  return new Map(result.tools.map((tool) => [tool.originalName, tool]));
}

function errorsOf(result: SourceResult, name: string): string[] {
  return result.diagnostics
    .filter((d) => d.severity === 'error' && d.message.includes(`function ${name} `))
    .map((d) => d.code);
}

/** The functions served: a tool and no error (a tool with undescribed parameters carries an error). */
function served(result: SourceResult): string[] {
  return result.tools
    .map((tool) => tool.originalName)
    .filter((name) => errorsOf(result, name).length === 0)
    .sort();
}

function propertyDescription(tool: DiscoveredTool | undefined, name: string): unknown {
  return (tool?.inputSchema.properties as Record<string, { description?: string }> | undefined)?.[
    name
  ]?.description;
}

describe('readUiCulture', () => {
  // Each as pwsh 7.6.9 reports [cultureinfo]::CurrentUICulture under that environment.
  it.each([
    [{ LANG: 'C.UTF-8' }, ''],
    [{ LANG: 'POSIX' }, ''],
    [{}, ''],
    [{ LANG: 'de_DE.UTF-8' }, 'de-DE'],
    [{ LANG: 'en' }, 'en'],
    [{ LC_ALL: 'de_DE.UTF-8', LANG: 'fr_FR' }, 'de-DE'],
    [{ LC_MESSAGES: 'de_DE', LANG: 'fr_FR' }, 'de-DE'],
    // ICU takes a set but empty LC_ALL as the C locale.
    [{ LC_ALL: '', LANG: 'fr_FR.UTF-8' }, ''],
  ])('reads %j as %j', (env, culture) => {
    expect(readUiCulture(env, 'linux')).toBe(culture);
  });

  it("takes Windows' user locale, not the locale variables, on Windows", () => {
    expect(readUiCulture({ LANG: 'de_DE.UTF-8' }, 'win32')).toBe(readUiCulture({}, 'win32'));
  });
});

describe('listHelpCultures', () => {
  it('tries the culture, its parents, the folder itself, then en-US and en', () => {
    expect(listHelpCultures('de-DE')).toEqual(['de-DE', 'de', '', 'en-US', 'en']);
    expect(listHelpCultures('en-US')).toEqual(['en-US', 'en', '']);
    expect(listHelpCultures('')).toEqual(['', 'en-US', 'en']);
  });
});

describe('external help of a module', () => {
  it('gives each function the help Get-Help gives it (MamlWidgets, invariant culture)', async () => {
    const result = await describePowerShellModule({
      path: `${external}MamlWidgets/MamlWidgets.psd1`,
      uiCulture: '',
    });
    const tools = byName(result);
    expect(tools.get('Get-Widget')?.description).toBe(
      'Gets a widget by its name.\n\nReturns the widget with the given name from the store.\n\nIts colour is red unless -Color says otherwise & the store keeps it.',
    );
    expect(propertyDescription(tools.get('Get-Widget'), 'Name')).toBe("The widget's name.");
    expect(tools.get('Set-Widget')?.description).toMatch(/from the comment-based help, which wins/);
    expect(tools.get('Remove-Widget')?.description).toMatch(/from Other-help\.xml/);
    expect(propertyDescription(tools.get('Remove-Widget'), 'Name')).toBe(
      "The widget's name, from Other-help.xml.",
    );
    expect(tools.get('Copy-Widget')?.description).toMatch(/from the comment-based help/);
    expect(tools.get('Add-Widget')?.description).toMatch(/from the module's help file/);
    expect(tools.get('Test-Widget')?.description).toMatch(/from the module's help file/);
    expect(tools.get('Find-Widget')?.description).toMatch(/three comment tokens/);
    expect(tools.get('Rename-Widget')?.description).toMatch(/^Renames a widget/);
    expect(tools.get('Get-Thing')?.description).toMatch(/from Thing-help\.xml/);
    expect(tools.get('Get-Gadget')?.description).toMatch(/Gadgets\.psm1-help\.xml/);
    expect(errorsOf(result, 'Clear-Widget')).toContain('E_NO_DESCRIPTION');
    // Described in the help file except -Size: its comment does not count then, as in Get-Help.
    expect(errorsOf(result, 'Measure-Widget')).toEqual(['E_PARAMETER_NO_DESCRIPTION']);
    const size = result.diagnostics.find((d) => d.message.includes('$Size'));
    expect(size?.message).toContain('MamlWidgets-help.xml, which does not describe it');
    expect(served(result)).toHaveLength(10);
  });

  it('reads hints, opt-ins and examples from the help file, and points at it', async () => {
    const result = await describePowerShellModule({
      path: `${external}MamlWidgets/MamlWidgets.psd1`,
      uiCulture: '',
    });
    const widget = byName(result).get('Get-Widget');
    expect(widget?.annotations).toEqual({ readOnlyHint: true });
    expect(widget?.inputExamples).toEqual([
      { arguments: { Name: 'gear' }, description: 'Gets the widget named gear.' },
    ]);
    const ignored = result.diagnostics.find((d) => d.code === 'W_EXAMPLE_IGNORED');
    expect(ignored?.path).toBe(`${external}MamlWidgets/en-US/MamlWidgets-help.xml`);
    expect(ignored?.line).toBeGreaterThan(1);
  });

  it('prefers the UI culture, and reads only the first help file it finds', async () => {
    const german = await describePowerShellModule({
      path: `${external}MamlWidgets/MamlWidgets.psd1`,
      uiCulture: 'de-DE',
    });
    expect(byName(german).get('Get-Widget')?.description).toMatch(/^Holt ein Widget/);
    // de-DE/MamlWidgets-help.xml has no entry for it, and PowerShell does not go on to en-US.
    expect(errorsOf(german, 'Add-Widget')).toContain('E_NO_DESCRIPTION');
    // Thing-help.xml has no de-DE folder: en-US is the fallback.
    expect(byName(german).get('Get-Thing')?.description).toMatch(/from Thing-help\.xml/);

    const plain = `${external}PlainWidgets/PlainWidgets.psm1`;
    const description = async (uiCulture: string): Promise<string | undefined> =>
      (await describePowerShellModule({ path: plain, uiCulture })).tools[0]?.description;
    expect(await description('')).toMatch(/module's own folder/);
    expect(await description('en-US')).toMatch(/from en-US/);
    expect(await description('fr-FR')).toMatch(/module's own folder/);
  });

  it('reports a help file Get-Help cannot load, and reads no help from it', async () => {
    const result = await describePowerShellModule({
      path: `${external}BrokenHelp/BrokenHelp.psm1`,
      uiCulture: '',
    });
    expect(served(result)).toEqual([]);
    const warning = result.diagnostics.find((d) => d.code === 'W_EXTERNAL_HELP');
    expect(warning?.path).toBe(`${external}BrokenHelp/en-US/BrokenHelp-help.xml`);
    expect(warning?.message).toMatch(/not well-formed XML/);
    expect(errorsOf(result, 'Get-BrokenWidget')).toContain('E_NO_DESCRIPTION');
  });

  it('lists ImportExcel functions that only its platyPS help describes', async () => {
    const result = await describePowerShellModule({
      path: `${external}ImportExcel/ImportExcel.psd1`,
      uiCulture: '',
    });
    expect(served(result)).toEqual(['Get-ExcelSheetInfo', 'Remove-Worksheet']);
    // Its help leaves -UseMsSqlSyntax and -SingleQuoteStyle undescribed; Get-Help shows none either.
    expect(errorsOf(result, 'ConvertFrom-ExcelToSQLInsert')).toEqual([
      'E_PARAMETER_NO_DESCRIPTION',
      'E_PARAMETER_NO_DESCRIPTION',
    ]);
    expect(errorsOf(result, 'Get-ExcelColumnName')).toContain('E_NO_DESCRIPTION');
    const missing = result.diagnostics.find(
      (d) => d.code === 'E_NO_DESCRIPTION' && d.message.includes('Get-ExcelColumnName'),
    );
    expect(missing?.message).toContain(
      `Its external help (${external}ImportExcel/en/ImportExcel-help.xml) has no entry for Get-ExcelColumnName.`,
    );
  });

  it('describes the functions the engine reports with the same external help', async () => {
    // As discovery does when only pwsh can tell the exports: it says where each is defined.
    const modulePath = `${external}PlainWidgets/PlainWidgets.psm1`;
    const result = await describeEngineExports({
      modulePath,
      answer: {
        version: '7.6.9',
        exports: [{ name: 'Get-PlainWidget', file: modulePath, line: 2, kind: 'function' }],
        files: [modulePath],
      },
      unresolved: [],
      moduleDiagnostics: [],
      cwd: external,
    });
    expect(result.tools.map((tool) => tool.description)).toEqual([
      expect.stringMatching(/^Gets a plain widget \(from/),
    ]);
  });

  it('reads a module again when its help file or the UI culture changes', async () => {
    const scratch = mkdtempSync(join(tmpdir(), 'toolpack-external-help-'));
    const saved = process.env.LC_ALL;
    try {
      const folder = join(scratch, 'PlainWidgets');
      cpSync(`${external}PlainWidgets`, folder, { recursive: true });
      // Only the file in the module's own folder: every culture ends up there.
      rmSync(join(folder, 'en-US'), { recursive: true });
      const start = async (): Promise<{ description?: string; misses: number }> => {
        const cache = new FileParseCache({ dir: join(scratch, 'cache') });
        const result = await discoverPowerShellModule({
          path: join(folder, 'PlainWidgets.psm1'),
          cwd: scratch,
          cache,
          pwshPath: false,
        });
        await cache.flush();
        return { description: result.tools[0]?.description, misses: cache.stats.misses };
      };
      process.env.LC_ALL = 'C';
      // Two entries: the module's reading and its one function's description.
      expect(await start()).toEqual({
        description: expect.stringMatching(/own folder/),
        misses: 2,
      });
      expect((await start()).misses).toBe(0);
      const help = join(folder, 'PlainWidgets-help.xml');
      writeFileSync(
        help,
        readFileSync(help, 'utf8').replace('Gets a plain widget', 'Fetches a widget'),
      );
      expect(await start()).toEqual({
        description: expect.stringMatching(/^Fetches a widget/),
        misses: 2,
      });
      // The module is read again; its function finds the same help file (no de-DE folder), so
      // its description is the cached one.
      process.env.LC_ALL = 'de_DE.UTF-8';
      expect((await start()).misses).toBe(1);
    } finally {
      if (saved === undefined) delete process.env.LC_ALL;
      else process.env.LC_ALL = saved;
      rmSync(scratch, { recursive: true, force: true });
    }
  });

  it('loads the XML parser only for a module that has a help file', () => {
    const describeModule = new URL('./describe-module.ts', import.meta.url).href;
    const loadsParser = (path: string): boolean => {
      const script = `
        import { registerHooks } from 'node:module';
        let loaded = false;
        registerHooks({ resolve(specifier, context, next) {
          if (specifier === 'saxes') loaded = true;
          return next(specifier, context);
        } });
        const { describePowerShellModule } = await import(${JSON.stringify(describeModule)});
        await describePowerShellModule({ path: ${JSON.stringify(path)}, uiCulture: '' });
        process.stdout.write(String(loaded));`;
      const output = execFileSync(
        process.execPath,
        ['--conditions=@toolpack/source', '--input-type=module', '-e', script],
        { encoding: 'utf8' },
      );
      return output === 'true';
    };
    expect(loadsParser(`${fixtures}modules/WidgetTools/WidgetTools.psd1`)).toBe(false);
    expect(loadsParser(`${external}PlainWidgets/PlainWidgets.psm1`)).toBe(true);
  });
});

import {
  chmodSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { describeSandbox } from '@toolpack/containment';
import { LEAST_PERMISSIONS } from '@toolpack/core';
import { hasPwsh, PWSH_TEST_TAG } from '@toolpack/pwsh-probe';
import { FileParseCache } from '../cache/file-parse-cache.ts';
import { listModuleFiles } from '../cache/list-module-files.ts';
import { describePowerShellModule } from './describe-module.ts';
import { discoverPowerShellModule } from './discover-powershell-module.ts';
import { findPwsh } from './engine-exports.ts';

const fixtures = join(dirname(fileURLToPath(import.meta.url)), 'fixtures', 'modules');
const realPwsh = findPwsh();

let scratch: string;
const saved = process.env.TOOLPACK_SANDBOX;

beforeAll(() => {
  scratch = realpathSync(mkdtempSync(join(tmpdir(), 'toolpack-engine-exports-')));
});

afterEach(() => {
  if (saved === undefined) delete process.env.TOOLPACK_SANDBOX;
  else process.env.TOOLPACK_SANDBOX = saved;
});

afterAll(() => {
  rmSync(scratch, { recursive: true, force: true });
});

/** A copy of a fixture module in its own project folder, which a test may change. */
function copyFixture(name: string, project: string): string {
  const target = join(scratch, project, name);
  cpSync(join(fixtures, name), target, { recursive: true });
  return target;
}

/** A pwsh that counts its starts in a file, then runs the real one. */
function countingPwsh(folder: string): { path: string; starts: () => number } {
  const log = join(folder, 'pwsh-starts.log');
  const path = join(folder, 'pwsh');
  writeFileSync(path, `#!/bin/sh\necho started >> '${log}'\nexec '${realPwsh}' "$@"\n`);
  chmodSync(path, 0o755);
  return {
    path,
    starts: () => (existsSync(log) ? readFileSync(log, 'utf8').split('\n').length - 1 : 0),
  };
}

const codes = (diagnostics: ReadonlyArray<{ code: string }>) => diagnostics.map((d) => d.code);

describe('a module whose exports only the engine can tell', () => {
  it.skipIf(!hasPwsh)(
    `${PWSH_TEST_TAG} lists what pwsh exports, each described from its own definition`,
    async () => {
      const folder = copyFixture('EngineExports', 'engine');
      const { tools, diagnostics } = await discoverPowerShellModule({
        path: join(folder, 'EngineExports.psd1'),
        cwd: dirname(folder),
      });
      // pwsh exports Get-Widget, Set-Widget and Get-RuntimeWidget; the helper stays private.
      expect(tools.map((tool) => tool.name)).toEqual(['Get_Widget', 'Set_Widget']);
      expect(diagnostics.filter((d) => d.severity === 'error')).toEqual([
        expect.objectContaining({
          code: 'E_RUNTIME_FUNCTION',
          path: join(folder, 'EngineExports.psm1'),
          line: 11,
          message: expect.stringContaining('Get-RuntimeWidget'),
        }),
      ]);
      expect(codes(diagnostics)).toContain('I_ENGINE_EXPORTS');

      // The same functions read statically (literal dot-sources and exports) give the same tools.
      const literal = join(scratch, 'engine', 'Literal');
      mkdirSync(literal);
      cpSync(join(folder, 'Widgets'), join(literal, 'Widgets'), { recursive: true });
      writeFileSync(
        join(literal, 'Literal.psm1'),
        '. $PSScriptRoot/Widgets/Get-Widget.ps1\n. $PSScriptRoot/Widgets/Set-Widget.ps1\nExport-ModuleMember -Function Get-Widget, Set-Widget\n',
      );
      const statically = await describePowerShellModule({ path: join(literal, 'Literal.psm1') });
      const comparable = (list: typeof tools) =>
        list.map(({ name, description, inputSchema, annotations }) => ({
          name,
          description,
          inputSchema,
          annotations,
        }));
      expect(comparable(tools)).toEqual(comparable(statically.tools));
      expect(tools[1]).toMatchObject({
        source: { kind: 'ps-module', path: join(folder, 'Widgets', 'Set-Widget.ps1'), line: 1 },
        invocation: {
          runner: 'pwsh',
          mode: 'module',
          modulePath: join(folder, 'EngineExports.psd1'),
          functionName: 'Set-Widget',
        },
      });
    },
  );

  it.skipIf(!hasPwsh)(
    `${PWSH_TEST_TAG} asks pwsh once: a cached start starts none, a changed file starts it again`,
    async () => {
      const folder = copyFixture('EngineExports', 'cached');
      const pwsh = countingPwsh(join(scratch, 'cached'));
      const cacheDir = join(scratch, 'cached', '.toolpack', 'cache');
      const start = async () => {
        const cache = new FileParseCache({ dir: cacheDir });
        const result = await discoverPowerShellModule({
          path: join(folder, 'EngineExports.psd1'),
          cwd: dirname(folder),
          cache,
          pwshPath: pwsh.path,
        });
        await cache.flush();
        return { ...result, stats: cache.stats };
      };

      const first = await start();
      expect(pwsh.starts()).toBe(1);
      expect(first.tools.map((tool) => tool.name)).toEqual(['Get_Widget', 'Set_Widget']);

      const second = await start();
      expect(pwsh.starts()).toBe(1);
      expect(second.stats).toEqual({ hits: 2, misses: 0 });
      expect(second.tools).toEqual(first.tools);
      expect(second.diagnostics).toEqual(first.diagnostics);

      // A new exported function in a file the module finds at run time.
      writeFileSync(
        join(folder, 'Widgets', 'Remove-Widget.ps1'),
        'function Remove-Widget {\n    <#\n    .SYNOPSIS\n    Removes a widget.\n    #>\n    param()\n}\n',
      );
      writeFileSync(
        join(folder, 'EngineExports.psm1'),
        readFileSync(join(folder, 'EngineExports.psm1'), 'utf8').replace(
          "'Get-Widget,Set-Widget,",
          "'Get-Widget,Set-Widget,Remove-Widget,",
        ),
      );
      const third = await start();
      expect(pwsh.starts()).toBe(2);
      expect(third.tools.map((tool) => tool.name)).toEqual([
        'Get_Widget',
        'Remove_Widget',
        'Set_Widget',
      ]);
    },
  );

  /** Exports one function by name and the others by a list it reads when imported. */
  const writeListedModule = (project: string): string => {
    const folder = join(scratch, project, 'Listed');
    mkdirSync(folder, { recursive: true });
    const define = (name: string) =>
      `function ${name} {\n    <#\n    .SYNOPSIS\n    Runs ${name}.\n    #>\n    param()\n}\n`;
    writeFileSync(
      join(folder, 'Listed.psm1'),
      `${define('Get-Listed')}${define('Get-Computed')}${define('Get-Private')}` +
        'Export-ModuleMember -Function Get-Listed\n' +
        'Export-ModuleMember -Function ([System.IO.File]::ReadAllLines("$PSScriptRoot/exports.txt"))\n',
    );
    writeFileSync(join(folder, 'exports.txt'), 'Get-Computed\n');
    return join(folder, 'Listed.psm1');
  };

  it('lists what its files show, and says per construct that pwsh is needed, where there is none', async () => {
    const path = writeListedModule('no-pwsh');
    const { tools, diagnostics } = await discoverPowerShellModule({
      path,
      cwd: dirname(path),
      pwshPath: false,
    });
    expect(tools.map((tool) => tool.name)).toEqual(['Get_Listed']);
    expect(diagnostics.filter((d) => d.severity === 'error')).toEqual([
      expect.objectContaining({
        code: 'E_MODULE_NEEDS_PWSH',
        path,
        line: 23,
        message: expect.stringMatching(
          /ReadAllLines.*no PowerShell 7 \(pwsh\) was found.*only the 1 function\(s\) its files show are listed \(Get-Listed\)/,
        ),
        hint: expect.stringContaining('Install PowerShell 7'),
      }),
    ]);
    expect(codes(diagnostics)).not.toContain('E_DYNAMIC_EXPORTS');
  });

  it('says so once, per construct, when its files show no function at all', async () => {
    const folder = copyFixture('EngineExports', 'no-pwsh-none');
    const { tools, diagnostics } = await discoverPowerShellModule({
      path: join(folder, 'EngineExports.psd1'),
      cwd: dirname(folder),
      pwshPath: false,
    });
    expect(tools).toEqual([]);
    expect(diagnostics.filter((d) => d.severity === 'error')).toEqual([
      expect.objectContaining({
        code: 'E_MODULE_NEEDS_PWSH',
        line: 6,
        message: expect.stringContaining('none of its functions could be listed'),
      }),
      expect.objectContaining({ code: 'E_MODULE_NEEDS_PWSH', line: 14 }),
    ]);
  });

  it.skipIf(!hasPwsh)(
    `${PWSH_TEST_TAG} finds the function the static reading could not see, with pwsh`,
    async () => {
      const path = writeListedModule('with-pwsh');
      const { tools } = await discoverPowerShellModule({ path, cwd: dirname(path) });
      expect(tools.map((tool) => tool.name)).toEqual(['Get_Listed', 'Get_Computed']);
    },
  );

  it.skipIf(!hasPwsh)(
    `${PWSH_TEST_TAG} describes functions a module makes from its files' text from their one definition`,
    async () => {
      // PSFramework's template: a helper reads each file and runs it as a new script block,
      // so pwsh knows no file of the functions it makes.
      const folder = join(scratch, 'text', 'TextLoaded');
      mkdirSync(join(folder, 'functions'), { recursive: true });
      writeFileSync(
        join(folder, 'TextLoaded.psm1'),
        [
          'function Import-ModuleFile {',
          '    param([string] $Path)',
          '    $ExecutionContext.InvokeCommand.InvokeScript($false, ([scriptblock]::Create([System.IO.File]::ReadAllText($Path))), $null, $null)',
          '}',
          'foreach ($file in Get-ChildItem -Path "$PSScriptRoot/functions" -Filter *.ps1) { . Import-ModuleFile -Path $file.FullName }',
          'Export-ModuleMember -Function ((Get-ChildItem -Path "$PSScriptRoot/functions").BaseName | Where-Object { $_ -ne \'Get-Twice\' })',
          '',
        ].join('\n'),
      );
      const help = (synopsis: string) =>
        `    <#\n    .SYNOPSIS\n    ${synopsis}\n    .PARAMETER Name\n    The name.\n    #>\n    param([string] $Name)\n`;
      writeFileSync(
        join(folder, 'functions', 'Get-Loaded.ps1'),
        `function Get-Loaded {\n${help('Gets a loaded thing.')}    "loaded $Name"\n}\n`,
      );
      const { tools, diagnostics } = await discoverPowerShellModule({
        path: join(folder, 'TextLoaded.psm1'),
        cwd: dirname(folder),
      });
      expect(tools.map((tool) => [tool.name, tool.description, tool.source.line])).toEqual([
        ['Get_Loaded', 'Gets a loaded thing.', 1],
      ]);
      expect(diagnostics).not.toContainEqual(
        expect.objectContaining({ code: 'E_RUNTIME_FUNCTION' }),
      );
      expect(diagnostics).toContainEqual(
        expect.objectContaining({
          code: 'I_ENGINE_EXPORTS',
          message: expect.stringContaining(
            "makes 1 of its exported function(s) from its files' text",
          ),
        }),
      );

      // Two definitions of one name: which one pwsh ran cannot be told from the files.
      writeFileSync(
        join(folder, 'functions', 'Get-Loaded.Copy.ps1'),
        `function Get-Loaded {\n${help('Another.')}}\n`,
      );
      const twice = await discoverPowerShellModule({
        path: join(folder, 'TextLoaded.psm1'),
        cwd: dirname(folder),
      });
      expect(twice.tools).toEqual([]);
      expect(twice.diagnostics).toContainEqual(
        expect.objectContaining({
          code: 'E_RUNTIME_FUNCTION',
          message: expect.stringContaining('2 files of the module define a function of that name'),
        }),
      );
    },
  );

  it.skipIf(!hasPwsh)(
    `${PWSH_TEST_TAG} serves nothing of a module pwsh cannot import, with pwsh's message`,
    async () => {
      const folder = join(scratch, 'failing', 'Failing');
      mkdirSync(folder, { recursive: true });
      writeFileSync(
        join(folder, 'Failing.psm1'),
        'function Get-Thing {\n    <#\n    .SYNOPSIS\n    Gets a thing.\n    #>\n    param()\n}\nthrow \'no database is configured\'\nExport-ModuleMember -Function ([System.IO.File]::ReadAllLines("$PSScriptRoot/exports.txt"))\n',
      );
      const { tools, diagnostics } = await discoverPowerShellModule({
        path: join(folder, 'Failing.psm1'),
        cwd: dirname(folder),
      });
      expect(tools).toEqual([]);
      expect(diagnostics).toContainEqual(
        expect.objectContaining({
          severity: 'error',
          code: 'E_MODULE_IMPORT',
          message: expect.stringMatching(/no database is configured \(at .*Failing\.psm1:8\)/),
        }),
      );
    },
  );

  it.skipIf(!hasPwsh)(
    `${PWSH_TEST_TAG} warns when pwsh finds that the module exports nothing`,
    async () => {
      const folder = join(scratch, 'none', 'None');
      mkdirSync(folder, { recursive: true });
      writeFileSync(
        join(folder, 'None.psm1'),
        'function Get-Thing { param() }\nExport-ModuleMember -Function ([System.IO.File]::ReadAllLines("$PSScriptRoot/names.txt"))\n',
      );
      writeFileSync(join(folder, 'names.txt'), 'Get-Missing\n');
      const { tools, diagnostics } = await discoverPowerShellModule({
        path: join(folder, 'None.psm1'),
        cwd: dirname(folder),
      });
      expect(tools).toEqual([]);
      expect(diagnostics.filter((d) => d.severity !== 'info')).toEqual([
        expect.objectContaining({ severity: 'warning', code: 'W_NO_FUNCTIONS' }),
      ]);
    },
  );

  it('never starts pwsh for a module its files describe exactly', async () => {
    const pwsh = countingPwsh(mkdtempSync(join(scratch, 'exact-')));
    const { tools } = await discoverPowerShellModule({
      path: join(fixtures, 'WidgetTools', 'WidgetTools.psd1'),
      cwd: fixtures,
      pwshPath: pwsh.path,
    });
    expect(tools.length).toBeGreaterThan(0);
    expect(pwsh.starts()).toBe(0);
  });

  it('does not import a pack module at all where the sandbox is required and cannot be had', async () => {
    process.env.TOOLPACK_SANDBOX = 'off';
    const folder = copyFixture('EngineExports', 'pack');
    const pwsh = countingPwsh(join(scratch, 'pack'));
    const { tools, diagnostics } = await discoverPowerShellModule({
      path: join(folder, 'EngineExports.psd1'),
      cwd: dirname(folder),
      pwshPath: pwsh.path,
      sandbox: { root: 'EngineExports', permissions: LEAST_PERMISSIONS },
      requireSandbox: true,
    });
    expect(pwsh.starts()).toBe(0);
    expect(tools).toEqual([]);
    expect(diagnostics[0]).toMatchObject({
      severity: 'error',
      code: 'E_SANDBOX_REQUIRED',
      message: expect.stringContaining('TOOLPACK_SANDBOX=off'),
    });
  });
});

// A pack module whose import reaches for a key outside its folder and a token its pack never
// declared, and exports functions named after what it got (and after the two variables every
// importing pwsh is given: no diagnostics pipe, no telemetry).
const PROBE_PSM1 = `. $PSScriptRoot/Probe.ps1
$key = 'Refused'
try { if ([System.IO.File]::ReadAllText($env:KEY_FILE).Trim() -eq 'PRIVATE-KEY') { $key = 'Read' } } catch { }
$token = if ($env:LISTING_TOKEN) { 'Set' } else { 'Unset' }
Export-ModuleMember -Function "Get-Key$key", "Get-Token$token", "Get-Env$($env:DOTNET_EnableDiagnostics)$($env:POWERSHELL_TELEMETRY_OPTOUT)"
`;

describe("a confined module's import, run to learn its exports", () => {
  let project: string;
  const module = '.toolpack/packs/probe/Probe.psm1';
  const sandbox = {
    root: '.toolpack/packs/probe',
    permissions: { ...LEAST_PERMISSIONS, env: ['KEY_FILE'] },
  };

  beforeAll(() => {
    project = join(scratch, 'confined');
    const pack = join(project, '.toolpack', 'packs', 'probe');
    mkdirSync(pack, { recursive: true });
    writeFileSync(join(pack, 'Probe.psm1'), PROBE_PSM1);
    writeFileSync(
      join(pack, 'Probe.ps1'),
      ['Get-Env01', 'Get-KeyRead', 'Get-KeyRefused', 'Get-TokenSet', 'Get-TokenUnset']
        .map(
          (name) =>
            `function ${name} {\n    <#\n    .SYNOPSIS\n    Says ${name}.\n    #>\n    param()\n}\n`,
        )
        .join(''),
    );
    const keyFile = join(scratch, 'home', '.ssh', 'id_ed25519');
    mkdirSync(dirname(keyFile), { recursive: true });
    writeFileSync(keyFile, 'PRIVATE-KEY\n', { mode: 0o600 });
    process.env.KEY_FILE = keyFile;
    process.env.LISTING_TOKEN = 'server-token';
  });

  afterAll(() => {
    delete process.env.KEY_FILE;
    delete process.env.LISTING_TOKEN;
  });

  const list = async (options: { sandbox?: typeof sandbox }) => {
    const { tools, diagnostics } = await discoverPowerShellModule({
      path: module,
      cwd: project,
      envAllowList: ['KEY_FILE', 'LISTING_TOKEN'],
      ...options,
    });
    expect(diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
    return tools.map((tool) => tool.name);
  };

  it.skipIf(!hasPwsh)(
    `${PWSH_TEST_TAG} reaches the key and the token when it is not confined (what the sandbox must stop)`,
    async () => {
      expect(await list({})).toEqual(['Get_Env01', 'Get_KeyRead', 'Get_TokenSet']);
    },
  );

  it.skipIf(!hasPwsh || !describeSandbox().available)(
    `${PWSH_TEST_TAG} reaches neither in the sandbox: only its own folder and its declared names [needs bubblewrap]`,
    async () => {
      expect(await list({ sandbox })).toEqual(['Get_Env01', 'Get_KeyRefused', 'Get_TokenUnset']);
    },
  );

  it.skipIf(!hasPwsh)(
    `${PWSH_TEST_TAG} gets only its declared names even where the sandbox cannot be had`,
    async () => {
      process.env.TOOLPACK_SANDBOX = 'off';
      expect(await list({ sandbox })).toEqual(['Get_Env01', 'Get_KeyRead', 'Get_TokenUnset']);
    },
  );
});

describe('a cached start of a module', () => {
  it('parses nothing when no file changed, and describes again only the functions of a changed file', async () => {
    const folder = copyFixture('DotSourced', 'static-cache');
    const cacheDir = join(scratch, 'static-cache', '.toolpack', 'cache');
    const start = async () => {
      const cache = new FileParseCache({ dir: cacheDir });
      const result = await discoverPowerShellModule({
        path: join(folder, 'DotSourced.psd1'),
        cwd: dirname(folder),
        cache,
        pwshPath: false,
      });
      await cache.flush();
      return { ...result, stats: { ...cache.stats } };
    };
    // The module's reading, and each of its two functions (one file each).
    const first = await start();
    expect(first.tools.map((tool) => tool.name)).toEqual(['Get_Public', 'Set_Public']);
    expect(first.stats).toEqual({ hits: 0, misses: 3 });
    const second = await start();
    expect(second.stats).toEqual({ hits: 1, misses: 0 });
    expect(second.tools).toEqual(first.tools);

    const changed = join(folder, 'Public', 'Set-Public.ps1');
    writeFileSync(
      changed,
      readFileSync(changed, 'utf8').replace(/\.SYNOPSIS\s*\n(\s*)/, '.SYNOPSIS\n$1Changed: '),
    );
    const third = await start();
    // The module is read again; Get-Public's description comes from the cache.
    expect(third.stats).toEqual({ hits: 1, misses: 2 });
    expect(third.tools[0]).toEqual(first.tools[0]);
    expect(third.tools[1]?.description).toMatch(/^Changed: /);
  });

  it('is keyed by every PowerShell file and help file of the module folder, at any depth', () => {
    const folder = join(scratch, 'listing', 'Mod');
    for (const file of [
      'Mod.psd1',
      'Mod.psm1',
      'Public/deep/Get-A.ps1',
      'Private/Get-B.PS1',
      'en-US/Mod-help.xml',
      'de/About.maml',
      'data.xml',
      'notes.txt',
      '.git/hook.ps1',
      'node_modules/x/y.ps1',
    ]) {
      mkdirSync(dirname(join(folder, file)), { recursive: true });
      writeFileSync(join(folder, file), '');
    }
    expect(listModuleFiles(folder)?.map((file) => file.slice(folder.length + 1))).toEqual([
      'Mod.psd1',
      'Mod.psm1',
      'Private/Get-B.PS1',
      'Public/deep/Get-A.ps1',
      'de/About.maml',
      'en-US/Mod-help.xml',
    ]);
  });
});

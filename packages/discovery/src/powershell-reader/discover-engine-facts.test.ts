import { spawnSync } from 'node:child_process';
import {
  chmodSync,
  cpSync,
  existsSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hasPwsh, PWSH_TEST_TAG } from '@toolpack/pwsh-probe';
import { FileParseCache } from '../cache/file-parse-cache.ts';
import { discoverPowerShellModule } from './discover-powershell-module.ts';
import { findPwsh } from './engine-exports.ts';

const fixture = join(
  dirname(fileURLToPath(import.meta.url)),
  'fixtures',
  'modules',
  'DynamicParameters',
);
const realPwsh = findPwsh();
let scratch: string;

beforeAll(() => {
  scratch = realpathSync(mkdtempSync(join(tmpdir(), 'toolpack-engine-facts-')));
});

afterAll(() => {
  rmSync(scratch, { recursive: true, force: true });
});

/** The fixture in its own project folder, with Gears.dll compiled from Gears.cs by the real pwsh. */
function copyFixture(project: string, source = readFileSync(join(fixture, 'Gears.cs'), 'utf8')) {
  const folder = join(scratch, project, 'DynamicParameters');
  cpSync(fixture, folder, { recursive: true });
  compileGears(folder, source);
  return folder;
}

function compileGears(folder: string, source: string): void {
  writeFileSync(join(folder, 'Gears.cs'), source);
  rmSync(join(folder, 'Gears.dll'), { force: true });
  const compiled = spawnSync(
    realPwsh!,
    ['-NoProfile', '-Command', 'Add-Type -Path ./Gears.cs -OutputAssembly ./Gears.dll'],
    { cwd: folder, encoding: 'utf8' },
  );
  expect(compiled.stderr).toBe('');
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

describe.skipIf(!hasPwsh)('a module whose files do not tell all of a function', () => {
  it(`${PWSH_TEST_TAG} gets its dynamic parameters and compiled enums from pwsh, once`, async () => {
    const folder = copyFixture('cached');
    const pwsh = countingPwsh(join(scratch, 'cached'));
    const cacheDir = join(scratch, 'cached', '.toolpack', 'cache');
    const start = async () => {
      const cache = new FileParseCache({ dir: cacheDir });
      const result = await discoverPowerShellModule({
        path: join(folder, 'DynamicParameters.psd1'),
        cwd: dirname(folder),
        cache,
        pwshPath: pwsh.path,
      });
      await cache.flush();
      return { ...result, stats: cache.stats };
    };

    const first = await start();
    expect(pwsh.starts()).toBe(1);
    // Set-GearShape's block declares Corners only for -Shape Square: pwsh, asked with no
    // arguments, declares none, and the listing says so.
    expect(first.diagnostics.filter((d) => d.severity !== 'info')).toEqual([
      expect.objectContaining({
        code: 'W_DYNAMIC_PARAMETERS',
        path: join(folder, 'DynamicParameters.psm1'),
        line: 53,
        message: expect.stringContaining('reads $Shape'),
      }),
    ]);
    expect(Object.keys(first.tools[1]?.inputSchema.properties ?? {})).toEqual(['Shape']);
    expect(first.diagnostics[0]).toMatchObject({
      code: 'I_ENGINE_FACTS',
      message: expect.stringContaining('the dynamic parameters of Invoke-Gear'),
    });
    const [tool] = first.tools;
    const properties = tool?.inputSchema.properties ?? {};
    expect(Object.keys(properties)).toEqual(['Name', 'Mode', 'Coating', 'Speed', 'Finish']);
    expect(properties.Speed).toMatchObject({ type: 'integer', minimum: 1, maximum: 10 });
    expect(properties.Finish).toMatchObject({ enum: ['Matte', "Smith's gloss"] });
    expect(properties.Mode).toMatchObject({ enum: ['Slow', 'Fast', 'Reverse'] });
    expect(new RegExp(properties.Coating?.pattern as string, 'u').test('Oil, wax')).toBe(true);
    expect(tool?.inputSchema.required).toEqual(['Name', 'Speed']);

    // Nothing changed: no pwsh, the same tools.
    const second = await start();
    expect(pwsh.starts()).toBe(1);
    expect(second.stats.misses).toBe(0);
    expect(second.tools).toEqual(first.tools);
    expect(second.diagnostics).toEqual(first.diagnostics);

    // A new build of the module's assembly, with one more mode: asked again.
    compileGears(
      folder,
      readFileSync(join(fixture, 'Gears.cs'), 'utf8').replace('Reverse }', 'Reverse, Idle }'),
    );
    const third = await start();
    expect(pwsh.starts()).toBe(2);
    expect(third.tools[0]?.inputSchema.properties?.Mode).toMatchObject({
      enum: ['Slow', 'Fast', 'Reverse', 'Idle'],
    });
  });

  it(`${PWSH_TEST_TAG} without pwsh, is served without its dynamic parameters, with a warning where they are declared`, async () => {
    const folder = copyFixture('no-pwsh');
    const { tools, diagnostics } = await discoverPowerShellModule({
      path: join(folder, 'DynamicParameters.psd1'),
      cwd: dirname(folder),
      pwshPath: false,
    });
    expect(diagnostics.filter((d) => d.severity !== 'info')).toEqual(
      [22, 53].map((line) =>
        expect.objectContaining({
          code: 'W_DYNAMIC_PARAMETERS',
          path: join(folder, 'DynamicParameters.psm1'),
          line,
          message: expect.stringContaining('no PowerShell 7 (pwsh) was found'),
        }),
      ),
    );
    const properties = tools[0]?.inputSchema.properties ?? {};
    expect(Object.keys(properties)).toEqual(['Name', 'Mode', 'Coating']);
    expect(properties.Mode?.enum).toBeUndefined();
  });
});

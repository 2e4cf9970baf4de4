// The dead ends a newcomer met (issue 33, items 5, 6 and 8), walked as they met them: the
// `mcp` that scripts/install-mcp.sh installs, run in a NEW bash that has only HOME and a
// plain PATH (no pwsh on it), in a project of their own, with the official packs as a
// folder registry. Each step asserts what the user reads: where the mistake is, what was
// probably meant, and what to do next.
import { spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const root = path.resolve(import.meta.dirname, '../..');
const officialPacks = path.join(root, 'registry', 'packs');
const posix = process.platform !== 'win32';
// The bare shell's PATH is the system's: a machine with pwsh there cannot show its absence.
const systemPwsh = ['/usr/bin/pwsh', '/bin/pwsh'].some((file) => existsSync(file));

let work = '';
let prefix = '';
let home = '';
let project = '';
let installed: SpawnSyncReturns<string>;

/** `command` in a new bash in the project: HOME, the install's bin and the system PATH only. */
function inNewShell(
  command: string,
  env: Record<string, string> = {},
): { code: number | null; stdout: string; stderr: string } {
  const result = spawnSync(
    'env',
    [
      '-i',
      `HOME=${home}`,
      `PATH=${prefix}/bin:/usr/bin:/bin`,
      `TOOLPACK_REGISTRY=${officialPacks}`,
      ...Object.entries(env).map(([name, value]) => `${name}=${value}`),
      'bash',
      '--norc',
      '--noprofile',
      '-c',
      command,
    ],
    { cwd: project, encoding: 'utf8', timeout: 90_000 },
  );
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

/** A loopback port nothing listens on: where a registry that was never started would be. */
async function findClosedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}

const writeProjectFile = (name: string, text: string) =>
  writeFileSync(path.join(project, name), text);

beforeAll(() => {
  if (!posix) return;
  work = mkdtempSync(path.join(os.tmpdir(), 'toolpack-dead-ends-'));
  home = path.join(work, 'home');
  prefix = path.join(work, 'prefix');
  project = path.join(home, 'project');
  mkdirSync(path.join(project, 'scripts'), { recursive: true });
  writeFileSync(
    path.join(project, 'scripts', 'word_count.sh'),
    '#!/usr/bin/env bash\n# DESCRIPTION "Counts the words of a text."\n# PARAM text AS string DESCRIPTION "The text."\nwc -w\n',
    { mode: 0o755 },
  );
  const { NODE_OPTIONS: _ignored, ...env } = process.env;
  installed = spawnSync('bash', [path.join(root, 'scripts/install-mcp.sh'), '--prefix', prefix], {
    cwd: work,
    encoding: 'utf8',
    env,
    timeout: 280_000,
  });
}, 300_000);

afterAll(() => {
  if (work !== '') rmSync(work, { recursive: true, force: true });
});

describe.skipIf(!posix)('a newcomer’s dead ends, in a new bash [needs a POSIX shell]', () => {
  it('installs mcp with scripts/install-mcp.sh', () => {
    expect(installed.status, installed.stderr).toBe(0);
  });

  it('serve --pack with a misspelt name suggests the pack and the command to run', () => {
    const served = inNewShell('mcp serve --pack jsn </dev/null');
    expect(served.code).toBe(1);
    expect(served.stderr).toContain(`error No pack named jsn in the registry folder`);
    expect(served.stderr).toContain('hint: Did you mean json? mcp serve --pack json\n');
  });

  it('a source folder that does not exist is named at its line with the folder it meant', () => {
    writeProjectFile('toolpack.yaml', '# my tools\nsources:\n  - scripts: scrpts\n');
    const told =
      `error ${path.join(project, 'toolpack.yaml')}:3: Script root scrpts does not exist.\n` +
      'hint: Did you mean scripts (the nearest existing folder)? Point --script-root (or `scripts:` in toolpack.yaml) at a folder of scripts.\n';
    // Every command that reads the project stops at the same line with the same fix.
    for (const command of ['mcp check', 'mcp list', 'mcp serve </dev/null']) {
      const result = inNewShell(command);
      expect([command, result.code, result.stderr]).toEqual([command, 2, told]);
    }
    writeProjectFile('toolpack.yaml', '# my tools\nsources:\n  - scripts: scripts\n');
    expect(inNewShell('mcp list').stdout).toMatch(/\bword_count\b/);
  });

  it('a misspelt key of a source is suggested at its line', () => {
    writeProjectFile('toolpack.yaml', 'sources:\n  - script: scripts\n');
    const checked = inNewShell('mcp check');
    expect(checked.code).toBe(1);
    expect(checked.stdout).toMatch(
      /^toolpack\.yaml:2: error E_MANIFEST_FIELD: sources\.0: unknown key "script".*\n {2}fix: Did you mean scripts:\? /m,
    );
  });

  it('after a module fails to import, E_NO_TOOLS points at the import, not at paths and patterns', () => {
    writeProjectFile('tools.mjs', "throw new Error('the API key is missing');\n");
    writeProjectFile('toolpack.yaml', 'sources:\n  - module: tools.mjs\n');
    const checked = inNewShell('mcp check');
    expect(checked.code).toBe(1);
    expect(checked.stdout).toContain(
      'tools.mjs: error E_MODULE_LOAD: Importing tools.mjs failed: the API key is missing',
    );
    expect(checked.stdout).toContain(
      'toolpack.yaml: error E_NO_TOOLS: The sources give no tool: a client would get only the built-in tools.\n' +
        '  fix: tools.mjs could not be imported (E_MODULE_LOAD above), so it gave no tool: fix that error first.\n',
    );
    expect(checked.stdout).not.toMatch(/include:\/exclude:/);
    writeProjectFile('toolpack.yaml', 'sources:\n  - scripts: scripts\n');
  });

  it.skipIf(systemPwsh)(
    'pack add sysinfo without pwsh warns at install; list, list --json and serve keep saying it [needs no pwsh in /usr/bin]',
    () => {
      const added = inNewShell('mcp pack add sysinfo --yes');
      expect(added.code, added.stderr).toBe(0);
      expect(added.stdout).toMatch(/^added sysinfo@\d+\.\d+\.\d+ /);
      const tools = [
        'sysinfo_Get_CpuInfo',
        'sysinfo_Get_DiskInfo',
        'sysinfo_Get_MemoryInfo',
        'sysinfo_Get_OsInfo',
      ];
      expect(added.stderr).toContain(
        "warning 4 of sysinfo's 4 tools cannot run on this machine (mcp list and mcp serve keep saying so until it is fixed):\n" +
          `  PowerShell 7 (pwsh) is not on PATH: ${tools.join(', ')}\n`,
      );
      expect(added.stderr).toMatch(/^ {4}fix: Install PowerShell 7\.2\+ .*put pwsh on PATH\.$/m);

      const listed = inNewShell('mcp list');
      expect(listed.code, listed.stderr).toBe(0);
      expect(listed.stdout).toMatch(
        /^4 of \d+ tools cannot run on this machine \(the project is fine; the machine lacks something\):$/m,
      );
      expect(listed.stdout).toContain(
        `  PowerShell 7 (pwsh) is not on PATH: ${tools.join(', ')}\n`,
      );

      // Item 8: what the text shows, a script reading the JSON sees too.
      const json = inNewShell('mcp list --json');
      expect(json.code, json.stderr).toBe(0);
      const report = JSON.parse(json.stdout) as {
        tools: { name: string }[];
        cannotRunHere: { tool: string; path: string; reason: string; fix: string }[];
      };
      expect(report.tools.map((tool) => tool.name)).toEqual(expect.arrayContaining(tools));
      expect(report.cannotRunHere.map((entry) => entry.tool)).toEqual(tools);
      for (const entry of report.cannotRunHere) {
        expect(entry.path).toMatch(/^\.toolpack\/packs\/sysinfo\/scripts\/Get-\w+\.ps1$/);
        expect(entry.reason).toBe('PowerShell 7 (pwsh) is not on PATH');
        expect(entry.fix).toMatch(/^Install PowerShell 7\.2\+/);
      }

      const served = inNewShell('mcp serve </dev/null');
      expect(served.code, served.stderr).toBe(0);
      expect(served.stderr).toContain(
        `toolpack:   PowerShell 7 (pwsh) is not on PATH: ${tools.join(', ')}\n`,
      );
    },
  );

  it('pack search and doctor with no registry running say how to get one outside a clone', async () => {
    const port = await findClosedPort();
    const registry = `http://127.0.0.1:${port}`;
    const advice = `The gallery server is not part of the installed mcp: start it in a clone of Toolpack with pnpm registry --port ${port} (it serves the official packs on ${registry}), or use a folder of packs: --registry <folder> or TOOLPACK_REGISTRY=<folder> (each pack a subfolder with its toolpack.yaml).`;
    const searched = inNewShell('mcp pack search json', { TOOLPACK_REGISTRY: registry });
    expect(searched.code).toBe(1);
    expect(searched.stderr).toBe(
      `error Cannot reach the registry at ${registry}: ECONNREFUSED.\nhint: ${advice}\n`,
    );
    const doctor = inNewShell('mcp doctor --json', { TOOLPACK_REGISTRY: registry });
    const checks = (JSON.parse(doctor.stdout) as { checks: { name: string; hint?: string }[] })
      .checks;
    expect(checks.find((check) => check.name === 'registry')?.hint).toBe(advice);
    // The advice holds: a folder of packs is a registry for the installed mcp.
    const fromFolder = inNewShell(`mcp pack search json --registry '${officialPacks}'`);
    expect(fromFolder.code, fromFolder.stderr).toBe(0);
    expect(fromFolder.stdout).toMatch(/^json\s+\d+\.\d+\.\d+/m);
  });
});

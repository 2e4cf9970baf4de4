// The gallery as a PowerShell user meets it: the real `toolpack-registry serve` (seeded with the
// official packs), the real pwsh with PSResourceGet talking to its NuGet v3 and v2 endpoints,
// and the real `mcp` publishing a module pack and searching for what PowerShell published.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMcp } from '@toolpack/cli/testing';
import { PWSH_TEST_TAG } from '@toolpack/pwsh-probe';
import { repo } from '../system-helpers.ts';

const registryCli = path.join(repo, 'apps', 'registry', 'src', 'cli.ts');
const nugetFixtures = path.join(repo, 'apps', 'registry', 'src', 'nuget', 'fixtures');

/**
 * Why PSResourceGet cannot run here, or undefined. CI has the full pwsh 7.6.9 (with
 * PSResourceGet 1.2.0); the engine-only pwsh of some runs has no modules at all.
 */
function findPsResourceGetProblem(): string | undefined {
  const probe = spawnSync(
    'pwsh',
    [
      '-NoLogo',
      '-NoProfile',
      '-NonInteractive',
      '-Command',
      '(Get-Module -ListAvailable Microsoft.PowerShell.PSResourceGet | Select-Object -First 1).Version.ToString()',
    ],
    { encoding: 'utf8', timeout: 60_000 },
  );
  if (probe.error !== undefined) return 'pwsh is not installed (it is not on PATH)';
  if (probe.status !== 0 || probe.stdout.trim() === '')
    return 'this pwsh has no Microsoft.PowerShell.PSResourceGet module';
  return undefined;
}
const skipReason = findPsResourceGetProblem();

const temp = mkdtempSync(path.join(os.tmpdir(), 'toolpack-ps-gallery-'));
const home = path.join(temp, 'home');
const dataDir = path.join(temp, 'registry');

/** This process's environment with PowerShell's per-user state (repositories, modules) in `home`. */
function cleanEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    HOME: home,
    NO_COLOR: '1',
    TOOLPACK_CACHE_DIR: path.join(temp, 'cache'),
    POWERSHELL_TELEMETRY_OPTOUT: '1',
    POWERSHELL_UPDATECHECK: 'Off',
  };
  for (const name of Object.keys(env)) {
    if (name.startsWith('TOOLPACK_REGISTRY') || name.startsWith('XDG_')) delete env[name];
  }
  delete env.TOOLPACK_TOKEN;
  delete env.PSModulePath;
  return env;
}

interface PwshRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs a script in a fresh pwsh; its errors are written to stderr as plain text. Never
 * spawnSync: a blocked event loop would leave fetch a keep-alive socket the registry closed.
 */
function runPwsh(script: string): Promise<PwshRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      'pwsh',
      [
        '-NoLogo',
        '-NoProfile',
        '-NonInteractive',
        '-Command',
        `$PSStyle.OutputRendering = 'PlainText'; $ErrorActionPreference = 'Stop'; ${script}`,
      ],
      { cwd: temp, env: cleanEnv(), stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    const timer = setTimeout(() => child.kill('SIGKILL'), 120_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** What a script wrote, as one JSON document (`,@(...)` keeps a one-element array an array). */
async function runPwshJson<T>(script: string): Promise<T> {
  const run = await runPwsh(`${script} | ConvertTo-Json -Depth 5 -Compress`);
  expect(run.code, `${run.stderr}\n${run.stdout}`).toBe(0);
  return JSON.parse(run.stdout) as T;
}

let server: ChildProcess | undefined;
/** What the registry wrote to stderr, for failure messages. */
let serverLog = '';
let baseUrl: string;
let token: string;
let otherToken: string;

function createToken(owner: string): string {
  const created = spawnSync(
    process.execPath,
    [registryCli, 'token', 'create', '--owner', owner, '--data', dataDir],
    { cwd: temp, env: cleanEnv(), encoding: 'utf8', timeout: 60_000 },
  );
  expect(created.status, created.stderr).toBe(0);
  return created.stdout.trim();
}

describe.skipIf(skipReason !== undefined)(
  `PowerShell users and the gallery's NuGet endpoint ${PWSH_TEST_TAG}${skipReason === undefined ? '' : ` (skipped: ${skipReason})`}`,
  { timeout: 240_000 },
  () => {
    beforeAll(async () => {
      mkdirSync(home, { recursive: true });
      token = createToken('acme');
      otherToken = createToken('bob');
      server = spawn(
        process.execPath,
        [
          registryCli,
          'serve',
          '--port',
          '0',
          '--data',
          dataDir,
          '--seed',
          path.join(repo, 'registry', 'packs'),
          '--no-rate-limit',
        ],
        { cwd: temp, env: cleanEnv() },
      );
      server.stderr?.setEncoding('utf8');
      baseUrl = await new Promise<string>((resolve, reject) => {
        server!.stderr!.on('data', (chunk: string) => {
          serverLog += chunk;
          const url = /listening on (http:\/\/\S+)/.exec(serverLog)?.[1];
          if (url !== undefined) resolve(url);
        });
        server!.once('exit', (code) =>
          reject(new Error(`the registry exited (${code}):\n${serverLog}`)),
        );
      });
      for (let attempt = 0; attempt < 600; attempt += 1) {
        if ((await fetch(`${baseUrl}/health`)).status === 200) break;
        await delay(100);
      }
      // A module pack published the Toolpack way.
      const published = await startMcp(
        [
          'pack',
          'publish',
          path.join(nugetFixtures, 'packs', 'greetings'),
          '--registry',
          baseUrl,
          '--token',
          token,
        ],
        { cwd: temp, env: cleanEnv() },
      );
      expect(published.code, published.stderr).toBe(0);
      // v3 is NuGet's current protocol; PSResourceGet 1.2.0 answers -Tag and -Name wildcards
      // only from v2 feeds (the PowerShell Gallery's protocol), so both are registered.
      const registered = await runPwsh(
        `Register-PSResourceRepository -Name Toolpack -Uri '${baseUrl}/nuget/v3/index.json' -Trusted
         Register-PSResourceRepository -Name ToolpackV2 -Uri '${baseUrl}/nuget/v2' -Trusted`,
      );
      expect(registered.code, registered.stderr).toBe(0);
    }, 240_000);

    afterAll(async () => {
      if (server?.exitCode === null) {
        server.kill('SIGTERM');
        await new Promise((resolve) => server!.once('exit', resolve));
      }
      rmSync(temp, { recursive: true, force: true });
    });

    it('finds the official PowerShell pack and a published module pack by tag MCPTools', async () => {
      const found = await runPwshJson<{ Name: string; Version: string; Tags: string[] }[]>(
        `,@(Find-PSResource -Tag MCPTools -Repository ToolpackV2 | Select-Object Name, @{ n = 'Version'; e = { $_.Version.ToString() } }, Tags)`,
      );
      // Modules only: PSResourceGet asks for PSModule (or PSScript) with the tag.
      expect(found.map((entry) => entry.Name).sort()).toEqual(['Greetings', 'sysinfo']);
      for (const entry of found)
        expect(entry.Tags).toEqual(expect.arrayContaining(['PSModule', 'MCPTools']));
      expect(found.find((entry) => entry.Name === 'sysinfo')?.Version).toBe('1.1.1');
    });

    it('finds packs by name, with wildcards too; a pack that is no module says how to add it', async () => {
      const byWildcard = await runPwshJson<{ Name: string; Description: string }[]>(
        `,@(Find-PSResource -Name jira* -Repository ToolpackV2 | Select-Object Name, Description)`,
      );
      expect(byWildcard.map((entry) => entry.Name)).toEqual(['jira']);
      expect(byWildcard[0]?.Description).toMatch(
        /not a PowerShell module: install it with `mcp pack add jira`\.\nIt needs JIRA_BASE_URL, JIRA_EMAIL, JIRA_API_TOKEN/,
      );
      const byName = await runPwshJson<{ Name: string; Version: string; Tags: string[] }[]>(
        `,@(Find-PSResource -Name Greetings, jira -Repository Toolpack | Select-Object Name, @{ n = 'Version'; e = { $_.Version.ToString() } }, Tags)`,
      );
      expect(byName.find((entry) => entry.Name === 'Greetings')).toMatchObject({
        Version: '1.0.0',
      });
      expect(byName.find((entry) => entry.Name === 'jira')?.Tags).not.toContain('PSModule');
      for (const repository of ['Toolpack', 'ToolpackV2']) {
        const refused = await runPwsh(
          `Install-PSResource -Name jira -Repository ${repository} -TrustRepository`,
        );
        expect(refused.code).not.toBe(0);
        expect(refused.stderr).toContain(
          'jira is not a PowerShell module; install it with mcp pack add jira',
        );
      }
    });

    it('installs the official PowerShell pack as a module whose scripts are functions', async () => {
      const run = await runPwshJson<{ platform: string; synopsis: string; functions: string[] }>(
        `Install-PSResource -Name sysinfo -Repository ToolpackV2 -TrustRepository
         Import-Module sysinfo
         [pscustomobject]@{
           platform = (Get-OsInfo).platform
           synopsis = (Get-Help Get-OsInfo).Synopsis
           functions = @((Get-Command -Module sysinfo).Name | Sort-Object)
         }`,
      );
      expect(run.functions).toEqual([
        'Get-CpuInfo',
        'Get-DiskInfo',
        'Get-MemoryInfo',
        'Get-OsInfo',
      ]);
      expect(run.platform).toBe(
        { linux: 'linux', darwin: 'macos', win32: 'windows' }[process.platform as string],
      );
      expect(run.synopsis).toBe('Describes the operating system the server runs on.');
    });

    it('installs the module pack, imports it and runs its function; Save-PSResource saves it', async () => {
      const run = await runPwshJson<{
        greeting: string;
        version: string;
        description: string;
        tags: string[];
      }>(
        `Install-PSResource -Name Greetings -Repository Toolpack -TrustRepository
         Import-Module Greetings
         $module = Get-Module Greetings
         [pscustomobject]@{
           greeting = Get-Greeting -Name World
           version = $module.Version.ToString()
           description = $module.Description
           tags = @($module.Tags)
         }`,
      );
      expect(run.greeting).toBe('Hello, World!');
      expect(run.version).toBe('1.0.0');
      expect(run.description).toMatch(/^Greets people in PowerShell/);
      expect(run.tags).toContain('MCPTools');

      const saveDir = path.join(temp, 'saved');
      mkdirSync(saveDir);
      const saved = await runPwsh(
        `Save-PSResource -Name Greetings -Repository Toolpack -Path '${saveDir}' -TrustRepository`,
      );
      expect(saved.code, saved.stderr).toBe(0);
      const versionDir = path.join(saveDir, 'Greetings', '1.0.0');
      expect(readdirSync(versionDir).sort()).toEqual(
        expect.arrayContaining(['Greetings.psd1', 'pack']),
      );
      expect(existsSync(path.join(versionDir, 'pack', 'toolpack.yaml'))).toBe(true);
    });

    it('mcp pack add --source the gallery feed installs the pack the .nupkg wraps, with its tools', async () => {
      const project = mkdtempSync(path.join(temp, 'project-'));
      writeFileSync(path.join(project, 'toolpack.yaml'), 'sources: []\n');
      const added = await startMcp(
        ['pack', 'add', 'sysinfo', '--source', `${baseUrl}/nuget/v2`, '--yes'],
        { cwd: project, env: cleanEnv() },
      );
      expect(added.code, added.stderr).toBe(0);
      // Read as a bare module, the wrapper gave "0 tools" and E_MODULE_NO_TOOLS.
      expect(added.stdout + added.stderr).toMatch(/added sysinfo@1\.1\.1 .*: 4 tools/);
      const listed = await startMcp(['list', '--json'], { cwd: project, env: cleanEnv() });
      expect(listed.code, listed.stderr).toBe(0);
      const names = (JSON.parse(listed.stdout) as { tools: { name: string }[] }).tools
        .map((tool) => tool.name)
        .filter((name) => name.startsWith('sysinfo_'));
      expect(names.sort()).toEqual([
        'sysinfo_Get_CpuInfo',
        'sysinfo_Get_DiskInfo',
        'sysinfo_Get_MemoryInfo',
        'sysinfo_Get_OsInfo',
      ]);
    });

    it('publishes a module with Publish-PSResource as a pack that mcp pack search finds by MCPTools', async () => {
      const modulePath = path.join(nugetFixtures, 'modules', 'Clocks');
      const refusedKey = await runPwsh(
        `Publish-PSResource -Path '${modulePath}' -Repository Toolpack -ApiKey 'tpk_0000000000000000_not-a-token'`,
      );
      expect(refusedKey.code).not.toBe(0);
      expect(refusedKey.stderr).toMatch(/401/);

      const publish = await runPwsh(
        `Publish-PSResource -Path '${modulePath}' -Repository Toolpack -ApiKey '${token}'`,
      );
      expect(publish.code, publish.stderr).toBe(0);

      // Versions are immutable, and the name now belongs to the publisher.
      const again = await runPwsh(
        `Publish-PSResource -Path '${modulePath}' -Repository Toolpack -ApiKey '${token}'`,
      );
      expect(again.code).not.toBe(0);
      expect(again.stderr).toMatch(/409|already exists/);
      const stranger = await runPwsh(
        `Publish-PSResource -Path '${modulePath}' -Repository Toolpack -ApiKey '${otherToken}'`,
      );
      expect(stranger.code).not.toBe(0);
      expect(stranger.stderr).toMatch(/403|belongs to acme/);
      const response = await fetch(`${baseUrl}/v0/packs/clocks`).catch((error: unknown) => {
        throw new Error(
          `GET /v0/packs/clocks failed (${String(error)}); the registry said:\n${serverLog}`,
        );
      });
      const pack = (await response.json()) as {
        versions: Record<string, { tools: { name: string }[]; tags: string[] }>;
      };
      expect(pack.versions['2.1.0']?.tags).toEqual(['MCPTools', 'time']);
      expect(pack.versions['2.1.0']?.tools.map((tool) => tool.name)).toEqual(['Get_ClockTime']);

      const search = await startMcp(
        ['pack', 'search', '--tag', 'MCPTools', '--registry', baseUrl],
        {
          cwd: temp,
          env: cleanEnv(),
        },
      );
      expect(search.code, search.stderr).toBe(0);
      expect(search.stdout).toMatch(/^clocks\s+2\.1\.0\s+1\s+MCPTools, time\s+Tells the time/m);

      // Publishing to the v2 feed is the same publish.
      const bumped = path.join(temp, 'Clocks');
      cpSync(modulePath, bumped, { recursive: true });
      const manifest = path.join(bumped, 'Clocks.psd1');
      writeFileSync(manifest, readFileSync(manifest, 'utf8').replace("'2.1.0'", "'2.2.0'"));
      const viaV2 = await runPwsh(
        `Publish-PSResource -Path '${bumped}' -Repository ToolpackV2 -ApiKey '${token}'`,
      );
      expect(viaV2.code, viaV2.stderr).toBe(0);

      // And PowerShell installs it back, the newest version, and runs it.
      const installed = await runPwshJson<{ version: string; time: string }>(
        `Install-PSResource -Name Clocks -Repository Toolpack -TrustRepository
         Import-Module Clocks
         [pscustomobject]@{ version = (Get-Module Clocks).Version.ToString(); time = Get-ClockTime -OffsetHours 2 }`,
      );
      expect(installed).toEqual({ version: '2.2.0', time: '14:00' });
    });

    it("keeps a published module's RequiredModules: mcp pack add from the gallery's NuGet endpoint installs them beside it", async () => {
      // Publish-PSResource wants a module's RequiredModules installed before it publishes it.
      const published = await runPwsh(
        `Publish-PSResource -Path '${path.join(nugetFixtures, 'modules', 'TimeHelpers')}' -Repository Toolpack -ApiKey '${token}'
         Install-PSResource -Name TimeHelpers -Repository Toolpack -TrustRepository
         Publish-PSResource -Path '${path.join(nugetFixtures, 'modules', 'WorldClocks')}' -Repository Toolpack -ApiKey '${token}'`,
      );
      expect(published.code, published.stderr).toBe(0);

      const project = mkdtempSync(path.join(temp, 'required-'));
      const source = `${baseUrl}/nuget/v3/index.json`;
      const added = await startMcp(['pack', 'add', 'WorldClocks', '--source', source, '--yes'], {
        cwd: project,
        env: cleanEnv(),
      });
      expect(added.code, added.stderr).toBe(0);
      expect(added.stdout).toMatch(
        /added worldclocks@1\.0\.0 .*: 1 tool\n {2}worldclocks_Get_WorldClock/,
      );
      const lock = JSON.parse(readFileSync(path.join(project, 'toolpack.lock'), 'utf8')) as {
        packs: Record<string, { modules?: { id: string; version: string; resolved: string }[] }>;
      };
      expect(lock.packs.worldclocks?.modules).toEqual([
        expect.objectContaining({
          id: 'TimeHelpers',
          version: '1.0.0',
          resolved: `${baseUrl}/nuget/v3/flatcontainer/timehelpers/1.0.0/timehelpers.1.0.0.nupkg`,
        }),
      ]);
      expect(
        existsSync(path.join(project, '.toolpack/packs/worldclocks/TimeHelpers/TimeHelpers.psd1')),
      ).toBe(true);
      // Its function calls the required module's, found beside it on the confined PSModulePath.
      const called = await startMcp(
        ['call', 'worldclocks_Get_WorldClock', '--arg', 'City=Tokyo', '--require-sandbox'],
        { cwd: project, env: cleanEnv() },
      );
      expect(called.stdout, called.stderr).toBe('Tokyo: 21:00\n');

      // PowerShell's own install brings the required module too, from the dependencies the
      // gallery lists for the module.
      const installed = await runPwshJson<{ helpers: string[]; time: string }>(
        `Uninstall-PSResource -Name TimeHelpers -SkipDependencyCheck
         Install-PSResource -Name WorldClocks -Repository Toolpack -TrustRepository
         Import-Module WorldClocks
         [pscustomobject]@{ helpers = @(Get-InstalledPSResource -Name TimeHelpers | ForEach-Object { $_.Version.ToString() }); time = Get-WorldClock -City London }`,
      );
      expect(installed).toEqual({ helpers: ['1.0.0'], time: 'London: 12:00' });
    });
  },
);

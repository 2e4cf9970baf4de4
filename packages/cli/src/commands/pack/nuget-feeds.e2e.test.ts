import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { createHash } from 'node:crypto';
import { once } from 'node:events';
import {
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
import { createInterface } from 'node:readline';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { buildModuleNupkg, startTestNuGetFeed, type TestNuGetFeed } from '@toolpack/packs/testing';
import { mcpBin, startMcp } from '../../testing/run-mcp.ts';

// `mcp pack add` of a PowerShell module from the three kinds of NuGet feed a PowerShell user
// has: a PSResourceGet folder repository, a v2 feed shaped as the PowerShell Gallery's, a v3
// feed. The module is published by the real pwsh (Publish-PSResource), and each loopback feed
// is first shown to answer the real PSResourceGet, so neither side is only our own word.

const modules = path.join(import.meta.dirname, 'fixtures', 'modules');
const module = path.join(modules, 'EchoTools');
const made: string[] = [];
function tempDir(prefix: string): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), `toolpack-nuget-e2e-${prefix}-`));
  made.push(dir);
  return dir;
}

const started: ChildProcessWithoutNullStreams[] = [];
const feeds: TestNuGetFeed[] = [];
let home: string;
let cacheDir: string;
let repository: string;
let nupkg: Buffer;

/** pwsh with its PSResourceGet settings (registered repositories) in a temp home. */
async function pwsh(script: string): Promise<string> {
  const child = spawn(
    'pwsh',
    ['-NoProfile', '-NonInteractive', '-Command', `$ErrorActionPreference = 'Stop'; ${script}`],
    {
      cwd: home,
      env: { ...process.env, HOME: home, XDG_DATA_HOME: path.join(home, '.local', 'share') },
    },
  );
  let out = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
  const [code] = (await once(child, 'exit')) as [number | null];
  if (code !== 0) throw new Error(`pwsh failed (${code}):\n${out}`);
  return out;
}

function env(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const clean = { ...process.env };
  for (const name of Object.keys(clean)) if (name.startsWith('TOOLPACK_')) delete clean[name];
  return { ...clean, HOME: home, NO_COLOR: '1', TOOLPACK_CACHE_DIR: cacheDir, ...extra };
}

/** The built CLI, without blocking: the loopback feeds answer from this process. */
const mcp = (args: string[], cwd: string, extra: NodeJS.ProcessEnv = {}) =>
  startMcp(args, { cwd, env: env(extra) });

beforeAll(async () => {
  home = tempDir('home');
  // .NET gives no LocalApplicationData for a folder that does not exist, and PSResourceGet
  // would then keep its repositories in the working directory.
  mkdirSync(path.join(home, '.local', 'share'), { recursive: true });
  cacheDir = tempDir('cache');
  repository = tempDir('repository');
  // EchoMain requires EchoHelpers: Publish-PSResource checks that it is installed first.
  await pwsh(
    `Register-PSResourceRepository -Name Local -Uri '${repository}' -Trusted; Publish-PSResource -Path '${module}' -Repository Local; Publish-PSResource -Path '${path.join(modules, 'EchoHelpers')}' -Repository Local; Install-PSResource -Name EchoHelpers -Repository Local -TrustRepository; Publish-PSResource -Path '${path.join(modules, 'EchoMain')}' -Repository Local; Publish-PSResource -Path '${path.join(modules, 'Echo.Accounts')}' -Repository Local`,
  );
  expect(readdirSync(repository).sort()).toEqual([
    'Echo.Accounts.2.1.0.nupkg',
    'EchoHelpers.2.0.1.nupkg',
    'EchoMain.1.0.0.nupkg',
    'EchoTools.1.2.0.nupkg',
  ]);
  nupkg = readFileSync(path.join(repository, 'EchoTools.1.2.0.nupkg'));
}, 120_000);

afterEach(() => {
  for (const child of started.splice(0))
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
});
afterAll(async () => {
  await Promise.all(feeds.splice(0).map((feed) => feed.close()));
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});

async function startFeed(options: Parameters<typeof startTestNuGetFeed>[0]) {
  const feed = await startTestNuGetFeed(options);
  feeds.push(feed);
  return feed;
}

interface JsonRpcAnswer {
  id?: number;
  result?: {
    tools?: { name: string }[];
    content?: { type: string; text: string }[];
    isError?: boolean;
  };
  error?: { message: string };
}

/** `mcp serve --require-sandbox` over stdio: its tools, and a call of one. */
async function serve(cwd: string, args: string[] = []) {
  const child = spawn(process.execPath, [mcpBin, 'serve', '--require-sandbox', ...args], {
    cwd,
    env: env(),
  });
  started.push(child);
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const waiting = new Map<number, (answer: JsonRpcAnswer) => void>();
  createInterface({ input: child.stdout }).on('line', (line) => {
    const answer = JSON.parse(line) as JsonRpcAnswer;
    if (answer.id !== undefined) waiting.get(answer.id)?.(answer);
  });
  let nextId = 1;
  const send = (message: object) => child.stdin.write(`${JSON.stringify(message)}\n`);
  const request = (method: string, params: object = {}) =>
    new Promise<JsonRpcAnswer>((resolve, reject) => {
      const id = nextId++;
      waiting.set(id, resolve);
      child.once('exit', () => reject(new Error(`mcp serve exited:\n${stderr}`)));
      send({ jsonrpc: '2.0', id, method, params });
    });
  await request('initialize', {
    protocolVersion: '2025-06-18',
    capabilities: {},
    clientInfo: { name: 'nuget-feeds-e2e', version: '1.0.0' },
  });
  send({ jsonrpc: '2.0', method: 'notifications/initialized' });
  return {
    request,
    stderr: () => stderr,
    stop: async () => {
      child.stdin.end();
      await once(child, 'exit');
    },
  };
}

const sha512 = (bytes: Buffer) => `sha512-${createHash('sha512').update(bytes).digest('base64')}`;

/**
 * Adds EchoTools from `source` into a fresh project, then serves it: its functions are
 * namespaced tools, a call runs in the sandbox, and a file outside the pack is out of reach.
 */
async function addAndServe(source: string, resolved: (project: string) => string) {
  const project = tempDir('project');
  const found = await mcp(['pack', 'search', '--tag', 'MCPTools', '--source', source], project);
  expect(found.stderr).toBe('');
  expect(found.stdout).toMatch(/^echotools +1\.2\.0 +- +.*MCPTools.*Echo tools for MCP\./m);

  const added = await mcp(['pack', 'add', 'EchoTools', '--source', source, '--yes'], project);
  expect(added.stderr).toMatch(
    /echotools@1\.2\.0 asks that its tools may:\n {2}files: read its own folder; write nothing\n {2}network: none/,
  );
  expect(added.stdout).toBe(
    'added echotools@1.2.0 (^1.2.0) in .toolpack/packs/echotools: 2 tools\n  echotools_Get_Echo\n  echotools_Read_TextFile\n',
  );
  expect(added.code).toBe(0);
  expect(readFileSync(path.join(project, 'toolpack.yaml'), 'utf8')).toBe(
    'packs:\n  echotools: ^1.2.0\n',
  );
  const lock = JSON.parse(readFileSync(path.join(project, 'toolpack.lock'), 'utf8')) as {
    packs: Record<string, Record<string, unknown>>;
  };
  expect(lock.packs.echotools).toMatchObject({
    name: 'echotools',
    version: '1.2.0',
    resolved: resolved(project),
    // The package's own hash, as NuGet computes it: the SHA-512 of the .nupkg.
    integrity: sha512(nupkg),
    permissions: {
      filesystem: { read: [], write: [] },
      network: { access: 'none', hosts: [] },
      env: [],
      subprocess: false,
    },
  });

  const outside = tempDir('outside');
  writeFileSync(path.join(outside, 'secret.txt'), 'the secret');
  const server = await serve(project);
  try {
    const tools = await server.request('tools/list');
    expect(tools.result?.tools?.map((tool) => tool.name)).toEqual(
      expect.arrayContaining(['echotools_Get_Echo', 'echotools_Read_TextFile']),
    );
    const echo = await server.request('tools/call', {
      name: 'echotools_Get_Echo',
      arguments: { Message: 'hi' },
    });
    expect(echo.result?.isError).not.toBe(true);
    expect(echo.result?.content?.[0]?.text).toBe('echo: hi');
    const own = await server.request('tools/call', {
      name: 'echotools_Read_TextFile',
      arguments: { Path: path.join(project, '.toolpack/packs/echotools/EchoTools/EchoTools.psd1') },
    });
    expect(own.result?.content?.[0]?.text).toMatch(/ModuleVersion/);
    const secret = await server.request('tools/call', {
      name: 'echotools_Read_TextFile',
      arguments: { Path: path.join(outside, 'secret.txt') },
    });
    expect(secret.result?.isError).toBe(true);
    expect(JSON.stringify(secret.result)).not.toMatch(/the secret/);
  } finally {
    await server.stop();
  }
  return { project, lock };
}

describe('mcp pack add from NuGet feeds', () => {
  it('(b) a PSResourceGet folder repository made by the real pwsh', async () => {
    const { project } = await addAndServe(
      repository,
      (project) =>
        `file:${path.relative(project, path.join(repository, 'EchoTools.1.2.0.nupkg')).split(path.sep).join('/')}`,
    );
    const info = await mcp(['pack', 'info', 'EchoTools', '--source', repository], project);
    expect(info.stdout).toMatch(/^from: the NuGet feed .* \(the PowerShell module EchoTools\)$/m);
    expect(info.stdout).toMatch(
      /^installed here as echotools: 1\.2\.0 from the feed \.\.\/toolpack-nuget-e2e-repository-\w+ \(EchoTools, file:/m,
    );
  }, 120_000);

  it('a module whose id has a dot (as Az.Accounts has) is the pack echo--accounts, and the lock and info keep its id', async () => {
    const project = tempDir('dotted');
    const found = await mcp(
      ['pack', 'search', '--tag', 'MCPTools', '--source', repository],
      project,
    );
    expect(found.stdout).toMatch(/^echo--accounts +2\.1\.0 +- +.*A module whose id has a dot/m);

    const added = await mcp(
      ['pack', 'add', 'Echo.Accounts', '--source', repository, '--yes'],
      project,
    );
    expect(added.stderr).toMatch(/echo--accounts@2\.1\.0 asks that its tools may:/);
    expect(added.stdout).toBe(
      'added echo--accounts@2.1.0 (^2.1.0) in .toolpack/packs/echo--accounts: 1 tool\n  echo__accounts_Get_EchoAccount\n',
    );
    expect(readFileSync(path.join(project, 'toolpack.yaml'), 'utf8')).toBe(
      'packs:\n  echo--accounts: ^2.1.0\n',
    );
    const lock = JSON.parse(readFileSync(path.join(project, 'toolpack.lock'), 'utf8')) as {
      packs: Record<string, Record<string, unknown>>;
    };
    expect(lock.packs['echo--accounts']).toMatchObject({
      name: 'echo--accounts',
      version: '2.1.0',
      id: 'Echo.Accounts',
      integrity: sha512(readFileSync(path.join(repository, 'Echo.Accounts.2.1.0.nupkg'))),
    });
    // pwsh imports the module by its own name: the folder keeps the id as the package spells it.
    expect(
      existsSync(
        path.join(project, '.toolpack/packs/echo--accounts/Echo.Accounts/Echo.Accounts.psd1'),
      ),
    ).toBe(true);

    const info = await mcp(['pack', 'info', 'echo--accounts', '--source', repository], project);
    expect(info.stdout).toMatch(
      /^from: the NuGet feed .* \(the PowerShell module Echo\.Accounts\)$/m,
    );
    expect(info.stdout).toMatch(
      /^installed here as echo--accounts: 2\.1\.0 from the feed .* \(Echo\.Accounts, file:/m,
    );

    const call = await mcp(
      ['call', 'echo__accounts_Get_EchoAccount', '--arg', 'Name=ada', '--require-sandbox'],
      project,
    );
    expect(call.stdout).toBe('account: ada\n');

    // An id whose `_` touches another separator has no pack name that reads back as it.
    const refused = await mcp(['pack', 'add', 'Some__Module', '--source', repository], project);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/The NuGet id "Some__Module" cannot be a pack name/);

    // A fresh clone installs it back from the lock alone.
    rmSync(path.join(project, '.toolpack'), { recursive: true });
    const installed = await mcp(['pack', 'install', '--frozen'], project);
    expect(installed.code).toBe(0);
    expect(readFileSync(path.join(project, 'toolpack.lock'), 'utf8')).toContain(
      '"id": "Echo.Accounts"',
    );
  }, 120_000);

  it('reads versions as the real PSResourceGet writes them: a prerelease label, a fourth part, leading zeros', async () => {
    const versioned = tempDir('versions');
    const fixtures = path.join(import.meta.dirname, 'fixtures', 'versions');
    const names = ['VersionPreview', 'VersionFourZero', 'VersionFourPart', 'VersionLeadingZeros'];
    await pwsh(
      `Register-PSResourceRepository -Name Versions -Uri '${versioned}' -Trusted -Force; ${names.map((name) => `Publish-PSResource -Path '${path.join(fixtures, name)}' -Repository Versions`).join('; ')}; Unregister-PSResourceRepository -Name Versions`,
    );
    // PSResourceGet normalises 2.0.0.0 and 01.02.03 itself, and puts PSData.Prerelease after
    // the ModuleVersion; its module manifest keeps what the author wrote.
    expect(readdirSync(versioned).sort()).toEqual([
      'VersionFourPart.1.2.3.4.nupkg',
      'VersionFourZero.2.0.0.nupkg',
      'VersionLeadingZeros.1.2.3.nupkg',
      'VersionPreview.1.2.0-preview1.nupkg',
    ]);
    const project = tempDir('versions-project');
    const found = await mcp(
      ['pack', 'search', '--tag', 'MCPTools', '--source', versioned],
      project,
    );
    // A search shows what an add installs: stable versions semver can spell.
    expect(found.stdout.split('\n').map((line) => line.split(/\s+/).slice(0, 2).join(' '))).toEqual(
      expect.arrayContaining(['versionfourzero 2.0.0', 'versionleadingzeros 1.2.3']),
    );
    const [table, passedOver] = found.stdout.split('Also matched, but not added by name');
    expect(table).not.toMatch(/versionfourpart|versionpreview/i);
    // The others are named with why, not hidden.
    expect(passedOver).toContain('VersionFourPart 1.2.3.4: version 1.2.3.4 has no semver form');
    expect(passedOver).toContain(
      'VersionPreview 1.2.0-preview1: only a prerelease: add it as versionpreview@1.2.0-preview1',
    );

    const preview = await mcp(
      ['pack', 'add', 'VersionPreview@1.2.0-preview1', '--source', versioned, '--yes'],
      project,
    );
    expect(preview.stderr).not.toMatch(/E_TARBALL_MISMATCH|ModuleVersion/);
    expect(preview.stdout).toMatch(/^added versionpreview@1\.2\.0-preview1 /);
    const zeros = await mcp(
      ['pack', 'add', 'VersionLeadingZeros', '--source', versioned, '--yes'],
      project,
    );
    expect(zeros.stdout).toMatch(/^added versionleadingzeros@1\.2\.3 /);
    const four = await mcp(
      ['pack', 'add', 'VersionFourPart', '--source', versioned, '--yes'],
      project,
    );
    expect(four.code).toBe(1);
    expect(four.stderr).toMatch(
      /has no package versionfourpart .*versions semver cannot spell, such as 1\.0\.0\.1/,
    );
  }, 120_000);

  it('(c) a loopback feed of the PowerShell Gallery v2 API shape, which the real PSResourceGet finds by tag', async () => {
    const feed = await startFeed({ packages: [nupkg] });
    const found = await pwsh(
      `Register-PSResourceRepository -Name V2 -Uri '${feed.v2}' -Trusted -Force; Find-PSResource -Tag MCPTools -Repository V2 | ForEach-Object { "$($_.Name) $($_.Version)" }; Unregister-PSResourceRepository -Name V2`,
    );
    expect(found.trim().split('\n')).toEqual(['EchoTools 1.2.0']);
    await addAndServe(feed.v2, () => `${feed.v2}/package/EchoTools/1.2.0`);
  }, 120_000);

  it('(a) a loopback NuGet v3 feed, which the real PSResourceGet finds and saves from', async () => {
    const feed = await startFeed({ packages: [nupkg] });
    const saved = tempDir('saved');
    await pwsh(
      `Register-PSResourceRepository -Name V3 -Uri '${feed.v3}' -Trusted -Force; Save-PSResource -Name EchoTools -Repository V3 -Path '${saved}' -TrustRepository; Unregister-PSResourceRepository -Name V3`,
    );
    expect(existsSync(path.join(saved, 'EchoTools', '1.2.0', 'EchoTools.psd1'))).toBe(true);
    await addAndServe(
      feed.v3,
      () => `${feed.url}/v3/flatcontainer/echotools/1.2.0/echotools.1.2.0.nupkg`,
    );
  }, 120_000);

  it('a private feed named in toolpack.yaml: its login from the environment, for add and for install', async () => {
    const credentials = { username: 'me', password: 'feed-token' };
    const feed = await startFeed({ packages: [nupkg], credentials });
    const project = tempDir('private');
    writeFileSync(
      path.join(project, 'toolpack.yaml'),
      `feeds:\n  corp:\n    url: ${feed.v3}\n    usernameEnv: CORP_USER\n    passwordEnv: CORP_TOKEN\n`,
    );
    const login = { CORP_USER: 'me', CORP_TOKEN: 'feed-token' };

    const missing = await mcp(['pack', 'add', 'EchoTools', '--source', 'corp', '--yes'], project);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(
      /The feed corp in toolpack\.yaml logs in with CORP_TOKEN and CORP_USER, which are not set/,
    );

    const wrong = await mcp(['pack', 'add', 'EchoTools', '--source', 'corp', '--yes'], project, {
      ...login,
      CORP_TOKEN: 'wrong',
    });
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toMatch(/answered 401/);

    const added = await mcp(
      ['pack', 'add', 'EchoTools', '--source', 'corp', '--yes'],
      project,
      login,
    );
    expect(added.code).toBe(0);
    const lock = JSON.parse(readFileSync(path.join(project, 'toolpack.lock'), 'utf8')) as {
      packs: Record<string, { source?: string }>;
    };
    expect(lock.packs.echotools?.source).toBe('corp');

    // A fresh clone: the lock names the feed, whose package needs the login.
    rmSync(path.join(project, '.toolpack'), { recursive: true });
    const emptyCache = tempDir('cache2');
    const installed = await mcp(['pack', 'install', '--frozen'], project, {
      ...login,
      TOOLPACK_CACHE_DIR: emptyCache,
    });
    expect(installed.stderr).toBe('');
    expect(installed.code).toBe(0);
    expect(
      existsSync(path.join(project, '.toolpack/packs/echotools/EchoTools/EchoTools.psd1')),
    ).toBe(true);
    expect(feed.requests.filter((r) => r.endsWith('.nupkg'))).toHaveLength(2);
  }, 120_000);

  it("a module's RequiredModules come from the same feed, are installed beside it and found when it is called", async () => {
    const packages = ['EchoMain.1.0.0.nupkg', 'EchoHelpers.2.0.1.nupkg'].map((file) =>
      readFileSync(path.join(repository, file)),
    );
    const feed = await startFeed({ packages });
    const project = tempDir('required');
    const added = await mcp(['pack', 'add', 'EchoMain', '--source', feed.v3, '--yes'], project);
    expect(added.stdout).toBe(
      'added echomain@1.0.0 (^1.0.0) in .toolpack/packs/echomain: 1 tool\n  echomain_Get_Shout\n',
    );
    const lock = JSON.parse(readFileSync(path.join(project, 'toolpack.lock'), 'utf8')) as {
      packs: Record<string, { modules?: unknown }>;
    };
    expect(lock.packs.echomain?.modules).toEqual([
      {
        id: 'EchoHelpers',
        version: '2.0.1',
        resolved: `${feed.url}/v3/flatcontainer/echohelpers/2.0.1/echohelpers.2.0.1.nupkg`,
        integrity: sha512(packages[1]!),
      },
    ]);
    const call = () =>
      mcp(['call', 'echomain_Get_Shout', '--arg', 'Message=hi', '--require-sandbox'], project);
    expect((await call()).stdout).toBe('HI\n');

    // A fresh clone installs both from the lock, and a changed file of the required module is put back.
    rmSync(path.join(project, '.toolpack'), { recursive: true });
    const installed = await mcp(['pack', 'install', '--frozen'], project, {
      TOOLPACK_CACHE_DIR: tempDir('cache3'),
    });
    expect(installed.code).toBe(0);
    const helper = path.join(project, '.toolpack/packs/echomain/EchoHelpers/EchoHelpers.psm1');
    writeFileSync(helper, 'function Format-Shout { "tampered" }');
    const repaired = await mcp(['pack', 'install'], project);
    expect(repaired.stderr).toMatch(/changed EchoHelpers\/EchoHelpers\.psm1/);
    expect((await call()).stdout).toBe('HI\n');
  }, 120_000);

  it('mcp serve --pack --source serves a module from a folder feed, and one with its RequiredModules from a feed named in toolpack.yaml, without a project', async () => {
    const cwd = tempDir('serve');
    const dotted = await serve(cwd, ['--pack', 'Echo.Accounts', '--source', repository]);
    try {
      const tools = await dotted.request('tools/list');
      expect(tools.result?.tools?.map((tool) => tool.name)).toContain(
        'echo__accounts_Get_EchoAccount',
      );
      const call = await dotted.request('tools/call', {
        name: 'echo__accounts_Get_EchoAccount',
        arguments: { Name: 'ada' },
      });
      expect(call.result?.content?.[0]?.text).toBe('account: ada');
      expect(dotted.stderr()).toMatch(
        /serving echo--accounts@2\.1\.0 \(downloaded from .*toolpack-nuget-e2e-repository-\w+\) as echo--accounts_\*; its tools may:\n.*files: read its own folder; write nothing/,
      );
    } finally {
      await dotted.stop();
    }
    // Nothing was written where it ran.
    expect(readdirSync(cwd)).toEqual([]);

    const packages = ['EchoMain.1.0.0.nupkg', 'EchoHelpers.2.0.1.nupkg'].map((file) =>
      readFileSync(path.join(repository, file)),
    );
    const feed = await startFeed({ packages });
    writeFileSync(path.join(cwd, 'toolpack.yaml'), `feeds:\n  corp: ${feed.v3}\n`);
    const main = await serve(cwd, ['--pack', 'echomain@^1', '--source', 'corp']);
    try {
      // EchoMain's function calls EchoHelpers', which came from the same feed.
      const call = await main.request('tools/call', {
        name: 'echomain_Get_Shout',
        arguments: { Message: 'hi' },
      });
      expect(call.result?.isError).not.toBe(true);
      expect(call.result?.content?.[0]?.text).toBe('HI');
      expect(main.stderr()).toMatch(/the toolpack\.yaml here is not read \(but for its feeds:/);
    } finally {
      await main.stop();
    }
    expect(feed.requests.filter((r) => r.endsWith('.nupkg')).sort()).toEqual([
      'GET /v3/flatcontainer/echohelpers/2.0.1/echohelpers.2.0.1.nupkg',
      'GET /v3/flatcontainer/echomain/1.0.0/echomain.1.0.0.nupkg',
    ]);

    // Started again, the copy in the cache is checked (its required module too) and reused.
    const again = await serve(cwd, ['--pack', 'echomain@^1', '--source', 'corp']);
    try {
      const call = await again.request('tools/call', {
        name: 'echomain_Get_Shout',
        arguments: { Message: 'again' },
      });
      expect(call.result?.content?.[0]?.text).toBe('AGAIN');
      expect(again.stderr()).toMatch(/serving echomain@1\.0\.0 \(from the cache\)/);
    } finally {
      await again.stop();
    }
  }, 120_000);

  it('a hostile .nupkg is refused and the project is left as it was', async () => {
    const hostile = await buildModuleNupkg({
      id: 'EchoTools',
      version: '1.2.0',
      extra: [{ path: '../../escaped.ps1', data: 'Remove-Item -Recurse ~' }],
    });
    const feed = await startFeed({ packages: [hostile] });
    const project = tempDir('hostile');
    mkdirSync(path.join(project, 'sub'));
    const added = await mcp(['pack', 'add', 'EchoTools', '--source', feed.v2, '--yes'], project);
    expect(added.code).toBe(1);
    expect(added.stderr).toMatch(
      /E_TARBALL_UNSAFE|was refused and nothing was installed:\n {2}- "\.\.\/\.\.\/escaped\.ps1" climbs out of the pack/,
    );
    expect(readdirSync(project)).toEqual(['sub']);
    expect(existsSync(path.join(path.dirname(project), 'escaped.ps1'))).toBe(false);
  }, 120_000);
});

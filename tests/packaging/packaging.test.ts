// Every package usable on its own (README.md "Packages"): each one is packed as it would be
// published, by `pnpm pack-tarballs` (the way the READMEs give), the tarballs are installed
// with npm into a project outside the workspace, and that project uses them from plain Node:
// examples/embed spoken to over MCP, and the installed `mcp` running the CLI's e2e suites.
//
// The packages are packed from their built dist/. CI's `pnpm check` builds before
// `pnpm test`; elsewhere ensureBuilt() builds whatever is missing or older than its sources.
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import {
  cpSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lintTarball } from './lint-tarball.ts';
import { connectStdio } from './stdio-json-rpc.ts';
import {
  WORKSPACE_PACKAGES,
  createPlainEnv,
  ensureBuilt,
  packPackage,
  readJson,
  repoRoot,
  runCommand,
  type PackedPackage,
} from './workspace-packages.ts';

const embedExample = path.join(repoRoot, 'examples', 'embed');
const fixtures = path.join(import.meta.dirname, 'fixtures');
const packageNames = WORKSPACE_PACKAGES.map((pkg) => pkg.name);

/** What examples/embed and the other plain-Node checks need installed. */
const EMBED_PACKAGES = [
  '@toolpack/core',
  '@toolpack/discovery',
  '@toolpack/runners',
  '@toolpack/server',
];

const packScriptFile = path.join(repoRoot, 'scripts', 'pack-tarballs.mjs');

/** What `pnpm pack-tarballs --json` prints. */
interface PackScriptOutput {
  outDir: string;
  tarballs: { name: string; version: string; file: string; files: string[] }[];
  cliTarballs: string[];
  installLine: string;
  installCliLine: string;
  overrides: Record<string, string>;
}

let work = '';
let project = '';
let packScript: PackScriptOutput;
let buildFailures = new Map<string, string>();
const packed = new Map<string, PackedPackage>();

/** The packed package, or the reason it could not be packed (its build failed). */
function packedOf(name: string): PackedPackage {
  const result = packed.get(name);
  if (result) return result;
  throw new Error(buildFailures.get(name) ?? `${name} was not packed (see beforeAll's error)`);
}

function installedDir(name: string): string {
  return path.join(project, 'node_modules', ...name.split('/'));
}

interface PublishedManifest {
  exports?: unknown;
  publishConfig?: unknown;
  dependencies?: Record<string, string>;
  bin?: Record<string, string>;
}

/** Every file path an `exports` map can resolve to. */
function listExportTargets(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (value === null || typeof value !== 'object') return [];
  return Object.values(value).flatMap(listExportTargets);
}

beforeAll(() => {
  buildFailures = ensureBuilt(WORKSPACE_PACKAGES).failed;
  work = mkdtempSync(path.join(os.tmpdir(), 'toolpack-packaging-'));
  const tarballs = path.join(work, 'tarballs');
  mkdirSync(tarballs);
  packScript = JSON.parse(
    runCommand({
      command: process.execPath,
      args: [packScriptFile, '--no-build', '--json', '--out', tarballs],
      cwd: repoRoot,
      timeoutMs: 120_000,
    }),
  ) as PackScriptOutput;
  for (const pkg of WORKSPACE_PACKAGES) {
    // A package that does not build fails its own tests; the others are still checked.
    if (buildFailures.has(pkg.name)) continue;
    const fromScript = packScript.tarballs.find((tarball) => tarball.name === pkg.name);
    // The script packs what users install; private apps (the registry) are packed here alone.
    packed.set(
      pkg.name,
      fromScript === undefined
        ? packPackage(pkg, tarballs)
        : { pkg, tarball: fromScript.file, files: fromScript.files },
    );
  }

  project = path.join(work, 'project');
  cpSync(embedExample, project, {
    recursive: true,
    filter: (source) => !/[\\/](node_modules|\.toolpack)$/.test(source),
  });
  cpSync(path.join(fixtures, 'consumer'), project, { recursive: true });
  // Every tarball is a dependency, and the overrides (`$name`: that dependency's own spec,
  // as the script prints them) make the packages' `^0.1.0` ranges on each other resolve to
  // the tarballs too, so npm never asks the registry about names that are not published (a
  // mirror that refuses them instead of answering 404 made npm retry each for a minute and
  // the install time out). Third-party dependencies come from the npm registry.
  const dependencies = Object.fromEntries(
    [...packed].map(([name, entry]) => [name, `file:${entry.tarball}`]),
  );
  writeFileSync(
    path.join(project, 'package.json'),
    JSON.stringify({
      name: 'embed-toolpack',
      private: true,
      type: 'module',
      dependencies,
      overrides: {
        ...packScript.overrides,
        ...Object.fromEntries(Object.keys(dependencies).map((name) => [name, `$${name}`])),
      },
    }),
  );
  runCommand({
    command: 'npm',
    args: ['install', '--prefer-offline', '--no-audit', '--no-fund', '--loglevel=error'],
    cwd: project,
    timeoutMs: 150_000,
  });
}, 300_000);

afterAll(() => {
  if (work !== '') rmSync(work, { recursive: true, force: true });
});

describe('pnpm pack-tarballs', () => {
  it('packs every public package and prints the npm lines that install them', () => {
    const publicNames = WORKSPACE_PACKAGES.filter(
      (pkg) =>
        readJson<{ private?: boolean }>(path.join(repoRoot, pkg.dir, 'package.json')).private !==
        true,
    ).map((pkg) => pkg.name);
    const names = packScript.tarballs.map((tarball) => tarball.name);
    expect([...names].sort()).toEqual([...publicNames].sort());
    for (const { name, version, file } of packScript.tarballs) {
      expect(path.dirname(file)).toBe(packScript.outDir);
      expect(path.basename(file)).toBe(`${name.replace('@', '').replace('/', '-')}-${version}.tgz`);
    }
    const files = packScript.tarballs.map((tarball) => tarball.file);
    expect(packScript.installLine).toBe(`npm install ${files.join(' ')}`);
    // The CLI needs every other public package; each comes before what depends on it.
    expect(packScript.cliTarballs).toEqual(files);
    expect(packScript.installCliLine).toBe(`npm install -g ${files.join(' ')}`);
    expect(names.indexOf('@toolpack/core')).toBeLessThan(names.indexOf('@toolpack/server'));
    expect(names.at(-1)).toBe('@toolpack/cli');
    expect(packScript.overrides).toEqual(
      Object.fromEntries(names.map((name) => [name, `$${name}`])),
    );
  });

  it('each package README installs its tarball and those of the packages it needs, as packed', () => {
    const byName = new Map(WORKSPACE_PACKAGES.map((pkg) => [pkg.name, pkg]));
    const readManifest = (name: string) =>
      readJson<{ dependencies?: Record<string, string> }>(
        path.join(repoRoot, byName.get(name)?.dir ?? '', 'package.json'),
      );
    const closureOf = (name: string, seen = new Set<string>()): Set<string> => {
      seen.add(name);
      for (const dependency of Object.keys(readManifest(name).dependencies ?? {})) {
        if (byName.has(dependency) && !seen.has(dependency)) closureOf(dependency, seen);
      }
      return seen;
    };
    const shortName = (name: string) => name.split('/')[1];
    for (const { name } of packScript.tarballs) {
      const readme = readFileSync(
        path.join(repoRoot, byName.get(name)?.dir ?? '', 'README.md'),
        'utf8',
      );
      const install = readme.match(/^```sh\n(cd \S+ && pnpm pack-tarballs[\s\S]*?)^```$/m)?.[1];
      expect(install, `${name}: README has no pnpm pack-tarballs block`).toBeDefined();
      expect(readme).not.toMatch(/npm (install|i) (-g |--global )?@toolpack\//);
      const named = [
        ...(install ?? '').matchAll(/dist-tarballs\/toolpack-(?:([a-z]+)-)?\*\.tgz/g),
      ].map((match) => match[1] ?? '*');
      // `toolpack-*` (every tarball) covers any closure; otherwise exactly the closure.
      if (!named.includes('*')) {
        expect(new Set(named), name).toEqual(new Set([...closureOf(name)].map(shortName)));
      }
    }
  });
});

describe('published tarballs', () => {
  it.each(WORKSPACE_PACKAGES)('$name ships dist, README and assets, never src', (pkg) => {
    const { files } = packedOf(pkg.name);
    const expected = ['package.json', 'README.md', ...pkg.entries, ...pkg.assets];
    for (const entry of pkg.entries) expected.push(entry.replace(/\.mjs$/, '.d.mts'));
    expect(files).toEqual(expect.arrayContaining(expected));
    expect(files.filter((file) => !/^(dist|assets|bin)\/|^[^/]+$/.test(file))).toEqual([]);
    expect(
      files.filter((file) => /\.(test|spec)\.|\.ts$/.test(file) && !file.endsWith('.d.mts')),
    ).toEqual([]);
  });

  it.each(WORKSPACE_PACKAGES)(
    '$name: the published package.json points at dist/ with real versions',
    (pkg) => {
      const { files } = packedOf(pkg.name);
      const dir = installedDir(pkg.name);
      const manifest = readJson<PublishedManifest>(path.join(dir, 'package.json'));
      const exportsJson = JSON.stringify(manifest.exports);
      expect(exportsJson).not.toContain('@toolpack/source');
      expect(exportsJson).not.toContain('src/');
      expect(manifest.publishConfig).toBeUndefined();
      const ranges = Object.entries(manifest.dependencies ?? {});
      expect(ranges.filter(([, range]) => /^(workspace|file|link):/.test(range))).toEqual([]);
      const targets = [
        ...listExportTargets(manifest.exports),
        ...Object.values(manifest.bin ?? {}),
      ];
      const missing = targets.filter((target) => !files.includes(path.posix.normalize(target)));
      expect(missing).toEqual([]);
    },
  );

  it.each(WORKSPACE_PACKAGES)(
    '$name passes publint --strict and attw --profile esm-only',
    async (pkg) => {
      const report = await lintTarball(packedOf(pkg.name).tarball);
      expect(report).toEqual({ publint: [], attw: [] });
    },
    60_000,
  );

  it('the same checks do find the problems of a broken package', async () => {
    const destination = path.join(work, 'broken');
    mkdirSync(destination);
    const output = runCommand({
      command: 'npm',
      args: ['pack', '--json', '--pack-destination', destination],
      cwd: path.join(fixtures, 'broken-package'),
      timeoutMs: 60_000,
    });
    const [{ filename }] = JSON.parse(output) as [{ filename: string }];
    const report = await lintTarball(path.join(destination, filename));
    expect(report.publint.join('\n')).toMatch(/EXPORTS_TYPES_SHOULD_BE_FIRST/);
    expect(report.publint.join('\n')).toMatch(/FILE_DOES_NOT_EXIST/);
    expect(report.attw).toContain('NoResolution at "./missing" (node16-esm)');
  }, 60_000);
});

describe('installed from the tarballs with npm, used from plain Node', () => {
  it('resolves every @toolpack package to its own tarball, one copy each', () => {
    const lock = readJson<{ packages: Record<string, { resolved?: string; version?: string }> }>(
      path.join(project, 'package-lock.json'),
    );
    for (const name of packed.keys()) {
      expect(lock.packages[`node_modules/${name}`]?.resolved, name).toMatch(/^file:.*\.tgz$/);
    }
    const nested = Object.keys(lock.packages).filter((key) =>
      /node_modules\/@toolpack\/[^/]+\/node_modules\/@toolpack\//.test(key),
    );
    expect(nested).toEqual([]);
  });

  it('loads every package and runs a JS module tool through dist and assets', () => {
    for (const name of packageNames) packedOf(name);
    const stdout = execFileSync(process.execPath, ['use-packages.mjs'], {
      cwd: project,
      env: createPlainEnv(),
      encoding: 'utf8',
      timeout: 60_000,
    });
    const report = JSON.parse(stdout) as {
      exportCounts: Record<string, number>;
      tools: string[];
      diagnostics: string[];
      result: unknown;
      invalid: { isError?: boolean; content: { text: string }[] };
      hostScriptExists: boolean;
      validName: boolean;
    };
    expect(Object.entries(report.exportCounts).filter(([, count]) => count === 0)).toEqual([]);
    expect(report.diagnostics).toEqual([]);
    expect(report.tools).toEqual(['find_tools', 'describe_tool', 'add_numbers']);
    expect(report.result).toEqual({
      content: [{ type: 'text', text: JSON.stringify({ sum: 42 }) }],
      structuredContent: { sum: 42 },
    });
    expect(report.invalid.isError).toBe(true);
    expect(report.invalid.content[0]?.text).toMatch(/Invalid arguments for tool "add_numbers"/);
    expect(report.hostScriptExists).toBe(true);
    expect(report.validName).toBe(true);
  }, 60_000);

  it("every README's TypeScript example typechecks against the published types", () => {
    for (const name of EMBED_PACKAGES) packedOf(name);
    const examplesDir = path.join(project, 'readme-examples');
    mkdirSync(examplesDir);
    const written: string[] = [];
    for (const name of packed.keys()) {
      const readme = readFileSync(path.join(installedDir(name), 'README.md'), 'utf8');
      const blocks = [...readme.matchAll(/^```ts\n([\s\S]*?)^```$/gm)].map((match) => match[1]);
      blocks.forEach((block, index) => {
        const file = path.join(examplesDir, `${name.split('/')[1]}-${index + 1}.ts`);
        writeFileSync(file, block ?? '');
        written.push(path.basename(file));
      });
    }
    // Each package's README has its example; the ones that show code show TypeScript.
    expect(written).toEqual(
      expect.arrayContaining(['core-1.ts', 'discovery-1.ts', 'runners-1.ts', 'server-1.ts']),
    );
    writeFileSync(
      path.join(project, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          target: 'es2023',
          lib: ['es2023'],
          module: 'nodenext',
          moduleResolution: 'nodenext',
          moduleDetection: 'force',
          strict: true,
          noEmit: true,
          // The published .d.mts files are checked too, with their real dependencies.
          skipLibCheck: false,
          types: ['node'],
          typeRoots: [path.join(repoRoot, 'node_modules', '@types')],
        },
        include: ['readme-examples/*.ts'],
      }),
    );
    const tsc = path.join(repoRoot, 'node_modules', 'typescript', 'bin', 'tsc');
    let output = '';
    try {
      execFileSync(process.execPath, [tsc, '-p', project], {
        cwd: project,
        env: createPlainEnv(),
        encoding: 'utf8',
        timeout: 60_000,
      });
    } catch (error) {
      output = String((error as { stdout?: string }).stdout ?? error);
    }
    expect(output).toBe('');
  }, 60_000);
});

describe('examples/embed', () => {
  it('serves its tools folder over stdio: initialize, tools/list, tools/call, exit', async () => {
    for (const name of EMBED_PACKAGES) packedOf(name);
    const child = spawn(process.execPath, ['serve.mjs'], {
      cwd: project,
      env: createPlainEnv(),
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    try {
      const client = connectStdio(child, { timeoutMs: 15_000 });
      const initialized = await client.request('initialize', {
        protocolVersion: '2025-06-18',
        capabilities: {},
        clientInfo: { name: 'toolpack-packaging-test', version: '1.0.0' },
      });
      expect(initialized.error).toBeUndefined();
      expect(initialized.result).toMatchObject({
        protocolVersion: expect.any(String),
        capabilities: { tools: expect.any(Object) },
        serverInfo: { name: 'toolpack', version: '0.1.0' },
      });
      client.notify('notifications/initialized');

      const listed = await client.request('tools/list', {});
      const tools = (listed.result?.tools ?? []) as { name: string; inputSchema: unknown }[];
      expect(tools.map((tool) => tool.name).sort()).toEqual([
        'describe_tool',
        'find_tools',
        'greet',
      ]);
      expect(tools.find((tool) => tool.name === 'greet')?.inputSchema).toMatchObject({
        type: 'object',
        properties: { name: { type: 'string' }, excited: { type: 'boolean' } },
        required: ['name'],
      });

      const called = await client.request('tools/call', {
        name: 'greet',
        arguments: { name: 'Ada', excited: true },
      });
      expect(called.result).toMatchObject({
        structuredContent: { greeting: 'Hello, Ada!' },
        content: [{ type: 'text', text: JSON.stringify({ greeting: 'Hello, Ada!' }) }],
      });
      expect(called.result?.isError).toBeFalsy();

      const invalid = await client.request('tools/call', { name: 'greet', arguments: {} });
      expect(invalid.result).toMatchObject({ isError: true });

      const unknown = await client.request('tools/call', { name: 'gret', arguments: {} });
      expect(unknown.error?.code).toBe(-32602);

      child.stdin.end();
      expect(await client.exited(10_000)).toBe(0);
      expect(client.stderr()).toContain('serving find_tools, describe_tool, greet');
    } finally {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    }
  }, 60_000);
});

describe('the CLI installed from its tarball', () => {
  const installedBin = () => {
    const dir = installedDir('@toolpack/cli');
    const { bin } = readJson<PublishedManifest>(path.join(dir, 'package.json'));
    return path.join(dir, bin?.mcp ?? 'missing-bin');
  };

  it('mcp --version and mcp config claude run from the bundle, outside the workspace', () => {
    packedOf('@toolpack/cli');
    const home = path.join(work, 'home');
    mkdirSync(home);
    const env = createPlainEnv({ HOME: home, XDG_CONFIG_HOME: path.join(home, '.config') });
    const run = (args: string[]) =>
      execFileSync(process.execPath, [installedBin(), ...args], {
        cwd: project,
        env,
        encoding: 'utf8',
        // execFileSync passes the child's stderr through unless told otherwise; its notes
        // ("Add this to ...") are for a terminal, not the test log.
        stdio: ['ignore', 'pipe', 'pipe'],
        timeout: 60_000,
      });
    expect(run(['--version']).trim()).toBe('0.1.0');
    const printed = JSON.parse(run(['config', 'claude'])) as {
      mcpServers: Record<string, { command: string; args: string[] }>;
    };
    expect(Object.values(printed.mcpServers)).toEqual([
      // Real paths: the CLI reports where Node loaded it from (macOS's tmpdir is a symlink).
      {
        command: process.execPath,
        args: [realpathSync(installedBin()), '-C', realpathSync(project), 'serve'],
      },
    ]);
  }, 60_000);

  // The same suites the sources pass, with every `mcp` they start being the installed bin
  // (run-mcp.ts reads TOOLPACK_E2E_MCP_BIN). Left out to keep CI's time: new.e2e (the
  // slowest; scaffolding is file writing that `mcp check`/`list` here already cover).
  const SUITES = [
    'packages/cli/src/cli.e2e.test.ts',
    'packages/cli/src/commands/config/config.e2e.test.ts',
    'packages/cli/src/commands/call/call.e2e.test.ts',
    'packages/cli/src/credentials.e2e.test.ts',
    'packages/cli/src/commands/inspect/inspect-doctor.e2e.test.ts',
    'packages/cli/src/commands/tool-tests/tool-tests.e2e.test.ts',
    'packages/cli/src/commands/pack/pack-commands.e2e.test.ts',
    'packages/cli/src/commands/pack/server-json/server-json.e2e.test.ts',
    'packages/cli/src/commands/serve/serve-pack.e2e.test.ts',
    'packages/cli/src/commands/eval-search/eval-search.e2e.test.ts',
    'packages/cli/src/internal-error.e2e.test.ts',
  ];

  it('passes the CLI end-to-end suites run against the installed bin', () => {
    packedOf('@toolpack/cli');
    const vitest = path.join(repoRoot, 'node_modules', 'vitest', 'vitest.mjs');
    // Its own reporter, so the nested run never writes over this run's .vitest/results.json.
    const result = spawnSync(process.execPath, [vitest, 'run', ...SUITES, '--reporter=dot'], {
      cwd: repoRoot,
      env: createPlainEnv({ TOOLPACK_E2E_MCP_BIN: installedBin() }),
      encoding: 'utf8',
      timeout: 280_000,
      maxBuffer: 64 * 1024 * 1024,
    });
    const output = `${result.stdout}\n${result.stderr}`;
    expect(result.status, output.slice(-8000)).toBe(0);
    expect(output).toMatch(new RegExp(`Test Files\\s+\\S*${SUITES.length} passed`));
  }, 300_000);
});

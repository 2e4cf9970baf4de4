// The Node minimum is stated once (`engines`) and enforced where a user meets it: the `mcp`
// bin, the registry, `pnpm registry` and toolchain.sh (scripts/check-node.mjs), and doctor.
// Each of them is run here on faked Node versions around the edges of the range, and the
// built CLI and registry are run on exactly the minimum Node when it is installed
// (.ci/run installs it into .tools/node-<version>).
import { spawn, spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const root = path.resolve(import.meta.dirname, '../..');
const readJson = (file: string) =>
  JSON.parse(readFileSync(path.join(root, file), 'utf8')) as { engines?: { node?: string } };
const ENGINES = readJson('package.json').engines?.node ?? '';

/** Whether `version` meets `range` (the `^a.b.c || >=a.b.c` forms `engines` uses here). */
function satisfies(version: string, range: string): boolean {
  const [major = 0, minor = 0, patch = 0] = version.split('.').map(Number);
  const at = (v: number[]) => [major, minor, patch].map((n, i) => n - (v[i] ?? 0));
  const atLeast = (v: number[]) => (at(v).find((d) => d !== 0) ?? 0) >= 0;
  return range.split('||').some((part) => {
    const match = /^\s*(\^|>=)(\d+)\.(\d+)\.(\d+)\s*$/.exec(part);
    if (match === null)
      throw new Error(`engines range "${range}" has a form this test cannot read`);
    const bound = match.slice(2).map(Number);
    return atLeast(bound) && (match[1] === '>=' || major === bound[0]);
  });
}

/** The lowest version `engines` admits: the Node CI runs the built CLI on. */
function minimumOf(range: string): string {
  return range
    .split('||')
    .map((part) => part.trim().replace(/^(\^|>=)/, ''))
    .sort((a, b) => {
      const [x, y] = [a, b].map((v) => v.split('.').map(Number));
      return (x![0]! - y![0]!) * 1e6 + (x![1]! - y![1]!) * 1e3 + (x![2]! - y![2]!);
    })[0]!;
}

// Both sides of every edge: the previous minimum, type stripping, chokidar, Node 23, 24+.
const VERSIONS = [
  '20.20.2',
  '22.13.0',
  '22.17.1',
  '22.18.0',
  '22.21.1',
  '22.22.0',
  '22.30.4',
  '23.6.0',
  '23.11.1',
  '24.0.0',
  '25.2.1',
  '26.0.0',
];

let work = '';
let fakeVersion = '';

beforeAll(() => {
  work = mkdtempSync(path.join(os.tmpdir(), 'toolpack-node-minimum-'));
  fakeVersion = path.join(work, 'fake-node-version.mjs');
  // Preloaded before the entry: the checks read what a Node of that version would report.
  writeFileSync(
    fakeVersion,
    [
      'const version = process.env.FAKE_NODE_VERSION;',
      "Object.defineProperty(process.versions, 'node', { value: version });",
      "Object.defineProperty(process, 'version', { value: `v${version}` });",
    ].join('\n'),
  );
});

afterAll(() => {
  if (work !== '') rmSync(work, { recursive: true, force: true });
});

function runAs(version: string, args: string[]): SpawnSyncReturns<string> {
  const { NODE_OPTIONS: _ignored, ...env } = process.env;
  return spawnSync(process.execPath, ['--import', pathToFileURL(fakeVersion).href, ...args], {
    cwd: root,
    encoding: 'utf8',
    env: { ...env, FAKE_NODE_VERSION: version, NO_COLOR: '1' },
    timeout: 60_000,
  });
}

describe('the stated Node minimum', () => {
  it('is one range in every package.json, and its lowest Node runs TypeScript without a flag', () => {
    const manifests = [
      'package.json',
      ...['packages', 'apps'].flatMap((folder) =>
        readdirSync(path.join(root, folder))
          .map((name) => `${folder}/${name}/package.json`)
          .filter((file) => existsSync(path.join(root, file))),
      ),
    ];
    expect(manifests.length).toBeGreaterThan(7);
    for (const file of manifests)
      expect([file, readJson(file).engines?.node]).toEqual([file, ENGINES]);
    // 22.13 was stated while it could not load a .ts module (ERR_UNKNOWN_FILE_EXTENSION).
    expect(satisfies('22.13.0', ENGINES)).toBe(false);
    expect(satisfies('22.17.1', ENGINES)).toBe(false);
    expect(satisfies('23.11.1', ENGINES)).toBe(false);
    expect(satisfies('24.0.0', ENGINES)).toBe(true);
  });

  it.each(VERSIONS)(
    'mcp on Node %s: runs when engines admits it, else one line with the fix',
    (version) => {
      const result = runAs(version, ['packages/cli/bin/mcp.js', '--version']);
      if (satisfies(version, ENGINES)) {
        expect(result.stderr).not.toContain('is not supported');
      } else {
        expect(result.status).toBe(1);
        expect(result.stderr).toMatch(
          new RegExp(
            `^mcp: Node v${version.replaceAll('.', '\\.')} is not supported: .*Install Node 24 LTS.*\\n$`,
          ),
        );
        expect(result.stdout).toBe('');
      }
    },
  );

  it.each(VERSIONS)(
    'the registry on Node %s: starts when engines admits it, else one line',
    (version) => {
      const result = runAs(version, [
        '--conditions=@toolpack/source',
        'apps/registry/src/cli.ts',
        '--help',
      ]);
      if (satisfies(version, ENGINES)) {
        expect([result.status, result.stdout]).toEqual([
          0,
          expect.stringContaining('toolpack-registry serve'),
        ]);
      } else {
        expect(result.status).toBe(1);
        expect(result.stderr).toMatch(/^toolpack-registry: Node v\S+ is not supported: [^\n]*\n$/);
      }
    },
  );

  it.each(VERSIONS)(
    'scripts/check-node.mjs (toolchain.sh, pnpm registry) on Node %s',
    (version) => {
      const result = runAs(version, ['scripts/check-node.mjs']);
      expect(result.status).toBe(satisfies(version, ENGINES) ? 0 : 1);
      if (result.status === 1)
        expect(result.stderr).toMatch(
          /^toolpack: Node v\S+ is not supported: [^\n]*toolchain\.sh[^\n]*\n$/,
        );
    },
  );

  it('pnpm registry checks Node before loading TypeScript: one line, no stack', () => {
    const script = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')).scripts
      .registry as string;
    expect(script).toMatch(/^node --import \.\/scripts\/check-node\.mjs /);
  });

  it.each(['22.21.1', '22.22.0', '23.11.1', '24.0.0'])('doctor on Node %s', (version) => {
    const result = runAs(version, [
      '--conditions=@toolpack/source',
      'packages/cli/src/bin.ts',
      'doctor',
    ]);
    const nodeLine = result.stdout.split('\n').find((line) => /^\w+\s+node\s/.test(line)) ?? '';
    expect(nodeLine).toMatch(
      satisfies(version, ENGINES) ? /^ok\s/i : /^fail\s+node\s+Node v\S+ is not supported/i,
    );
  });
});

const minimum = minimumOf(ENGINES);
const platform = `${process.platform === 'darwin' ? 'darwin' : 'linux'}-${process.arch}`;
const minimumNode = path.join(
  root,
  `.tools/node-${minimum}/node_modules/node-${platform}/bin/node`,
);
const builtCli = path.join(root, 'packages/cli/bin/mcp.js');
const hasMinimumNode = existsSync(minimumNode);

/** Runs the built CLI on the minimum Node, without the source condition, as installed. */
function runMinimum(args: string[]): SpawnSyncReturns<string> {
  const { NODE_OPTIONS: _ignored, ...env } = process.env;
  return spawnSync(minimumNode, args, {
    cwd: root,
    encoding: 'utf8',
    env: { ...env, NO_COLOR: '1' },
    timeout: 120_000,
  });
}

describe.skipIf(!hasMinimumNode)(
  `the built CLI and registry on exactly Node ${minimum} [needs Node ${minimum} in .tools/node-${minimum}: .ci/run installs it]`,
  () => {
    it('runs the real Node it says', () => {
      expect(runMinimum(['--version']).stdout.trim()).toBe(`v${minimum}`);
    });

    it('mcp --version, check and call a TypeScript module tool', () => {
      const version = runMinimum([builtCli, '--version']);
      expect([version.status, version.stderr]).toEqual([0, '']);
      const check = runMinimum([builtCli, '-C', 'examples', 'check', '--no-cache']);
      expect(check.stdout + check.stderr).not.toContain('E_MODULE_LOAD');
      expect(check.status).toBe(0);
      expect(check.stdout + check.stderr).toMatch(/0 errors/);
      const call = runMinimum([
        builtCli,
        '-C',
        'examples',
        'call',
        'add_numbers',
        '--no-cache',
        '--args',
        '{"numbers":[2,3]}',
      ]);
      expect([call.status, call.stdout.trim()]).toEqual([0, '{"sum":5}']);
    });

    it('the built registry starts, seeds and searches (node:sqlite with FTS5)', async () => {
      const data = path.join(work, 'registry-data');
      const registry = spawn(
        minimumNode,
        [path.join(root, 'apps/registry/dist/cli.mjs'), 'serve', '--port', '0', '--data', data],
        { cwd: work, stdio: ['ignore', 'pipe', 'pipe'] },
      );
      try {
        let output = '';
        const url = await new Promise<string>((resolve, reject) => {
          const onData = (chunk: Buffer) => {
            output += chunk.toString();
            const match = /listening on (http:\/\/\S+?) /.exec(output);
            if (match) resolve(match[1]!);
          };
          registry.stdout.on('data', onData);
          registry.stderr.on('data', onData);
          registry.once('exit', (code) => reject(new Error(`registry exited ${code}: ${output}`)));
        });
        const search = runMinimum([
          builtCli,
          'pack',
          'search',
          'jira',
          '--registry',
          url,
          '--json',
        ]);
        expect(search.status).toBe(0);
        const names = (JSON.parse(search.stdout) as { packs: { name: string }[] }).packs.map(
          (pack) => pack.name,
        );
        expect(names).toContain('jira');
      } finally {
        registry.kill();
      }
    }, 120_000);
  },
);

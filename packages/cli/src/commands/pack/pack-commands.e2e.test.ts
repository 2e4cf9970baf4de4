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
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { discoverTools } from '@toolpack/discovery';
import { createPackTarball, loadProject } from '@toolpack/packs';
import { buildTarball, startTestRegistry, type TestRegistry } from '@toolpack/packs/testing';
import { describePackTools } from './discover-pack-tools.ts';
import { runMcp, startMcp } from '../../testing/run-mcp.ts';

const repo = path.resolve(import.meta.dirname, '..', '..', '..', '..', '..');
const officialPacks = path.join(repo, 'registry', 'packs');
const fixturePacks = path.join(import.meta.dirname, 'fixtures', 'packs');

const made: string[] = [];
function tempDir(prefix: string): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), `toolpack-pack-e2e-${prefix}-`));
  made.push(dir);
  return dir;
}
afterEach(() => {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});

let cacheDir: string;
function env(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const clean = { ...process.env };
  for (const name of [
    'TOOLPACK_REGISTRY',
    'TOOLPACK_TOKEN',
    'JIRA_BASE_URL',
    'JIRA_EMAIL',
    'JIRA_API_TOKEN',
  ])
    delete clean[name];
  return { ...clean, NO_COLOR: '1', TOOLPACK_CACHE_DIR: cacheDir, ...extra };
}

const mcp = (args: string[], cwd: string, extra: NodeJS.ProcessEnv = {}) =>
  runMcp(args, { cwd, env: env(extra) });
/** The same, asynchronously: the loopback registry runs in this process and must keep answering. */
const mcpAsync = (args: string[], cwd: string, extra: NodeJS.ProcessEnv = {}) =>
  startMcp(args, { cwd, env: env(extra) });

function tree(dir: string): string[] {
  const out: string[] = [];
  const walk = (relative: string) => {
    for (const entry of readdirSync(path.join(dir, relative), { withFileTypes: true })) {
      const child = relative === '' ? entry.name : `${relative}/${entry.name}`;
      out.push(entry.isDirectory() ? `${child}/` : child);
      if (entry.isDirectory()) walk(child);
    }
  };
  walk('');
  return out.sort();
}

let registry: TestRegistry;
beforeAll(async () => {
  cacheDir = mkdtempSync(path.join(os.tmpdir(), 'toolpack-pack-e2e-cache-'));
  registry = await startTestRegistry({
    packs: [path.join(fixturePacks, 'hello'), path.join(officialPacks, 'json')],
    describeTools: describePackTools,
    tokens: { 'tok-acme': 'acme' },
    tarballDelayMs: 0,
  });
});
afterAll(async () => {
  await registry.close();
  rmSync(cacheDir, { recursive: true, force: true });
});

describe('mcp pack search', { timeout: 60_000 }, () => {
  it('lists the official packs tagged MCPTools from a folder registry', () => {
    const { code, stdout } = mcp(
      ['pack', 'search', '--tag', 'MCPTools', '--registry', officialPacks],
      repo,
    );
    expect(code).toBe(0);
    expect(stdout.split('\n')[0]).toMatch(/^NAME\s+VERSION\s+TOOLS\s+TAGS\s+DESCRIPTION$/);
    expect(stdout).toMatch(
      /^jira\s+1\.1\.1\s+5\s+MCPTools, jira, atlassian, issues\s+Jira issue tools/m,
    );
    expect(stdout).toMatch(/^json\s+1\.1\.1\s+3\s+MCPTools, json, data\s+JSON tools/m);
  });

  it('needs every tag, matches words, and prints the API answer with --json', async () => {
    const both = await mcpAsync(
      [
        'pack',
        'search',
        '--tag',
        'mcptools',
        '--tag',
        'JSON',
        '--json',
        '--registry',
        registry.url,
      ],
      repo,
    );
    expect(both.code).toBe(0);
    expect(JSON.parse(both.stdout)).toEqual({
      packs: [
        {
          name: 'json',
          version: '1.1.1',
          description: expect.stringMatching(/^JSON tools/),
          tags: ['MCPTools', 'json', 'data'],
          toolCount: 3,
        },
      ],
      metadata: { count: 1, nextCursor: null },
    });
    const words = await mcpAsync(['pack', 'search', 'greets', '--registry', registry.url], repo);
    expect(words.stdout).toMatch(/^hello\s+1\.0\.0\s+1\s/m);
    const none = await mcpAsync(
      ['pack', 'search', '--tag', 'nothing-has-this', '--registry', registry.url],
      repo,
    );
    expect(none).toMatchObject({ code: 0, stdout: `No packs match in ${registry.url}.\n` });
  });

  it('takes the registry from TOOLPACK_REGISTRY, and says when it cannot be reached', () => {
    expect(
      mcp(['pack', 'search', '--tag', 'MCPTools'], repo, { TOOLPACK_REGISTRY: officialPacks })
        .stdout,
    ).toMatch(/^jira\s/m);
    const down = mcp(['pack', 'search'], repo, { TOOLPACK_REGISTRY: 'http://127.0.0.1:1' });
    expect(down.code).toBe(1);
    expect(down.stderr).toMatch(/^error Cannot reach the registry at http:\/\/127\.0\.0\.1:1/);
  });
});

describe('mcp pack add, list, info and remove in an empty folder', { timeout: 60_000 }, () => {
  it('adds jira from ./registry/packs, serves jira_* tools, and removing it restores the folder', async () => {
    const project = tempDir('jira');
    const added = mcp(['pack', 'add', '--yes', 'jira', '--registry', officialPacks], project);
    expect(added.stderr).toContain(
      'warning jira needs JIRA_API_TOKEN (a secret), which is not set',
    );
    // Its tools wait only on that env, said above with its description: no second warning.
    expect(added.stderr).not.toContain('cannot run on this machine');
    expect(added.code).toBe(0);
    expect(added.stdout).toBe(
      'added jira@1.1.1 (^1.1.1) in .toolpack/packs/jira: 5 tools\n  jira_add_comment\n  jira_create_issue\n  jira_get_issue\n  jira_search_issues\n  jira_transition_issue\n',
    );
    expect(
      tree(project).filter(
        (f) => !f.startsWith('.toolpack/packs/jira/') || f === '.toolpack/packs/jira/',
      ),
    ).toEqual([
      '.toolpack/',
      // The add looks for tools this machine cannot run as mcp list does, with its cache.
      '.toolpack/cache/',
      '.toolpack/cache/discovery-v1.json',
      '.toolpack/packs/',
      '.toolpack/packs/jira/',
      'toolpack.lock',
      'toolpack.yaml',
    ]);
    expect(tree(path.join(project, '.toolpack', 'packs', 'jira'))).toEqual([
      'README.md',
      'src/',
      'src/jira-tools.mjs',
      'toolpack.yaml',
    ]);
    expect(readFileSync(path.join(project, 'toolpack.yaml'), 'utf8')).toBe(
      'packs:\n  jira: ^1.1.1\n',
    );
    const lock = JSON.parse(readFileSync(path.join(project, 'toolpack.lock'), 'utf8'));
    expect(lock.packs.jira).toEqual({
      name: 'jira',
      version: '1.1.1',
      resolved: `file:${path.relative(project, path.join(officialPacks, 'jira')).split(path.sep).join('/')}`,
      integrity: expect.stringMatching(/^sha512-/),
      permissions: {
        filesystem: { read: [], write: [] },
        network: { access: 'any', hosts: expect.any(Array) },
        env: ['JIRA_API_TOKEN', 'JIRA_BASE_URL', 'JIRA_EMAIL'],
        subprocess: false,
      },
      tools: expect.objectContaining({ jira_get_issue: expect.stringMatching(/^sha256-/) }),
    });
    // What it may touch was shown before it was installed, and approved with --yes.
    expect(added.stderr).toMatch(/^jira@1\.1\.1 asks that its tools may:\n {2}files: /);
    expect(added.stderr).toContain('  network: any host');
    expect(added.stderr).toContain('Approved (--yes).');

    // What mcp list / mcp serve get once the CLI reads the project's packs.
    const loaded = await loadProject(project);
    const sources = loaded.status === 'loaded' ? loaded.project.sources : [];
    expect(sources).toEqual([
      {
        module: '.toolpack/packs/jira/src/jira-tools.mjs',
        pack: 'jira',
        // Its own interpreters only (it declares none): never the project's or another pack's.
        interpreters: {},
        // Confined to what was approved at add.
        sandbox: true,
        permissions: lock.packs.jira.permissions,
        sandboxRoot: '.toolpack/packs/jira',
      },
    ]);
    const listed = await discoverTools({
      sources,
      cwd: project,
      cache: false,
    });
    expect(
      listed.tools
        .filter((t) => t.source.pack === 'jira')
        .map((t) => t.name)
        .sort(),
    ).toEqual([
      'jira_add_comment',
      'jira_create_issue',
      'jira_get_issue',
      'jira_search_issues',
      'jira_transition_issue',
    ]);

    // And what the real `mcp list` shows there: the pack's tools, namespaced, with source.pack.
    const served = mcp(['list', '--json'], project);
    expect(served.code).toBe(0);
    const report = JSON.parse(served.stdout) as {
      tools: { name: string; source: { kind: string; path: string; pack?: string } }[];
    };
    expect(
      report.tools
        .filter((t) => t.source.pack === 'jira')
        .map((t) => t.name)
        .sort(),
    ).toEqual([
      'jira_add_comment',
      'jira_create_issue',
      'jira_get_issue',
      'jira_search_issues',
      'jira_transition_issue',
    ]);
    expect(report.tools.find((t) => t.name === 'jira_get_issue')?.source).toMatchObject({
      kind: 'js-module',
      path: '.toolpack/packs/jira/src/jira-tools.mjs',
      pack: 'jira',
    });
    rmSync(path.join(project, '.toolpack', 'cache'), { recursive: true, force: true });

    const list = mcp(['pack', 'list'], project);
    expect(list.stdout).toMatch(/^jira\s+jira\s+\^1\.1\.1\s+1\.1\.1\s+installed$/m);

    const removed = mcp(['pack', 'remove', 'jira'], project);
    expect(removed).toMatchObject({ code: 0, stdout: 'removed jira@1.1.1\n' });
    expect(tree(project)).toEqual([]);
  });

  it('shows a pack with its versions, env and each tool with its schema', () => {
    const info = mcp(['pack', 'info', 'jira', '--registry', officialPacks], repo);
    expect(info.code).toBe(0);
    expect(info.stdout).toMatch(/^jira@1\.1\.1 {2}Jira issue tools/);
    expect(info.stdout).toContain('versions: 1.1.1 (latest)');
    expect(info.stdout).toContain('  JIRA_API_TOKEN (required, secret) An API token');
    expect(info.stdout).toContain(
      'permissions (as the registry states them):\n  files: read its own folder; write nothing\n  network: any host (says it reaches *.atlassian.net)\n',
    );
    expect(info.stdout).toMatch(/ {2}search_issues {2}Finds Jira issues with a JQL query/);
    expect(info.stdout).toMatch(
      /hints: readOnlyHint: true, idempotentHint: true, openWorldHint: true/,
    );
    expect(info.stdout).toContain('"jql": {');
    const json = JSON.parse(
      mcp(['pack', 'info', 'jira', '--json', '--registry', officialPacks], repo).stdout,
    );
    expect(json.version.tools.map((t: { name: string }) => t.name)).toEqual([
      'add_comment',
      'create_issue',
      'get_issue',
      'search_issues',
      'transition_issue',
    ]);
  });

  it('adds from a loopback registry under an alias, with a progress line for a slow download', async () => {
    const slow = await startTestRegistry({
      packs: [path.join(fixturePacks, 'hello')],
      describeTools: describePackTools,
      tarballDelayMs: 1500,
    });
    try {
      const project = tempDir('slow');
      const added = await mcpAsync(
        ['pack', 'add', '--yes', 'hello@^1.0.0', '--as', 'hi', '--registry', slow.url],
        project,
        { TOOLPACK_CACHE_DIR: tempDir('cache') },
      );
      expect(added.code).toBe(0);
      expect(added.stdout).toMatch(
        /^added hello@1\.0\.0 as hi \(\^1\.0\.0\) in \.toolpack\/packs\/hi: 1 tool\n {2}hi_greet\n$/,
      );
      expect(added.stderr).toMatch(/downloading hello@1\.0\.0 {2}\d+% \(/);
      expect(readFileSync(path.join(project, 'toolpack.yaml'), 'utf8')).toBe(
        'packs:\n  hi: hello@^1.0.0\n',
      );
    } finally {
      await slow.close();
    }
  });

  it('refuses an alias or tool-name collision, changing nothing', async () => {
    const project = tempDir('collide');
    mkdirSync(path.join(project, 'scripts'));
    writeFileSync(
      path.join(project, 'scripts', 'hello_greet.mjs'),
      '// DESCRIPTION "Our own greeting."\n// PARAM name AS string DESCRIPTION "Who."\nconsole.log("hi")\n',
    );
    writeFileSync(path.join(project, 'toolpack.yaml'), '# ours\nsources:\n  - scripts: scripts\n');
    const before = tree(project);
    const clash = await mcpAsync(
      ['pack', 'add', '--yes', 'hello', '--registry', registry.url],
      project,
    );
    expect(clash.code).toBe(1);
    expect(clash.stderr).toMatch(
      /^error hello@1\.0\.0 would serve a tool name that another tool of the project has, so nothing was installed:\n {2}- Two tools are named hello_greet: the pack hello's tool greet \(\.toolpack\/packs\/hello\/scripts\/greet\.mjs:1\) and scripts\/hello_greet\.mjs:1\. .*\nhint: Serve the pack under another alias/,
    );
    expect(tree(project)).toEqual(before);
    expect(
      (
        await mcpAsync(
          ['pack', 'add', '--yes', 'hello', '--as', 'hey', '--registry', registry.url],
          project,
        )
      ).code,
    ).toBe(0);
    const alias = await mcpAsync(
      ['pack', 'add', '--yes', 'json', '--as', 'hey', '--registry', registry.url],
      project,
    );
    expect(alias).toMatchObject({
      code: 1,
      stderr: expect.stringMatching(/The alias hey is already used by the pack hello/),
    });
  });

  it('refuses a hostile tarball and leaves the folder as it was', async () => {
    registry.addRaw(
      { name: 'evil', version: '1.0.0' },
      buildTarball([
        {
          path: 'package/toolpack.yaml',
          data: 'name: evil\nversion: 1.0.0\ndescription: x\nsources: [{ scripts: s }]\n',
        },
        { path: 'package/../../../escaped.txt', data: 'gotcha' },
        { path: 'package/s/link', type: 'SymbolicLink', linkpath: '/etc/passwd' },
      ]),
    );
    const project = tempDir('evil');
    writeFileSync(path.join(project, 'toolpack.yaml'), 'packs: {}\n');
    const result = await mcpAsync(
      ['pack', 'add', '--yes', 'evil', '--registry', registry.url],
      project,
    );
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(
      'The tarball of evil@1.0.0 was refused and nothing was installed:',
    );
    expect(result.stderr).toMatch(/climbs out of the pack/);
    expect(result.stderr).toMatch(/is a symbolic link \(to "\/etc\/passwd"\)/);
    expect(tree(project)).toEqual(['toolpack.yaml']);
    expect(existsSync(path.join(project, '..', '..', '..', 'escaped.txt'))).toBe(false);
  });

  it('exits 2 for bad input', () => {
    const project = tempDir('usage');
    expect(mcp(['pack', 'add', '--yes', 'Bad_Name'], project)).toMatchObject({
      code: 2,
      stderr: expect.stringMatching(/"Bad_Name" is not a valid pack name/),
    });
    expect(
      mcp(['pack', 'add', '--yes', 'jira@^x', '--registry', officialPacks], project).stderr,
    ).toMatch(/"\^x" is not a valid semver range/);
    writeFileSync(path.join(project, 'toolpack.yaml'), 'packs:\n  jira: "^x"\n');
    const broken = mcp(['pack', 'add', '--yes', 'json', '--registry', officialPacks], project);
    expect(broken.code).toBe(2);
    expect(broken.stderr).toMatch(
      /toolpack\.yaml:2: error E_MANIFEST_FIELD: packs\.jira: "\^x" is not a valid semver range/,
    );
    expect(mcp(['pack', 'remove', 'nope'], tempDir('none')).code).toBe(1);
  });
});

describe('mcp pack install and update', { timeout: 60_000 }, () => {
  it('installs exactly the lock from the cache offline, and --frozen refuses drift', async () => {
    const project = tempDir('install');
    expect(
      (await mcpAsync(['pack', 'add', '--yes', 'json', '--registry', registry.url], project)).code,
    ).toBe(0);
    rmSync(path.join(project, '.toolpack'), { recursive: true });
    const offline = mcp(['pack', 'install', '--offline', '--frozen'], project);
    expect(offline).toMatchObject({
      code: 0,
      stdout: 'installed json@1.1.1 (from the cache)\n1 pack installed, 0 up to date\n',
    });
    expect(
      existsSync(path.join(project, '.toolpack', 'packs', 'json', 'scripts', 'query.mjs')),
    ).toBe(true);

    // Tampered files are not "up to date" (issue 14 finding 14): they are put back.
    const query = path.join(project, '.toolpack', 'packs', 'json', 'scripts', 'query.mjs');
    const pristine = readFileSync(query, 'utf8');
    writeFileSync(query, `${pristine}\nprocess.env.STOLEN = "yes";\n`);
    const repaired = mcp(['pack', 'install', '--offline', '--frozen'], project);
    expect(repaired).toMatchObject({
      code: 0,
      stderr:
        'warning .toolpack/packs/json did not match its locked tarball (changed scripts/query.mjs); reinstalling it.\n',
      stdout: 'installed json@1.1.1 (from the cache)\n1 pack installed, 0 up to date\n',
    });
    expect(readFileSync(query, 'utf8')).toBe(pristine);

    const empty = mcp(['pack', 'install', '--offline'], project, {
      TOOLPACK_CACHE_DIR: tempDir('empty'),
    });
    expect(empty.stdout).toContain('0 packs installed, 1 up to date');
    expect(empty.stderr).toMatch(
      /^warning \.toolpack\/packs\/json was not checked against its locked tarball: json@1\.1\.1 is not in the pack cache/,
    );
    rmSync(path.join(project, '.toolpack'), { recursive: true });
    const missing = mcp(['pack', 'install', '--offline'], project, {
      TOOLPACK_CACHE_DIR: tempDir('empty'),
    });
    expect(missing).toMatchObject({
      code: 1,
      stderr: expect.stringMatching(/json@1\.1\.1 is not in the pack cache/),
    });

    writeFileSync(path.join(project, 'toolpack.yaml'), 'packs:\n  json: ^2.0.0\n');
    const frozen = mcp(['pack', 'install', '--frozen'], project);
    expect(frozen.code).toBe(1);
    expect(frozen.stderr).toContain(
      'toolpack.lock does not match toolpack.yaml (--frozen):\n  - json is locked at 1.1.1, outside ^2.0.0 in toolpack.yaml',
    );
  });

  it('updates within the range when a new version is published', async () => {
    const own = await startTestRegistry({
      packs: [path.join(fixturePacks, 'hello')],
      describeTools: describePackTools,
    });
    try {
      const project = tempDir('update');
      expect(
        (await mcpAsync(['pack', 'add', '--yes', 'hello', '--registry', own.url], project)).code,
      ).toBe(0);
      const current = await mcpAsync(['pack', 'update', '--registry', own.url], project);
      expect(current.stdout).toBe('hello is up to date (1.0.0)\n');
      const next = path.join(tempDir('next'), 'hello');
      cpSync(path.join(fixturePacks, 'hello'), next, { recursive: true });
      const manifest = path.join(next, 'toolpack.yaml');
      writeFileSync(
        manifest,
        readFileSync(manifest, 'utf8').replace('version: 1.0.0', 'version: 1.1.0'),
      );
      await own.add((await createPackTarball({ dir: next })).tarball!);
      const updated = await mcpAsync(['pack', 'update', 'hello', '--registry', own.url], project);
      expect(updated).toMatchObject({ code: 0, stdout: 'updated hello 1.0.0 -> 1.1.0\n' });
      expect(readFileSync(path.join(project, 'toolpack.yaml'), 'utf8')).toBe(
        'packs:\n  hello: ^1.0.0\n',
      );
      expect(mcp(['pack', 'list', '--json'], project).stdout).toContain('"version": "1.1.0"');
    } finally {
      await own.close();
    }
  });
});

describe('mcp pack pack and publish', { timeout: 60_000 }, () => {
  it('makes a byte-identical .tgz twice and prints its integrity', () => {
    const out = tempDir('out');
    const first = mcp(
      ['pack', 'pack', path.join(officialPacks, 'jira'), '--out', path.join(out, 'a.tgz')],
      repo,
    );
    expect(first.code).toBe(0);
    expect(first.stdout).toMatch(/^jira@1\.1\.1 {2}Jira issue tools/);
    expect(first.stdout).toContain(
      '5 tools: add_comment, create_issue, get_issue, search_issues, transition_issue',
    );
    expect(first.stdout).toMatch(/ {2}integrity: sha512-[A-Za-z0-9+/]{86}==\n/);
    const second = JSON.parse(
      mcp(
        [
          'pack',
          'pack',
          path.join(officialPacks, 'jira'),
          '--out',
          path.join(out, 'b.tgz'),
          '--json',
        ],
        repo,
      ).stdout,
    );
    expect(
      readFileSync(path.join(out, 'a.tgz')).equals(readFileSync(path.join(out, 'b.tgz'))),
    ).toBe(true);
    expect(first.stdout).toContain(second.integrity);
    expect(second.files).toEqual(['README.md', 'src/jira-tools.mjs', 'toolpack.yaml']);
    const named = mcp(['pack', 'pack', path.join(officialPacks, 'json')], out);
    expect(named.stdout).toContain('wrote json-1.1.1.tgz');
  });

  it('refuses to pack a folder with problems, listing each', () => {
    const dir = tempDir('bad-pack');
    writeFileSync(
      path.join(dir, 'toolpack.yaml'),
      'name: Bad\nversion: 1\nsources: [{ scripts: scripts }]\n',
    );
    const result = mcp(['pack', 'pack', dir], dir);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(
      /toolpack\.yaml:1: error E_MANIFEST_FIELD: name: "Bad" is not a valid pack name/,
    );
    expect(result.stderr).toMatch(
      /toolpack\.yaml:2: error E_MANIFEST_FIELD: version: 1 is not a semver version/,
    );
    expect(result.stderr).toMatch(/description: a pack needs a description/);
  });

  it("publishes with a token, and prints the registry's problems when it refuses", async () => {
    const dir = path.join(tempDir('publish'), 'acme-tools');
    cpSync(path.join(fixturePacks, 'hello'), dir, { recursive: true });
    const manifest = path.join(dir, 'toolpack.yaml');
    writeFileSync(
      manifest,
      readFileSync(manifest, 'utf8').replace('name: hello', 'name: acme/tools'),
    );
    const published = await mcpAsync(
      ['pack', 'publish', dir, '--registry', registry.url, '--token', 'tok-acme'],
      repo,
    );
    expect(published.stdout).toMatch(
      /^published acme\/tools@1\.0\.0 to http:\/\/127\.0\.0\.1:\d+ \(1 tools, sha512-/,
    );
    expect(published.code).toBe(0);
    const again = await mcpAsync(['pack', 'publish', dir, '--registry', registry.url], repo, {
      TOOLPACK_TOKEN: 'tok-acme',
    });
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(
      /^error The registry at .* refused the pack \(409: this version already exists .*\nhint: Raise `version:`/,
    );
    const denied = await mcpAsync(
      ['pack', 'publish', dir, '--registry', registry.url, '--token', 'wrong'],
      repo,
    );
    expect(denied).toMatchObject({
      code: 1,
      stderr: expect.stringMatching(/\(401: the token is missing or not valid\)/),
    });
    const strict = await startTestRegistry({ tokens: { t: '*' }, limits: { maxFileBytes: 50 } });
    try {
      const refused = await mcpAsync(
        ['pack', 'publish', dir, '--registry', strict.url, '--token', 't'],
        repo,
      );
      expect(refused.code).toBe(1);
      expect(refused.stderr).toMatch(
        /refused the pack \(422: the pack has problems\): The pack has problems\.\n {2}- /,
      );
      expect(refused.stderr).toMatch(
        /\n {2}- The tarball:package\/scripts\/greet\.mjs: scripts\/greet\.mjs is \d+ B; one file may be at most 50 B\.\n/,
      );
    } finally {
      await strict.close();
    }
    expect(mcp(['pack', 'publish', dir, '--registry', registry.url], repo)).toMatchObject({
      code: 2,
      stderr: expect.stringMatching(/Publishing needs a token/),
    });
    expect(
      mcp(['pack', 'publish', dir, '--registry', officialPacks, '--token', 't'], repo).stderr,
    ).toMatch(/publishing needs a registry URL/);
  });
});

describe('approving what a pack may do', { timeout: 90_000 }, () => {
  /** A folder registry holding one pack, `grow`, at `version` with `permissions` (YAML). */
  function writeGrow(registryDir: string, version: string, permissions = '', extraTool = false) {
    const dir = path.join(registryDir, 'grow');
    cpSync(path.join(fixturePacks, 'hello'), dir, { recursive: true });
    if (extraTool)
      writeFileSync(
        path.join(dir, 'scripts', 'wave.mjs'),
        '// DESCRIPTION "Waves."\nconsole.log("{}");\n',
      );
    writeFileSync(
      path.join(dir, 'toolpack.yaml'),
      `name: grow\nversion: ${version}\ndescription: Grows.\nsources:\n  - scripts: scripts\n${permissions}`,
    );
  }
  const NETWORK = 'permissions:\n  network: any\n';

  it('without a terminal, add needs --yes or --allow; --allow refuses a pack asking for more; nothing changes', () => {
    const registryDir = tempDir('approve-reg');
    writeGrow(registryDir, '1.0.0', NETWORK);
    const project = tempDir('approve');
    const add = (...flags: string[]) =>
      mcp(['pack', 'add', 'grow', '--registry', registryDir, ...flags], project);

    const unasked = add();
    expect(unasked.code).toBe(2);
    expect(unasked.stderr).toMatch(/^error A pack needs your approval and there is no one to ask/);
    expect(unasked.stderr).toContain(
      'grow: grow@1.0.0: not approved yet, asks to network access (any host)',
    );
    expect(unasked.stderr).toContain(
      'hint: Run the command on a terminal to be asked, or pass --yes',
    );
    expect(tree(project)).toEqual([]);

    const narrow = add('--allow', 'read:project,env:X');
    expect(narrow.code).toBe(1);
    // What it asks for was shown before the refusal.
    expect(narrow.stderr).toContain('grow@1.0.0 asks that its tools may:\n');
    expect(narrow.stderr).toContain(
      'error grow@1.0.0 asks for more than --allow grants (network access (any host)), so nothing was installed.',
    );
    expect(tree(project)).toEqual([]);

    expect(add('--allow', 'everything')).toMatchObject({
      code: 2,
      stderr: expect.stringContaining('"everything" is not a grant'),
    });

    const within = add('--allow', 'network,subprocess');
    expect(within.code).toBe(0);
    expect(within.stderr).toContain('Approved (within --allow).');
    expect(within.stdout).toMatch(/^added grow@1\.0\.0/);
  });

  it("install pins the packs' tools without discovering the project's own sources", () => {
    const registryDir = tempDir('approve-reg');
    writeGrow(registryDir, '1.0.0');
    const project = tempDir('approve');
    expect(mcp(['pack', 'add', 'grow', '--yes', '--registry', registryDir], project).code).toBe(0);
    // A broken source of the project's own is mcp check's business, not install's.
    writeFileSync(
      path.join(project, 'toolpack.yaml'),
      `${readFileSync(path.join(project, 'toolpack.yaml'), 'utf8')}sources:\n  - scripts: not-there\n`,
    );
    rmSync(path.join(project, '.toolpack'), { recursive: true });
    expect(mcp(['pack', 'install', '--frozen'], project)).toMatchObject({
      code: 0,
      stdout: expect.stringContaining('installed grow@1.0.0'),
    });
  });

  it('says which tools could not be read, and does not call them removed', () => {
    const registryDir = tempDir('approve-reg');
    writeGrow(registryDir, '1.0.0', '', true);
    const project = tempDir('approve');
    expect(mcp(['pack', 'add', 'grow', '--yes', '--registry', registryDir], project).code).toBe(0);
    // 1.0.1 breaks wave's header: discovery cannot read it, which is not a removal.
    writeGrow(registryDir, '1.0.1', '', true);
    writeFileSync(
      path.join(registryDir, 'grow', 'scripts', 'wave.mjs'),
      '// DESCRIPTION "Waves."\n// PARAM x AS no-such-type\n',
    );
    const updated = mcp(['pack', 'update', '--registry', registryDir], project);
    expect(updated).toMatchObject({ code: 0, stdout: 'updated grow 1.0.0 -> 1.0.1\n' });
    const lock = JSON.parse(readFileSync(path.join(project, 'toolpack.lock'), 'utf8'));
    expect(Object.keys(lock.packs.grow.tools)).toEqual(['grow_greet', 'grow_wave']);
    // Told when something else makes it ask: the next version adds a tool.
    writeGrow(registryDir, '1.0.2', '', true);
    writeFileSync(
      path.join(registryDir, 'grow', 'scripts', 'wave.mjs'),
      '// DESCRIPTION "Waves."\n// PARAM x AS no-such-type\n',
    );
    writeFileSync(path.join(registryDir, 'grow', 'scripts', 'nod.mjs'), '// DESCRIPTION "Nods."\n');
    const asked = mcp(['pack', 'update', '--yes', '--registry', registryDir], project);
    expect(asked.code).toBe(0);
    expect(asked.stderr).toContain('New tools: grow_nod\n');
    expect(asked.stderr).toMatch(
      /Some tools could not be read, so they are not compared \(their pins are kept\):\n {2}\.toolpack\/packs\/grow\/scripts\/wave\.mjs:2: /,
    );
    expect(asked.stderr).not.toContain('Removed tools');
  });

  it('says plainly when the sandbox cannot be had here', () => {
    const registryDir = tempDir('approve-reg');
    writeGrow(registryDir, '1.0.0');
    const project = tempDir('approve');
    const added = mcp(['pack', 'add', 'grow', '--yes', '--registry', registryDir], project, {
      TOOLPACK_SANDBOX: 'off',
    });
    expect(added.code).toBe(0);
    expect(added.stderr).toMatch(
      /The sandbox cannot be had on this machine \(TOOLPACK_SANDBOX=off[^\n]*\): its tools will run with your full rights, whatever they declare\./,
    );
  });

  it('an update that adds the network or a tool stops at mcp pack update; --frozen refuses drift; audit shows it', () => {
    const registryDir = tempDir('approve-reg');
    writeGrow(registryDir, '1.0.0');
    const project = tempDir('approve');
    expect(mcp(['pack', 'add', 'grow', '--yes', '--registry', registryDir], project).code).toBe(0);
    const audited = mcp(['pack', 'audit'], project);
    expect(audited).toMatchObject({ code: 0 });
    expect(audited.stdout).toMatch(
      /^grow 1\.0\.0: approved; the installed pack asks for exactly this\n {2}files: read its own folder; write nothing\n {2}network: none\n/,
    );
    expect(audited.stdout).toContain('  tools: 1 definition pinned\n');
    expect(audited.stdout).toMatch(/\nSandbox: /);

    writeGrow(registryDir, '1.1.0', NETWORK, true);
    const before = Object.fromEntries(
      ['toolpack.yaml', 'toolpack.lock'].map((f) => [
        f,
        readFileSync(path.join(project, f), 'utf8'),
      ]),
    );
    const update = (...flags: string[]) =>
      mcp(['pack', 'update', '--registry', registryDir, ...flags], project);
    const stopped = update();
    expect(stopped.code).toBe(2);
    expect(stopped.stderr).toContain(
      'grow: grow@1.1.0 (from 1.0.0): asks for more: network access (any host); tools added: grow_wave',
    );
    const refused = update('--allow', 'subprocess');
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(
      'More than you approved before:\n  + network access (any host)\n',
    );
    expect(refused.stderr).toContain('New tools: grow_wave\n');
    for (const [file, text] of Object.entries(before))
      expect(readFileSync(path.join(project, file), 'utf8')).toBe(text);
    expect(
      readFileSync(path.join(project, '.toolpack', 'packs', 'grow', 'toolpack.yaml'), 'utf8'),
    ).toContain('version: 1.0.0');

    const accepted = update('--yes');
    expect(accepted).toMatchObject({ code: 0, stdout: 'updated grow 1.0.0 -> 1.1.0\n' });
    const lock = JSON.parse(readFileSync(path.join(project, 'toolpack.lock'), 'utf8'));
    expect(lock.packs.grow.permissions.network.access).toBe('any');
    expect(Object.keys(lock.packs.grow.tools)).toEqual(['grow_greet', 'grow_wave']);
    expect(mcp(['pack', 'install', '--frozen'], project).code).toBe(0);

    // A lock whose approval no longer covers the pack: --frozen refuses, audit says so.
    lock.packs.grow.permissions.network = { access: 'none', hosts: [] };
    writeFileSync(path.join(project, 'toolpack.lock'), JSON.stringify(lock));
    const frozen = mcp(['pack', 'install', '--frozen'], project);
    expect(frozen.code).toBe(1);
    expect(frozen.stderr).toMatch(
      /^error toolpack\.lock did not approve what the installed packs ask for \(--frozen\)/,
    );
    expect(frozen.stderr).toContain('grow: grow@1.1.0: asks for more: network access (any host)');
    const drifted = mcp(['pack', 'audit', '--json'], project);
    expect(drifted.code).toBe(1);
    expect(JSON.parse(drifted.stdout).packs[0]).toMatchObject({
      alias: 'grow',
      status: 'asks-more',
      beyond: ['network access (any host)'],
    });
  });
});

import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { LEAST_PERMISSIONS } from '@toolpack/core';
import { createPackCache } from '../cache/pack-cache.ts';
import { computeIntegrity } from '../integrity/integrity.ts';
import { createHttpRegistry } from '../registry/http-registry.ts';
import { createPackTarball } from '../tarball/create-tarball.ts';
import { buildTarball, packManifestText, type RawTarEntry } from '../testing/build-tarball.ts';
import { checkScriptTools } from '../testing/check-script-tools.ts';
import { describeScriptTools } from '../testing/describe-script-tools.ts';
import { startTestRegistry, type TestRegistry } from '../testing/test-registry.ts';
import { addPack } from './add-pack.ts';
import { removePack } from './remove-pack.ts';
import { createTempDirs, snapshotTree } from './test-project.ts';

/** Approves every pack: these tests are about installing, not about approval. */
const approveAll = () => true;

const packs = path.join(import.meta.dirname, 'fixtures', 'packs');
const temp = createTempDirs();
let registry: TestRegistry;

beforeAll(async () => {
  registry = await startTestRegistry({ packs, describeTools: describeScriptTools });
});
afterAll(() => registry.close());
afterEach(() => temp.cleanup());

function setup() {
  const project = temp.make('project');
  const cache = createPackCache({ dir: temp.make('cache') });
  const client = createHttpRegistry({ url: registry.url });
  return { project, cache, client };
}

describe('addPack', () => {
  it('installs the latest version into an empty folder: toolpack.yaml, toolpack.lock, .toolpack/packs/<name>', async () => {
    const { project, cache, client } = setup();
    const report = await addPack({
      approve: approveAll,
      projectDir: project,
      name: 'hello',
      registry: client,
      cache,
      env: {},
    });
    expect(report).toMatchObject({
      alias: 'hello',
      name: 'hello',
      version: '1.1.0',
      range: '^1.1.0',
      tools: ['hello_greet'],
      unchanged: false,
      fromCache: false,
      missingEnv: [],
    });
    expect(readFileSync(path.join(project, 'toolpack.yaml'), 'utf8')).toBe(
      'packs:\n  hello: ^1.1.0\n',
    );
    const lock = JSON.parse(readFileSync(path.join(project, 'toolpack.lock'), 'utf8'));
    expect(lock).toEqual({
      lockfileVersion: 1,
      packs: {
        hello: {
          name: 'hello',
          version: '1.1.0',
          resolved: `${registry.url}/v0/packs/hello/-/hello-1.1.0.tgz`,
          integrity: expect.stringMatching(/^sha512-/),
          // Approved: what its toolpack.yaml asks for (it declares nothing: the least).
          permissions: LEAST_PERMISSIONS,
        },
      },
    });
    expect(Object.keys(snapshotTree(project))).toEqual([
      '.toolpack/',
      '.toolpack/packs/',
      '.toolpack/packs/hello/',
      '.toolpack/packs/hello/scripts/',
      '.toolpack/packs/hello/scripts/greet.mjs',
      '.toolpack/packs/hello/toolpack.yaml',
      'toolpack.lock',
      'toolpack.yaml',
    ]);
    expect(await cache.read(lock.packs.hello.integrity)).toBeDefined();
  });

  it('resolves a range and serves under an alias', async () => {
    const { project, cache, client } = setup();
    const report = await addPack({
      approve: approveAll,
      projectDir: project,
      name: 'hello',
      range: '~1.0',
      alias: 'hi',
      registry: client,
      cache,
    });
    expect(report).toMatchObject({
      alias: 'hi',
      version: '1.0.0',
      range: '~1.0',
      tools: ['hi_greet'],
    });
    expect(readFileSync(path.join(project, 'toolpack.yaml'), 'utf8')).toBe(
      'packs:\n  hi: hello@~1.0\n',
    );
    expect(existsSync(path.join(project, '.toolpack', 'packs', 'hi', 'scripts', 'greet.mjs'))).toBe(
      true,
    );
  });

  it('does not prefix a tool already named <alias>_..., and warns about unset required env', async () => {
    const { project, cache, client } = setup();
    const report = await addPack({
      approve: approveAll,
      projectDir: project,
      name: 'weather',
      registry: client,
      cache,
      env: {},
    });
    expect(report.tools).toEqual(['weather_now']);
    expect(report.missingEnv.map((e) => e.name)).toEqual(['WEATHER_API_KEY']);
    const set = await addPack({
      approve: approveAll,
      projectDir: project,
      name: 'weather',
      registry: client,
      cache,
      env: { WEATHER_API_KEY: 'k' },
    });
    expect(set).toMatchObject({ unchanged: true, missingEnv: [] });
  });

  it('keeps the comments and layout of an existing toolpack.yaml', async () => {
    const { project, cache, client } = setup();
    const original =
      '# mine\nsources:\n  - scripts: scripts   # our scripts\n\npacks:\n  weather: ^1.0.0  # forecasts\n';
    writeFileSync(path.join(project, 'toolpack.yaml'), original);
    await addPack({
      approve: approveAll,
      projectDir: project,
      name: 'hello',
      registry: client,
      cache,
    });
    expect(readFileSync(path.join(project, 'toolpack.yaml'), 'utf8')).toBe(
      `${original}  hello: ^1.1.0\n`,
    );
  });

  it('refuses an alias another pack uses, leaving the project as it was', async () => {
    const { project, cache, client } = setup();
    await addPack({
      approve: approveAll,
      projectDir: project,
      name: 'hello',
      registry: client,
      cache,
    });
    const before = snapshotTree(project);
    await expect(
      addPack({
        approve: approveAll,
        projectDir: project,
        name: 'weather',
        alias: 'hello',
        registry: client,
        cache,
      }),
    ).rejects.toMatchObject({
      code: 'E_ALIAS_TAKEN',
      message:
        'The alias hello is already used by the pack hello, so weather cannot be served as hello_*.',
    });
    expect(snapshotTree(project)).toEqual(before);
  });

  it('refuses a tool-name collision with the project, leaving the project as it was', async () => {
    const { project, cache, client } = setup();
    writeFileSync(path.join(project, 'toolpack.yaml'), 'sources:\n  - scripts: scripts\n');
    const before = snapshotTree(project);
    await expect(
      addPack({
        approve: approveAll,
        projectDir: project,
        name: 'hello',
        registry: client,
        cache,
        checkTools: checkScriptTools(['hello_greet', 'other']),
      }),
    ).rejects.toMatchObject({
      code: 'E_TOOL_COLLISION',
      message: expect.stringMatching(
        /^hello@1\.1\.0 would serve a tool name that another tool of the project has, so nothing was installed:\n {2}- Two tools are named hello_greet/,
      ),
    });
    expect(snapshotTree(project)).toEqual(before);
  });

  it('reports progress for a download, not for a cached tarball', async () => {
    const { project, cache, client } = setup();
    const labels: string[] = [];
    const onDownload = ({ name, version }: { name: string; version: string }) => {
      labels.push(`${name}@${version}`);
      return () => undefined;
    };
    await addPack({
      approve: approveAll,
      projectDir: project,
      name: 'hello',
      registry: client,
      cache,
      onDownload,
    });
    rmSync(path.join(project, '.toolpack'), { recursive: true });
    rmSync(path.join(project, 'toolpack.lock'));
    const again = await addPack({
      approve: approveAll,
      projectDir: project,
      name: 'hello',
      registry: client,
      cache,
      onDownload,
    });
    expect(again.fromCache).toBe(true);
    expect(labels).toEqual(['hello@1.1.0']);
  });

  it('says which version is deprecated', async () => {
    const own = await startTestRegistry({ packs: [path.join(packs, 'hello-1.0.0')] });
    try {
      own.deprecate('hello', '1.0.0', 'Use hello 2 instead.');
      const { project, cache } = setup();
      const report = await addPack({
        approve: approveAll,
        projectDir: project,
        name: 'hello',
        registry: createHttpRegistry({ url: own.url }),
        cache,
      });
      expect(report.deprecated).toBe('Use hello 2 instead.');
    } finally {
      await own.close();
    }
  });

  it('leaves yanked versions out of range resolution', async () => {
    const own = await startTestRegistry({
      packs: [path.join(packs, 'hello-1.0.0'), path.join(packs, 'hello-1.1.0')],
    });
    try {
      own.yank('hello', '1.1.0');
      const { project, cache } = setup();
      const report = await addPack({
        approve: approveAll,
        projectDir: project,
        name: 'hello',
        range: '^1.0.0',
        registry: createHttpRegistry({ url: own.url }),
        cache,
      });
      expect(report.version).toBe('1.0.0');
    } finally {
      await own.close();
    }
  });
});

describe('addPack refuses bad tarballs before writing anything outside a fresh temporary folder', () => {
  let own: TestRegistry;
  beforeAll(async () => {
    own = await startTestRegistry({ packs: [path.join(packs, 'hello-1.0.0')] });
  });
  afterAll(() => own.close());

  async function expectRefused(
    name: string,
    bytes: Buffer | undefined,
    expected: RegExp | string,
    code: string,
  ) {
    if (bytes !== undefined) own.addRaw({ name, version: '1.0.0' }, bytes);
    const { project, cache } = setup();
    writeFileSync(path.join(project, 'toolpack.yaml'), '# mine\npacks: {}\n');
    const before = snapshotTree(project);
    const error = await addPack({
      approve: approveAll,
      projectDir: project,
      name,
      registry: createHttpRegistry({ url: own.url }),
      cache,
    }).catch((e: unknown) => e);
    expect(error).toMatchObject({ code, message: expect.stringMatching(expected) });
    expect(snapshotTree(project)).toEqual(before);
    expect(snapshotTree(cache.dir.replace(/packs$/, ''))).toEqual({});
  }

  const manifest = (name: string): RawTarEntry => ({
    path: 'package/toolpack.yaml',
    data: packManifestText(name, '1.0.0'),
  });

  it('an integrity mismatch', async () => {
    own.replaceTarball('hello', '1.0.0', buildTarball([manifest('hello')]));
    await expectRefused('hello', undefined, /does not match its integrity/, 'E_INTEGRITY');
  });

  it.each([
    ['dotdot', [{ path: 'package/../../evil.txt', data: 'x' }], /climbs out of the pack/],
    ['absolute', [{ path: '/tmp/evil.txt', data: 'x' }], /is an absolute path/],
    [
      'symlink',
      [{ path: 'package/scripts/link', type: 'SymbolicLink', linkpath: '/etc/passwd' }],
      /symbolic link/,
    ],
    [
      'hardlink',
      [{ path: 'package/scripts/link', type: 'Link', linkpath: 'package/toolpack.yaml' }],
      /hard link/,
    ],
    ['device', [{ path: 'package/scripts/dev', type: 'CharacterDevice' }], /device file/],
    ['fifo', [{ path: 'package/scripts/fifo', type: 'FIFO' }], /FIFO/],
  ] as const)('a %s entry', async (name, entries, expected) => {
    await expectRefused(
      name,
      buildTarball([manifest(name), ...(entries as readonly RawTarEntry[])]),
      expected,
      'E_TARBALL_UNSAFE',
    );
  });

  it('a file over the size cap and a decompression bomb', async () => {
    await expectRefused(
      'bomb',
      buildTarball([
        manifest('bomb'),
        { path: 'package/zeros', data: Buffer.alloc(20 * 1024 * 1024) },
      ]),
      /decompresses to more than 100 times/,
      'E_TARBALL_UNSAFE',
    );
  });

  it('too many entries', async () => {
    const many = Array.from({ length: 5001 }, (_, i) => ({ path: `package/f/${i}.txt`, data: '' }));
    await expectRefused(
      'many',
      buildTarball([manifest('many'), ...many]),
      /more than 5000 entries/,
      'E_TARBALL_UNSAFE',
    );
  });

  it('a tarball holding another pack or version than asked', async () => {
    await expectRefused(
      'impostor',
      buildTarball([{ path: 'package/toolpack.yaml', data: packManifestText('hello', '1.0.0') }]),
      /The tarball for impostor@1\.0\.0 holds hello@1\.0\.0/,
      'E_TARBALL_MISMATCH',
    );
  });

  it('a tarball without a valid manifest', async () => {
    await expectRefused(
      'nomanifest',
      buildTarball([{ path: 'package/README.md', data: 'hi' }]),
      /has no toolpack\.yaml/,
      'E_TARBALL_UNSAFE',
    );
  });
});

describe('addPack with a broken project', () => {
  it('changes nothing when toolpack.lock cannot be read', async () => {
    const { project, cache, client } = setup();
    await addPack({
      approve: approveAll,
      projectDir: project,
      name: 'hello',
      range: '1.0.0',
      registry: client,
      cache,
    });
    const lock = path.join(project, 'toolpack.lock');
    rmSync(lock);
    mkdirSync(lock);
    const before = snapshotTree(project);
    await expect(
      addPack({
        approve: approveAll,
        projectDir: project,
        name: 'hello',
        range: '1.1.0',
        registry: client,
        cache,
      }),
    ).rejects.toMatchObject({ code: 'E_LOCKFILE' });
    expect(snapshotTree(project)).toEqual(before);
  });

  it('changes nothing when toolpack.yaml has problems, and says which', async () => {
    const { project, cache, client } = setup();
    writeFileSync(path.join(project, 'toolpack.yaml'), 'packs:\n  jira: ^x\n');
    const before = snapshotTree(project);
    await expect(
      addPack({ approve: approveAll, projectDir: project, name: 'hello', registry: client, cache }),
    ).rejects.toMatchObject({
      code: 'E_MANIFEST',
      message: expect.stringMatching(
        /toolpack\.yaml:2: error E_MANIFEST_FIELD: packs\.jira: "\^x" is not a valid semver range/,
      ),
    });
    expect(snapshotTree(project)).toEqual(before);
  });
});

describe('removePack', () => {
  it('restores an empty folder after add then remove', async () => {
    const { project, cache, client } = setup();
    await addPack({
      approve: approveAll,
      projectDir: project,
      name: 'hello',
      registry: client,
      cache,
    });
    const report = await removePack({ projectDir: project, name: 'hello' });
    expect(report).toEqual({
      alias: 'hello',
      name: 'hello',
      version: '1.1.0',
      manifestDeleted: true,
      lockDeleted: true,
    });
    expect(snapshotTree(project)).toEqual({});
  });

  it('takes out only that pack, by alias or name, and keeps the rest of the manifest', async () => {
    const { project, cache, client } = setup();
    const original = '# mine\npacks:\n  weather: ^1.0.0  # forecasts\n';
    writeFileSync(path.join(project, 'toolpack.yaml'), original);
    await addPack({
      approve: approveAll,
      projectDir: project,
      name: 'weather',
      registry: client,
      cache,
    });
    await addPack({
      approve: approveAll,
      projectDir: project,
      name: 'hello',
      alias: 'hi',
      registry: client,
      cache,
    });
    await removePack({ projectDir: project, name: 'hello' });
    expect(readFileSync(path.join(project, 'toolpack.yaml'), 'utf8')).toBe(original);
    expect(
      Object.keys(JSON.parse(readFileSync(path.join(project, 'toolpack.lock'), 'utf8')).packs),
    ).toEqual(['weather']);
    expect(existsSync(path.join(project, '.toolpack', 'packs', 'hi'))).toBe(false);
    await expect(removePack({ projectDir: project, name: 'nope' })).rejects.toMatchObject({
      code: 'E_PACK_NOT_INSTALLED',
    });
  });
});

describe('a pack from a folder registry', () => {
  it('records file:<relative folder> as resolved, so the project can move', async () => {
    const { project, cache } = setup();
    const folder = path.join(path.dirname(project), `${path.basename(project)}-registry`);
    cpSync(path.join(packs, 'hello-1.0.0'), path.join(folder, 'hello'), { recursive: true });
    try {
      const { openRegistry } = await import('../registry/open-registry.ts');
      const report = await addPack({
        approve: approveAll,
        projectDir: project,
        name: 'hello',
        registry: openRegistry({ location: folder }),
        cache,
      });
      expect(report.resolved).toBe(`file:../${path.basename(folder)}/hello`);
      const packed = await createPackTarball({ dir: path.join(folder, 'hello') });
      expect(report.integrity).toBe(computeIntegrity(packed.tarball!));
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });
});

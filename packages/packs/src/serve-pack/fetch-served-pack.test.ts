import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { LEAST_PERMISSIONS, type PackPermissions } from '@toolpack/core';
import { createHttpRegistry } from '../registry/http-registry.ts';
import { createTempDirs, snapshotTree } from '../project/test-project.ts';
import { buildTarball, packManifestText } from '../testing/build-tarball.ts';
import { describeScriptTools } from '../testing/describe-script-tools.ts';
import { startTestRegistry, type TestRegistry } from '../testing/test-registry.ts';
import { fetchServedPack, SERVED_DIR, type FetchServedPackOptions } from './fetch-served-pack.ts';

const fixtures = path.join(import.meta.dirname, '..', 'project', 'fixtures', 'packs');
const HELLO = ['hello-1.0.0', 'hello-1.1.0'].map((name) => path.join(fixtures, name));
const NETWORK: PackPermissions = {
  ...LEAST_PERMISSIONS,
  network: { access: 'any', hosts: [] },
};

const temp = createTempDirs();
const registries: TestRegistry[] = [];
afterEach(async () => {
  // Some tests stop their registry themselves.
  for (const registry of registries.splice(0)) await registry.close().catch(() => undefined);
  temp.cleanup();
});

async function setup(packs: readonly string[] = HELLO) {
  const registry = await startTestRegistry({ packs, describeTools: describeScriptTools });
  registries.push(registry);
  const cacheDir = temp.make('cache');
  const projectDir = temp.make('project');
  const options = (name: string, range?: string): FetchServedPackOptions => ({
    name,
    ...(range === undefined ? {} : { range }),
    registry: createHttpRegistry({ url: registry.url }),
    projectDir,
    cacheDir,
  });
  const tarballRequests = () => registry.requests.filter((r) => r.endsWith('.tgz')).length;
  return { registry, cacheDir, projectDir, options, tarballRequests };
}

describe('fetchServedPack', () => {
  it('resolves the range, unpacks the pack into the user cache and confines its sources', async () => {
    const { cacheDir, projectDir, options } = await setup();
    const served = await fetchServedPack(options('hello', '^1.0.0'));
    expect(served).toMatchObject({
      name: 'hello',
      version: '1.1.0',
      alias: 'hello',
      origin: 'download',
      permissions: LEAST_PERMISSIONS,
      diagnostics: [],
    });
    expect(served.dir).toMatch(
      new RegExp(`^${cacheDir}/${SERVED_DIR}/hello/1\\.1\\.0-[0-9a-f]{16}/pack$`),
    );
    expect(readFileSync(path.join(served.dir, 'toolpack.yaml'), 'utf8')).toContain(
      'version: 1.1.0',
    );
    const relative = path.relative(projectDir, served.dir);
    expect(served.sources).toEqual([
      {
        scripts: `${relative}/scripts`,
        pack: 'hello',
        interpreters: {},
        sandbox: true,
        permissions: LEAST_PERMISSIONS,
        sandboxRoot: served.dir,
      },
    ]);
    // Nothing but the cache was written: no staging folder left beside the version.
    expect(readdirSync(path.dirname(path.dirname(served.dir)))).toEqual([
      path.basename(path.dirname(served.dir)),
    ]);
    expect(snapshotTree(projectDir)).toEqual({});
  });

  it('serves a yanked version only when it is named exactly, as a lockfile keeps it', async () => {
    const { registry, options } = await setup();
    registry.yank('hello', '1.1.0');
    expect((await fetchServedPack(options('hello', '^1.0.0'))).version).toBe('1.0.0');
    expect((await fetchServedPack(options('hello'))).version).toBe('1.0.0');
    expect(await fetchServedPack(options('hello', '1.1.0'))).toMatchObject({
      version: '1.1.0',
      yanked: true,
    });
    await expect(fetchServedPack(options('hello', '~1.1.0'))).rejects.toMatchObject({
      code: 'E_NO_MATCHING_VERSION',
    });
    registry.deprecate('hello', '1.0.0', 'Use hello 2.');
    expect(await fetchServedPack(options('hello', '1.0.0'))).toMatchObject({
      deprecated: 'Use hello 2.',
    });
  });

  it('reuses the unpacked copy on the next start, and serves it with the registry gone', async () => {
    const { registry, options, tarballRequests } = await setup();
    const first = await fetchServedPack(options('hello', '1.1.0'));
    expect(tarballRequests()).toBe(1);
    const second = await fetchServedPack(options('hello', '1.1.0'));
    expect(second).toMatchObject({ origin: 'cache', dir: first.dir });
    expect(tarballRequests()).toBe(1);

    await registry.close();
    const offline = await fetchServedPack(options('hello', '1.1.0'));
    expect(offline).toMatchObject({ origin: 'offline', version: '1.1.0', dir: first.dir });
    expect(offline.registryProblem).toMatch(/Cannot reach the registry/);
    // A range takes the highest cached version it matches, knowing of nothing newer.
    expect(await fetchServedPack(options('hello', '^1.0.0'))).toMatchObject({
      origin: 'offline',
      version: '1.1.0',
    });
    await expect(fetchServedPack(options('hello', '^2.0.0'))).rejects.toMatchObject({
      code: 'E_REGISTRY_UNREACHABLE',
      message: expect.stringMatching(/no copy of hello@\^2\.0\.0 from it is in the cache/),
    });
    await expect(fetchServedPack(options('weather'))).rejects.toMatchObject({
      code: 'E_REGISTRY_UNREACHABLE',
    });
  });

  it('takes a 5xx answer for an outage, but a 404 for an answer', async () => {
    const { registry, options } = await setup();
    await fetchServedPack(options('hello', '1.1.0'));
    const answering = (status: number) =>
      createHttpRegistry({
        url: registry.url,
        fetch: async () => new Response('{"error":"no"}', { status }),
      });
    expect(
      await fetchServedPack({ ...options('hello', '1.1.0'), registry: answering(503) }),
    ).toMatchObject({ origin: 'offline', version: '1.1.0' });
    await expect(
      fetchServedPack({ ...options('hello', '1.1.0'), registry: answering(404) }),
    ).rejects.toMatchObject({ code: 'E_PACK_NOT_FOUND' });
  });

  it('offline, never serves a copy that came from another registry', async () => {
    const { cacheDir, projectDir } = await setup();
    const other = await setup();
    await fetchServedPack({ ...other.options('hello', '1.1.0'), cacheDir });
    await other.registry.close();
    const first = registries[0]!;
    await first.close();
    await expect(
      fetchServedPack({
        name: 'hello',
        range: '1.1.0',
        registry: createHttpRegistry({ url: first.url }),
        projectDir,
        cacheDir,
      }),
    ).rejects.toMatchObject({ code: 'E_REGISTRY_UNREACHABLE' });
  });

  it('unpacks again a cached copy whose files changed, and checks a copy against its tarball offline', async () => {
    const { registry, options } = await setup();
    const first = await fetchServedPack(options('hello', '1.1.0'));
    const script = path.join(first.dir, 'scripts', 'greet.mjs');
    const original = readFileSync(script, 'utf8');
    writeFileSync(script, 'process.stdout.write("changed")\n');
    writeFileSync(path.join(first.dir, 'extra.mjs'), '');
    const again = await fetchServedPack(options('hello', '1.1.0'));
    expect(again).toMatchObject({ origin: 'download', dir: first.dir });
    expect(again.replaced).toBe('added extra.mjs, changed scripts/greet.mjs');
    expect(readFileSync(script, 'utf8')).toBe(original);
    expect(existsSync(path.join(first.dir, 'extra.mjs'))).toBe(false);

    writeFileSync(script, 'process.stdout.write("changed")\n');
    await registry.close();
    await expect(fetchServedPack(options('hello', '1.1.0'))).rejects.toMatchObject({
      code: 'E_REGISTRY_UNREACHABLE',
      message: expect.stringContaining(
        'the cached copy of hello@1.1.0 changed since it was unpacked',
      ),
    });
  });

  it('refuses a tarball that does not match its integrity, and serves nothing', async () => {
    const { registry, cacheDir, options } = await setup();
    registry.replaceTarball(
      'hello',
      '1.1.0',
      buildTarball([{ path: 'package/toolpack.yaml', data: packManifestText('hello', '1.1.0') }]),
    );
    await expect(fetchServedPack(options('hello', '1.1.0'))).rejects.toMatchObject({
      code: 'E_INTEGRITY',
    });
    expect(snapshotTree(cacheDir)).toEqual({});
  });

  it('refuses a version whose toolpack.yaml asks for other permissions than the registry shows', async () => {
    const { registry, cacheDir, options } = await setup();
    registry.setPermissions('hello', '1.1.0', NETWORK);
    await expect(fetchServedPack(options('hello', '1.1.0'))).rejects.toMatchObject({
      code: 'E_PACK_PERMISSIONS_MISMATCH',
    });
    expect(existsSync(path.join(cacheDir, SERVED_DIR))).toBe(false);
  });

  it('refuses an unsafe tarball with the checks mcp pack add makes', async () => {
    const { registry, cacheDir, options } = await setup();
    registry.addRaw(
      { name: 'sneaky', version: '1.0.0' },
      buildTarball([
        { path: 'package/toolpack.yaml', data: packManifestText('sneaky', '1.0.0') },
        { path: 'package/../../evil.txt', data: 'x' },
      ]),
    );
    await expect(fetchServedPack(options('sneaky'))).rejects.toMatchObject({
      code: 'E_TARBALL_UNSAFE',
    });
    expect(snapshotTree(cacheDir)).toEqual({});
  });

  it('lets servers started at once share one good copy', async () => {
    const { cacheDir, options } = await setup();
    const all = await Promise.all(
      Array.from({ length: 6 }, () => fetchServedPack(options('hello', '^1.0.0'))),
    );
    expect(new Set(all.map((served) => served.dir)).size).toBe(1);
    const versionDir = path.dirname(all[0]!.dir);
    expect(readdirSync(path.dirname(versionDir))).toEqual([path.basename(versionDir)]);
    expect(readdirSync(versionDir).sort()).toEqual(['pack', 'served.json']);
    const reused = await fetchServedPack(options('hello', '^1.0.0'));
    expect(reused.origin).toBe('cache');
    expect(snapshotTree(path.join(cacheDir, SERVED_DIR))).toHaveProperty(
      `hello/${path.basename(versionDir)}/pack/scripts/greet.mjs`,
    );
  });

  it("keeps an owner's pack in its own folder and serves it under its short name", async () => {
    const { registry, cacheDir, options } = await setup();
    registry.addRaw(
      { name: 'acme/hello', version: '1.0.0' },
      buildTarball([
        { path: 'package/toolpack.yaml', data: packManifestText('acme/hello', '1.0.0') },
        { path: 'package/scripts/hi.mjs', data: '// DESCRIPTION "Hi."\n' },
      ]),
    );
    const owned = await fetchServedPack(options('acme/hello'));
    const plain = await fetchServedPack(options('hello'));
    expect(owned).toMatchObject({ name: 'acme/hello', alias: 'hello', version: '1.0.0' });
    expect(path.relative(cacheDir, owned.dir)).toMatch(
      /^served\/acme\/hello\/1\.0\.0-[0-9a-f]{16}\/pack$/,
    );
    expect(path.relative(cacheDir, plain.dir)).toMatch(
      /^served\/hello\/1\.1\.0-[0-9a-f]{16}\/pack$/,
    );
  });

  it('says so when the cache cannot be written', async () => {
    const { cacheDir, options } = await setup();
    writeFileSync(path.join(cacheDir, SERVED_DIR), 'a file where the folder goes');
    await expect(fetchServedPack(options('hello'))).rejects.toMatchObject({
      code: 'E_USAGE',
      message: expect.stringMatching(
        /^Cannot unpack hello@1\.1\.0 into the pack cache at .*: (ENOTDIR|EEXIST)\.$/,
      ),
      hint: 'Point TOOLPACK_CACHE_DIR at a folder you can write.',
    });
  });

  it('refuses a name or range that is not one', async () => {
    const { options } = await setup();
    await expect(fetchServedPack(options('Bad Name'))).rejects.toMatchObject({
      code: 'E_USAGE',
    });
    await expect(fetchServedPack(options('hello', '^x'))).rejects.toMatchObject({
      code: 'E_USAGE',
    });
  });
});

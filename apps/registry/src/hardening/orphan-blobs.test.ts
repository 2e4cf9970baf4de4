import { mkdir, utimes, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { computeIntegrity } from '@toolpack/packs';
import { generateToken } from '../auth/tokens.ts';
import { listPackTools } from '../publish/list-pack-tools.ts';
import { publishPack, type PublishContext } from '../publish/publish-pack.ts';
import { sweepOrphanBlobs } from '../storage/blob-hygiene.ts';
import type { BlobStore } from '../storage/blob-store.ts';
import { createFsBlobStore } from '../storage/fs-blob-store.ts';
import type { MetadataStore } from '../storage/metadata-store.ts';
import { createSqliteMetadataStore } from '../storage/sqlite-metadata-store.ts';
import { makeTempDir, packFixture, removeTempDirs } from '../testing/registry-fixtures.ts';
import {
  blobKeyOf,
  checkStoredPacks,
  listBlobFiles,
  packLoadPack,
  publish,
  startHardeningRegistry,
  type HardeningRegistry,
} from './hardening-kit.ts';

const CLIENTS = 8;
const HOUR = 3_600_000;
const running: HardeningRegistry[] = [];

afterAll(async () => {
  await Promise.all(running.map((app) => app.close().catch(() => {})));
  await removeTempDirs();
});

async function startApp(
  options: Parameters<typeof startHardeningRegistry>[0] | undefined = undefined,
): Promise<HardeningRegistry> {
  const app = await startHardeningRegistry(
    options ?? { dataDir: await makeTempDir(), token: generateToken() },
  );
  running.push(app);
  return app;
}

async function statuses(responses: Promise<Response>[]): Promise<number[]> {
  return Promise.all(
    responses.map(async (pending) => {
      const response = await pending;
      await response.body?.cancel();
      return response.status;
    }),
  );
}

/** Where the fs blob store keeps `key` under `dataDir`. */
function blobFile(dataDir: string, key: string): string {
  const hex = key.slice('sha512/'.length);
  return path.join(dataDir, 'blobs', 'sha512', hex.slice(0, 2), `${hex}.tgz`);
}

async function age(file: string, ms: number): Promise<void> {
  const then = new Date(Date.now() - ms);
  await utimes(file, then, then);
}

describe('publishes that do not land leave no tarball', () => {
  it(`leaves exactly the winner’s blob when ${CLIENTS} clients race one version with different bytes`, async () => {
    const app = await startApp();
    const tarballs = await Promise.all(
      Array.from({ length: CLIENTS }, (_, i) =>
        packLoadPack({ version: '1.0.0', description: `Variant ${i}.` }),
      ),
    );
    const answers = await statuses(tarballs.map((t) => publish(app.url, app.token, t)));
    expect(answers.filter((s) => s === 201)).toHaveLength(1);
    expect(answers.filter((s) => s === 409)).toHaveLength(CLIENTS - 1);
    const winner = tarballs[answers.indexOf(201)]!;
    const { keys, other } = await listBlobFiles(app.dataDir);
    expect(keys).toEqual([blobKeyOf(winner)]);
    expect(other).toEqual([]);
  });

  it(`keeps the one shared blob when ${CLIENTS} clients race one version with the same bytes`, async () => {
    const app = await startApp();
    const tarball = await packLoadPack({ version: '1.0.0' });
    const answers = await statuses(
      Array.from({ length: CLIENTS }, () => publish(app.url, app.token, tarball)),
    );
    expect(answers.sort()).toEqual([201, ...Array.from({ length: CLIENTS - 1 }, () => 409)]);
    expect((await listBlobFiles(app.dataDir)).keys).toEqual([blobKeyOf(tarball)]);
    const stored = await checkStoredPacks(app.url, ['loadpack']);
    expect(stored.problems).toEqual([]);
  });

  it('writes no blob for a pack refused by validation after its upload was read', async () => {
    const app = await startApp();
    const response = await publish(app.url, app.token, await packFixture('broken-tools'));
    expect(response.status).toBe(422);
    await response.body?.cancel();
    expect(await listBlobFiles(app.dataDir)).toEqual({ keys: [], other: [] });
  });

  it('removes the blob it wrote when committing the version fails', async () => {
    const dataDir = await makeTempDir();
    const real = createSqliteMetadataStore({ file: path.join(dataDir, 'registry.db') });
    let failures = 1;
    const store: MetadataStore = {
      ...real,
      addVersion: async (record) => {
        if (failures-- > 0) throw new Error('disk I/O error');
        return real.addVersion(record);
      },
    };
    const app = await startApp({ dataDir, token: generateToken(), store });
    const tarball = await packLoadPack({ version: '1.0.0' });
    const failed = await publish(app.url, app.token, tarball);
    expect(failed.status).toBe(500);
    await failed.body?.cancel();
    expect((await listBlobFiles(dataDir)).keys).toEqual([]);
    const retry = await publish(app.url, app.token, tarball);
    expect(retry.status).toBe(201);
    await retry.body?.cancel();
    expect((await listBlobFiles(dataDir)).keys).toEqual([blobKeyOf(tarball)]);
  });

  it('removes a blob whose write failed after the bytes reached the store', async () => {
    const dataDir = await makeTempDir();
    const real = createFsBlobStore({ dir: path.join(dataDir, 'blobs') });
    const blobs: BlobStore = {
      ...real,
      // The bytes landed, then the store reported a failure (a lost acknowledgement).
      put: async (key, bytes) => {
        await real.put(key, bytes);
        throw new Error('connection reset');
      },
    };
    const app = await startApp({ dataDir, token: generateToken(), blobs });
    const response = await publish(app.url, app.token, await packLoadPack({ version: '1.0.0' }));
    expect(response.status).toBe(500);
    await response.body?.cancel();
    expect((await listBlobFiles(dataDir)).keys).toEqual([]);
    expect((await fetch(`${app.url}/v0/packs/loadpack`)).status).toBe(404);
  });
});

describe('a blob two versions share', () => {
  it('survives a losing publish of the same bytes, a yank of one version, and sweeps', async () => {
    const app = await startApp();
    const tarball = await packLoadPack({ version: '1.0.0' });
    const key = blobKeyOf(tarball);
    const first = await publish(app.url, app.token, tarball);
    expect(first.status).toBe(201);
    const doc = (await first.json()) as Parameters<MetadataStore['addVersion']>[0]['doc'];
    // A second version with the very same bytes (a mirror, an import): one blob, two rows.
    const { store } = app.registry;
    const mirrored = await store.addVersion({
      owner: 'acme',
      doc: { ...doc, name: 'acme/loadpack-mirror', dist: { ...doc.dist, tarball: '' } },
      blobKey: key,
      publishedAt: new Date().toISOString(),
      publishedBy: 'import',
    });
    expect(mirrored.status).toBe('created');

    const again = await publish(app.url, app.token, tarball);
    expect(again.status).toBe(409);
    await again.body?.cancel();
    const yank = await fetch(`${app.url}/v0/packs/loadpack/versions/1.0.0/yank`, {
      method: 'POST',
      headers: { authorization: `Bearer ${app.token}` },
    });
    expect(yank.status).toBe(200);
    await yank.body?.cancel();
    await age(blobFile(app.dataDir, key), 2 * HOUR);
    const report = await sweepOrphanBlobs({ store, blobs: app.registry.blobs, graceMs: 0 });
    expect(report.removed).toEqual([]);
    expect(report.kept.referenced).toBe(1);

    expect((await listBlobFiles(app.dataDir)).keys).toEqual([key]);
    const stored = await checkStoredPacks(app.url, ['loadpack', 'acme/loadpack-mirror']);
    expect(stored.problems).toEqual([]);
    expect([...stored.versions.values()]).toEqual([
      computeIntegrity(tarball),
      computeIntegrity(tarball),
    ]);
  });

  describe('a publish of the same bytes that gives up while another is still committing', () => {
    /** One publisher's view of a shared blob store: its write stops after the bytes land, until released. */
    function createPausingBlobs(real: BlobStore) {
      let release: (() => void) | undefined;
      const blobs: BlobStore = {
        ...real,
        put: async (key, bytes) => {
          await real.put(key, bytes);
          await new Promise<void>((resolve) => (release = resolve));
        },
      };
      return { blobs, isPaused: () => release !== undefined, release: () => release?.() };
    }

    async function setUp() {
      const dir = await makeTempDir();
      const blobs = createFsBlobStore({ dir: path.join(dir, 'blobs') });
      const store = createSqliteMetadataStore({ file: ':memory:' });
      const contextFor = (view: BlobStore): PublishContext => ({
        store,
        blobs: view,
        limits: {},
        listTools: listPackTools,
        workDir: path.join(dir, 'tmp'),
      });
      const quitterBlobs = createPausingBlobs(blobs);
      const landerBlobs = createPausingBlobs(blobs);
      const tarball = await packLoadPack({ version: '1.0.0' });
      const giveUp = new AbortController();
      const quitter = publishPack(contextFor(quitterBlobs.blobs), {
        bytes: tarball,
        owner: 'acme',
        publishedBy: 'a',
        signal: giveUp.signal,
      });
      const lander = publishPack(contextFor(landerBlobs.blobs), {
        bytes: tarball,
        owner: 'acme',
        publishedBy: 'b',
      });
      await expect
        .poll(() => quitterBlobs.isPaused() && landerBlobs.isPaused(), { timeout: 10_000 })
        .toBe(true);
      const context = contextFor(blobs);
      return { context, tarball, giveUp, quitter, lander, quitterBlobs, landerBlobs };
    }

    it('leaves the blob for the one still committing when the quitter cleans up first', async () => {
      const { context, tarball, giveUp, quitter, lander, quitterBlobs, landerBlobs } =
        await setUp();
      giveUp.abort();
      quitterBlobs.release();
      expect((await quitter).status).toBe(503);
      expect(await context.blobs.has(blobKeyOf(tarball))).toBe(true);
      landerBlobs.release();
      expect((await lander).status).toBe(201);
      expect(await context.blobs.has(blobKeyOf(tarball))).toBe(true);
      expect(
        (await sweepOrphanBlobs({ store: context.store, blobs: context.blobs, graceMs: 0 }))
          .removed,
      ).toEqual([]);
      await context.store.close();
    });

    it('leaves the blob the committed version needs when the quitter cleans up last', async () => {
      const { context, tarball, giveUp, quitter, lander, quitterBlobs, landerBlobs } =
        await setUp();
      landerBlobs.release();
      expect((await lander).status).toBe(201);
      giveUp.abort();
      quitterBlobs.release();
      expect((await quitter).status).toBe(503);
      expect(await context.blobs.has(blobKeyOf(tarball))).toBe(true);
      await context.store.close();
    });
  });
});

describe('the orphan sweep', () => {
  it('runs on start: removes orphans past the grace period, keeps fresh and referenced blobs', async () => {
    const dataDir = await makeTempDir();
    const token = generateToken();
    const first = await startApp({ dataDir, token });
    const tarball = await packLoadPack({ version: '1.0.0' });
    const published = await publish(first.url, token, tarball);
    expect(published.status).toBe(201);
    await published.body?.cancel();
    await first.close();

    // What a crash between writing a tarball and committing its version leaves behind.
    const orphanOld = await packLoadPack({ version: '2.0.0' });
    const orphanNew = await packLoadPack({ version: '3.0.0' });
    for (const bytes of [orphanOld, orphanNew]) {
      const file = blobFile(dataDir, blobKeyOf(bytes));
      await mkdir(path.dirname(file), { recursive: true });
      await writeFile(file, bytes);
    }
    await age(blobFile(dataDir, blobKeyOf(orphanOld)), 2 * HOUR);
    await age(blobFile(dataDir, blobKeyOf(tarball)), 2 * HOUR);

    const second = await startApp({ dataDir, token });
    expect(second.registry.sweep).toMatchObject({
      removed: [blobKeyOf(orphanOld)],
      removedBytes: orphanOld.length,
      kept: { referenced: 1, recent: 1, held: 0 },
      problems: [],
    });
    expect((await listBlobFiles(dataDir)).keys).toEqual(
      [blobKeyOf(tarball), blobKeyOf(orphanNew)].sort(),
    );
    const stored = await checkStoredPacks(second.url, ['loadpack']);
    expect(stored.problems).toEqual([]);
    expect(stored.versions.get('loadpack@1.0.0')).toBe(computeIntegrity(tarball));

    // The fresh orphan is the next sweep's, once it is old enough; versions 2 and 3 still publish.
    await age(blobFile(dataDir, blobKeyOf(orphanNew)), 2 * HOUR);
    const later = await sweepOrphanBlobs({
      store: second.registry.store,
      blobs: second.registry.blobs,
    });
    expect(later.removed).toEqual([blobKeyOf(orphanNew)]);
    for (const bytes of [orphanOld, orphanNew]) {
      const response = await publish(second.url, token, bytes);
      expect(response.status).toBe(201);
      await response.body?.cancel();
    }
    expect((await checkStoredPacks(second.url, ['loadpack'])).problems).toEqual([]);
  });

  it('is skipped with sweep: false', async () => {
    const dataDir = await makeTempDir();
    const orphan = await packLoadPack({ version: '9.0.0' });
    const file = blobFile(dataDir, blobKeyOf(orphan));
    await mkdir(path.dirname(file), { recursive: true });
    await writeFile(file, orphan);
    await age(file, 2 * HOUR);
    const app = await startApp({ dataDir, token: generateToken(), sweep: false });
    expect(app.registry.sweep).toBeUndefined();
    expect((await listBlobFiles(dataDir)).keys).toEqual([blobKeyOf(orphan)]);
  });
});

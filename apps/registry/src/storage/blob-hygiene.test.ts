import { mkdir, readdir, utimes, writeFile } from 'node:fs/promises';
import path from 'node:path';
import fc from 'fast-check';
import {
  hasPostgres,
  NEEDS_POSTGRES,
  startPostgresCluster,
  type PostgresCluster,
} from '@toolpack/pg-cluster';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { VersionDoc } from '../documents.ts';
import { openRegistryStorage, type RegistryStorage } from '../open-registry-storage.ts';
import { makeTempDir, removeTempDirs } from '../testing/registry-fixtures.ts';
import {
  BLOB_DELETE_CLAIM_MS,
  claimBlobForPublish,
  removeBlobIfUnreferenced,
  sweepOrphanBlobs,
} from './blob-hygiene.ts';
import type { BlobListing, BlobStore } from './blob-store.ts';
import { computeBlobKey, createFsBlobStore } from './fs-blob-store.ts';
import type { MetadataStore } from './metadata-store.ts';
import { createSqliteMetadataStore } from './sqlite-metadata-store.ts';
import { fuzzRuns, fuzzTimeout } from '@toolpack/fuzz-runs';

afterAll(removeTempDirs);

let store: MetadataStore;
let blobs: BlobStore;
let blobDir: string;

beforeEach(async () => {
  store = createSqliteMetadataStore({ file: ':memory:' });
  blobDir = path.join(await makeTempDir(), 'blobs');
  blobs = createFsBlobStore({ dir: blobDir });
});
afterEach(() => store.close());

function makeDoc(name: string, version: string): VersionDoc {
  return {
    name,
    version,
    description: `The ${name} pack.`,
    tags: [],
    tools: [{ name: 'run', description: 'Runs.', inputSchema: { type: 'object' } }],
    env: [],
    dist: { tarball: '', integrity: 'sha512-x', size: 1, fileCount: 1 },
  };
}

async function addVersion(name: string, version: string, blobKey: string): Promise<void> {
  const added = await store.addVersion({
    owner: 'acme',
    doc: makeDoc(name, version),
    blobKey,
    publishedAt: '2026-01-01T00:00:00.000Z',
    publishedBy: 'test',
  });
  expect(added.status).toBe('created');
}

/** Writes a blob and dates it `ageMs` back. */
async function putBlob(text: string, ageMs = 0): Promise<string> {
  const bytes = Buffer.from(text);
  const key = computeBlobKey(bytes);
  await blobs.put(key, bytes);
  if (ageMs > 0) {
    const then = new Date(Date.now() - ageMs);
    await utimes(path.join(blobDir, 'sha512', key.slice(7, 9), `${key.slice(7)}.tgz`), then, then);
  }
  return key;
}

/** A temporary file a put left when its process died before the rename, dated `ageMs` back. */
async function leaveInterruptedWrite(text: string, ageMs: number): Promise<string> {
  const hex = computeBlobKey(Buffer.from(text)).slice(7);
  const relative = `sha512/${hex.slice(0, 2)}/${hex}.tgz.0123456789ab.tmp`;
  const file = path.join(blobDir, relative);
  await mkdir(path.dirname(file), { recursive: true });
  await writeFile(file, text.slice(0, 4));
  const then = new Date(Date.now() - ageMs);
  await utimes(file, then, then);
  return relative;
}

async function listBlobs(): Promise<BlobListing[]> {
  const listed: BlobListing[] = [];
  for await (const blob of blobs.list()) listed.push(blob);
  return listed;
}

async function listKeys(): Promise<string[]> {
  return (await listBlobs()).map((blob) => blob.key).sort();
}

const claim = (key: string, id: string, purpose: 'publish' | 'delete', at = new Date()) =>
  store.claimBlob({ key, id, purpose, at, expiresAt: new Date(at.getTime() + 60_000) });

describe('blob claims (SQLite store)', () => {
  const key = `sha512/${'b'.repeat(128)}`;

  it('refuses a delete claim while a version references the blob or a publish holds it', async () => {
    expect(await claim(key, 'p1', 'publish')).toBe('granted');
    expect(await claim(key, 'p2', 'publish')).toBe('granted');
    expect(await claim(key, 'd1', 'delete')).toBe('held');
    await store.releaseBlobClaim(key, 'p1');
    expect(await claim(key, 'd1', 'delete')).toBe('held');
    await store.releaseBlobClaim(key, 'p2');
    await addVersion('jira', '1.0.0', key);
    expect(await claim(key, 'd1', 'delete')).toBe('referenced');
    expect(await store.isBlobReferenced(key)).toBe(true);
    expect(await store.isBlobReferenced(`sha512/${'c'.repeat(128)}`)).toBe(false);
  });

  it('refuses publish claims while a delete claim is held, and forgets expired claims', async () => {
    expect(await claim(key, 'd1', 'delete')).toBe('granted');
    expect(await claim(key, 'p1', 'publish')).toBe('held');
    // Another deleter of the same blob waits its turn too.
    expect(await claim(key, 'd2', 'delete')).toBe('held');
    // An expired delete claim (its deleter died) protects nothing.
    const later = new Date(Date.now() + 120_000);
    expect(await claim(key, 'p1', 'publish', later)).toBe('granted');
    expect(await store.pruneBlobClaims(new Date(Date.now() + 70_000))).toBe(1);
    await store.releaseBlobClaim(key, 'p1');
    await store.releaseBlobClaim(key, 'never-claimed');
    expect(await claim(key, 'd3', 'delete')).toBe('granted');
  });
});

describe('createFsBlobStore list and delete', () => {
  it('lists blobs only (not temporary files), deletes them, and refreshes mtime on a repeated put', async () => {
    const a = await putBlob('a', 60_000);
    const b = await putBlob('b');
    expect(await listKeys()).toEqual([a, b].sort());
    const before = (await listBlobs()).find((blob) => blob.key === a)!;
    expect(before.modifiedAt.getTime()).toBeLessThan(Date.now() - 50_000);
    await blobs.put(a, Buffer.from('a'));
    const after = (await listBlobs()).find((blob) => blob.key === a)!;
    expect(after.modifiedAt.getTime()).toBeGreaterThan(Date.now() - 10_000);
    expect(after.size).toBe(1);

    await blobs.delete(a);
    await blobs.delete(a);
    expect(await blobs.has(a)).toBe(false);
    expect(await listKeys()).toEqual([b]);
    await expect(blobs.delete('sha512/../../registry.db')).rejects.toMatchObject({
      code: 'E_BLOB_KEY',
    });
  });
});

describe('removeBlobIfUnreferenced', () => {
  it('removes an orphan, keeps a blob two versions share however many times one asks', async () => {
    const orphan = await putBlob('orphan');
    expect(await removeBlobIfUnreferenced(store, blobs, orphan)).toBe('removed');
    expect(await blobs.has(orphan)).toBe(false);

    const shared = await putBlob('shared');
    await addVersion('one', '1.0.0', shared);
    await addVersion('two', '1.0.0', shared);
    await store.updateVersion('one', '1.0.0', { yanked: true });
    for (let i = 0; i < 3; i += 1)
      expect(await removeBlobIfUnreferenced(store, blobs, shared)).toBe('referenced');
    expect(await blobs.has(shared)).toBe(true);
  });

  it('keeps a blob a publish holds but has not committed yet', async () => {
    const key = await putBlob('in flight');
    expect(await claimBlobForPublish(store, key, { id: 'publisher' })).toBe(true);
    expect(await removeBlobIfUnreferenced(store, blobs, key)).toBe('held');
    expect(await blobs.has(key)).toBe(true);
    await addVersion('late', '1.0.0', key);
    await store.releaseBlobClaim(key, 'publisher');
    expect(await removeBlobIfUnreferenced(store, blobs, key)).toBe('referenced');
  });
});

describe('claimBlobForPublish', () => {
  it('waits for a deletion of the same bytes to finish, then the publish writes them again', async () => {
    const bytes = Buffer.from('same bytes');
    const key = computeBlobKey(bytes);
    await blobs.put(key, bytes);
    let releaseDelete = () => {};
    const deleteGate = new Promise<void>((resolve) => (releaseDelete = resolve));
    const slowBlobs: BlobStore = {
      ...blobs,
      delete: async (k) => {
        await deleteGate;
        await blobs.delete(k);
      },
    };
    const removal = removeBlobIfUnreferenced(store, slowBlobs, key);
    let claimed = false;
    const publishing = claimBlobForPublish(store, key, { id: 'publisher' }).then((ok) => {
      claimed = ok;
      return ok;
    });
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(claimed).toBe(false);
    releaseDelete();
    expect(await removal).toBe('removed');
    expect(await publishing).toBe(true);
    await blobs.put(key, bytes);
    await addVersion('after', '1.0.0', key);
    await store.releaseBlobClaim(key, 'publisher');
    expect(await blobs.has(key)).toBe(true);
  });

  it('gives up waiting when its signal aborts', async () => {
    const key = await putBlob('x');
    expect(await claim(key, 'deleter', 'delete')).toBe('granted');
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 60);
    const started = Date.now();
    expect(await claimBlobForPublish(store, key, { id: 'p', signal: controller.signal })).toBe(
      false,
    );
    expect(Date.now() - started).toBeLessThan(BLOB_DELETE_CLAIM_MS);
  });
});

describe('sweepOrphanBlobs', () => {
  const HOUR = 3_600_000;

  it('removes orphans older than the grace period and keeps fresh, referenced and held ones', async () => {
    const oldOrphan = await putBlob('old orphan', 2 * HOUR);
    const freshOrphan = await putBlob('fresh orphan');
    const oldReferenced = await putBlob('old referenced', 2 * HOUR);
    const oldHeld = await putBlob('old but a publish holds it', 2 * HOUR);
    await addVersion('kept', '1.0.0', oldReferenced);
    expect(await claimBlobForPublish(store, oldHeld, { id: 'slow-publish' })).toBe(true);

    const dry = await sweepOrphanBlobs({ store, blobs, graceMs: HOUR, dryRun: true });
    expect(dry.removed).toEqual([oldOrphan]);
    expect(dry.kept).toEqual({ referenced: 1, recent: 1, held: 1 });
    expect(await listKeys()).toHaveLength(4);

    const report = await sweepOrphanBlobs({ store, blobs, graceMs: HOUR });
    expect(report.removed).toEqual([oldOrphan]);
    expect(report.removedBytes).toBe('old orphan'.length);
    expect(report.kept).toEqual({ referenced: 1, recent: 1, held: 1 });
    expect(report.problems).toEqual([]);
    expect(await listKeys()).toEqual([freshOrphan, oldReferenced, oldHeld].sort());

    // Once the publish gives up (releases its claim), the next sweep takes the orphan.
    await store.releaseBlobClaim(oldHeld, 'slow-publish');
    expect((await sweepOrphanBlobs({ store, blobs, graceMs: HOUR })).removed).toEqual([oldHeld]);
  });

  it('reports a blob the store fails to delete and goes on with the others', async () => {
    const first = await putBlob('first', 2 * HOUR);
    const second = await putBlob('second', 2 * HOUR);
    const failing: BlobStore = {
      ...blobs,
      delete: async (key) => {
        if (key === first) throw new Error('EACCES: permission denied');
        await blobs.delete(key);
      },
    };
    const report = await sweepOrphanBlobs({ store, blobs: failing, graceMs: HOUR });
    expect(report.removed).toEqual([second]);
    expect(report.problems).toMatchObject([
      { severity: 'warning', code: 'W_BLOB_SWEEP_FAILED', path: first },
    ]);
    expect(report.problems[0]?.message).toMatch(/EACCES/);
    // The failed deletion released its claim: a publish of those bytes is not blocked.
    expect(await claimBlobForPublish(store, first, { id: 'p' })).toBe(true);
  });

  it('removes what interrupted writes left once they are past the grace period', async () => {
    const kept = await putBlob('a tarball');
    const old = await leaveInterruptedWrite('crashed long ago', 2 * HOUR);
    const recent = await leaveInterruptedWrite('a write that may still be running', 0);
    // Not what put writes: a file somebody else put there is not the sweep's to remove.
    const stranger = path.join(blobDir, 'sha512', kept.slice(7, 9), 'notes.tmp');
    await writeFile(stranger, 'mine');
    await utimes(stranger, new Date(0), new Date(0));

    const dry = await sweepOrphanBlobs({ store, blobs, graceMs: HOUR, dryRun: true });
    expect(dry.interruptedWrites).toEqual([{ path: old, size: 4 }]);
    expect(dry.removedBytes).toBe(4);
    const report = await sweepOrphanBlobs({ store, blobs, graceMs: HOUR });
    expect(report).toMatchObject({ removed: [], interruptedWrites: [{ path: old, size: 4 }] });
    const left = async (relative: string) =>
      (await readdir(path.join(blobDir, path.dirname(relative)))).includes(path.basename(relative));
    expect(await left(old)).toBe(false);
    expect(await left(recent)).toBe(true);
    expect(await left(path.relative(blobDir, stranger))).toBe(true);
    expect(await listKeys()).toEqual([kept]);
  });

  it('sweeps a store without removeInterruptedWrites, and reports one that fails', async () => {
    const { removeInterruptedWrites: _unused, ...atomic } = blobs;
    expect((await sweepOrphanBlobs({ store, blobs: atomic, graceMs: HOUR })).problems).toEqual([]);
    const failing: BlobStore = {
      ...blobs,
      removeInterruptedWrites: () => Promise.reject(new Error('EROFS: read-only file system')),
    };
    const report = await sweepOrphanBlobs({ store, blobs: failing, graceMs: HOUR });
    expect(report.interruptedWrites).toEqual([]);
    expect(report.problems).toMatchObject([{ code: 'W_BLOB_SWEEP_FAILED' }]);
    expect(report.problems[0]?.message).toMatch(/EROFS/);
  });

  it('refuses a negative grace period', async () => {
    await expect(sweepOrphanBlobs({ store, blobs, graceMs: -1 })).rejects.toMatchObject({
      code: 'E_SWEEP_GRACE',
    });
  });

  it('never removes a blob a committed version references, whatever publishes and deletions interleave (fuzz)', async () => {
    const keys = await Promise.all(['k0', 'k1', 'k2'].map((text) => putBlob(text)));
    const step = fc.record({
      actor: fc.constantFrom('publish', 'abandon', 'remove', 'sweep'),
      key: fc.nat({ max: keys.length - 1 }),
    });
    let runs = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(step, { maxLength: 12 }), async (steps) => {
        runs += 1;
        const committed = new Set<string>();
        // Each step starts before the previous one ends: their awaits interleave.
        await Promise.all(
          steps.map(async ({ actor, key: index }, i) => {
            const key = keys[index]!;
            const id = `${runs}-${i}`;
            if (actor === 'remove') return removeBlobIfUnreferenced(store, blobs, key);
            if (actor === 'sweep') return sweepOrphanBlobs({ store, blobs, graceMs: 0 });
            if (!(await claimBlobForPublish(store, key, { id }))) return;
            await blobs.put(key, Buffer.from(`k${index}`));
            if (actor === 'publish') {
              await addVersion(`p${runs}`, `1.0.${i}`, key);
              committed.add(key);
              expect(await blobs.has(key)).toBe(true);
              await store.releaseBlobClaim(key, id);
            } else {
              await store.releaseBlobClaim(key, id);
              await removeBlobIfUnreferenced(store, blobs, key);
            }
          }),
        );
        for (const key of committed) expect(await blobs.has(key)).toBe(true);
      }),
      { numRuns: fuzzRuns(150) },
    );
  });
});

describe.skipIf(!hasPostgres())(
  `blob hygiene across two replicas on PostgreSQL ${NEEDS_POSTGRES}`,
  () => {
    let cluster: PostgresCluster | undefined;
    const opened: RegistryStorage[] = [];
    beforeAll(async () => {
      cluster = await startPostgresCluster();
    }, 120_000);
    afterAll(async () => {
      await Promise.all(opened.map((storage) => storage.close()));
      await cluster?.stop();
    }, 120_000);

    /** Two replicas' stores (each its own pool) on one new database. */
    async function openReplicas(): Promise<[RegistryStorage, RegistryStorage]> {
      const url = await cluster!.createDatabase();
      const dataDir = await makeTempDir();
      const a = await openRegistryStorage({ dataDir, database: { url } });
      const b = await openRegistryStorage({ dataDir, database: { url } });
      opened.push(a, b);
      return [a, b];
    }

    async function record(on: RegistryStorage, name: string, version: string, key: string) {
      const added = await on.store.addVersion({
        owner: 'acme',
        doc: makeDoc(name, version),
        blobKey: key,
        publishedAt: new Date().toISOString(),
        publishedBy: 'test',
      });
      expect(added.status).toBe('created');
    }

    it("keeps a blob one replica's publish holds from the other's sweep, and sweeps an abandoned one", async () => {
      const [a, b] = await openReplicas();
      const held = Buffer.from('held by a publish on A');
      const heldKey = computeBlobKey(held);
      expect(await claimBlobForPublish(a.store, heldKey, { id: 'publish-a' })).toBe(true);
      await a.blobs.put(heldKey, held);
      // Written by A's publish, not recorded yet: B's sweep (no grace) must leave it.
      const during = await sweepOrphanBlobs({ store: b.store, blobs: b.blobs, graceMs: 0 });
      expect(during).toMatchObject({ removed: [], kept: { held: 1 } });
      await record(a, 'held', '1.0.0', heldKey);
      await a.store.releaseBlobClaim(heldKey, 'publish-a');

      // The same sweep takes a blob whose publish gave up: what the claim protected is reachable.
      const abandoned = Buffer.from('abandoned on A');
      const abandonedKey = computeBlobKey(abandoned);
      expect(await claimBlobForPublish(a.store, abandonedKey, { id: 'gave-up' })).toBe(true);
      await a.blobs.put(abandonedKey, abandoned);
      await a.store.releaseBlobClaim(abandonedKey, 'gave-up');
      const after = await sweepOrphanBlobs({ store: b.store, blobs: b.blobs, graceMs: 0 });
      expect(after).toMatchObject({ removed: [abandonedKey], kept: { referenced: 1, held: 0 } });
      expect(await a.blobs.has(heldKey)).toBe(true);
      expect(await a.blobs.has(abandonedKey)).toBe(false);
    });

    it(
      'never removes a blob a committed version references, whatever two replicas interleave (fuzz)',
      async () => {
        const replicas = await openReplicas();
        const texts = ['k0', 'k1', 'k2'];
        const keys = texts.map((text) => computeBlobKey(Buffer.from(text)));
        const step = fc.record({
          actor: fc.constantFrom('publish', 'abandon', 'remove', 'sweep'),
          replica: fc.constantFrom(0, 1),
          key: fc.nat({ max: keys.length - 1 }),
        });
        let runs = 0;
        await fc.assert(
          fc.asyncProperty(fc.array(step, { maxLength: 10 }), async (steps) => {
            runs += 1;
            const committed = new Set<string>();
            await Promise.all(
              steps.map(async ({ actor, replica, key: index }, i) => {
                const on = replicas[replica]!;
                const key = keys[index]!;
                const id = `${runs}-${i}`;
                if (actor === 'remove') return removeBlobIfUnreferenced(on.store, on.blobs, key);
                if (actor === 'sweep')
                  return sweepOrphanBlobs({ store: on.store, blobs: on.blobs, graceMs: 0 });
                if (!(await claimBlobForPublish(on.store, key, { id }))) return;
                await on.blobs.put(key, Buffer.from(texts[index]!));
                if (actor === 'publish') {
                  await record(on, `p${runs}`, `1.0.${i}`, key);
                  committed.add(key);
                  expect(await on.blobs.has(key)).toBe(true);
                  await on.store.releaseBlobClaim(key, id);
                } else {
                  await on.store.releaseBlobClaim(key, id);
                  await removeBlobIfUnreferenced(on.store, on.blobs, key);
                }
              }),
            );
            for (const key of committed) expect(await replicas[0].blobs.has(key)).toBe(true);
          }),
          { numRuns: fuzzRuns(100) },
        );
      },
      fuzzTimeout() * 3,
    );
  },
);

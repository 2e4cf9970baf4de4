import { mkdir, readdir, utimes } from 'node:fs/promises';
import path from 'node:path';
import {
  hasPostgres,
  NEEDS_POSTGRES,
  startPostgresCluster,
  type PostgresCluster,
} from '@toolpack/pg-cluster';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSqliteMetadataStore } from './storage/sqlite-metadata-store.ts';
import { DEFAULT_SEED_DIR, startRegistry } from './start-registry.ts';
import { makeTempDir, removeTempDirs } from './testing/registry-fixtures.ts';

afterAll(removeTempDirs);

describe('the work folder', () => {
  it('keeps what another instance may be unpacking, and removes what a dead one left', async () => {
    const dataDir = await makeTempDir();
    const work = path.join(dataDir, 'tmp');
    const fresh = path.join(work, 'publish-fresh');
    const stale = path.join(work, 'publish-stale');
    await mkdir(path.join(fresh, 'scripts'), { recursive: true });
    await mkdir(path.join(stale, 'scripts'), { recursive: true });
    const then = new Date(Date.now() - 2 * 3_600_000);
    await utimes(stale, then, then);
    const registry = await startRegistry({ port: 0, dataDir, seedDir: false, sweep: false });
    await registry.close();
    expect(await readdir(work)).toEqual(['publish-fresh']);
  });
});

describe.skipIf(!hasPostgres())(`startRegistry({ database }) ${NEEDS_POSTGRES}`, () => {
  let cluster: PostgresCluster;
  beforeAll(async () => {
    cluster = await startPostgresCluster();
  }, 120_000);
  afterAll(() => cluster?.stop(), 120_000);

  async function countConnections(url: string): Promise<number> {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      const { rows } = await client.query<{ n: string }>(
        `SELECT count(*) AS n FROM pg_stat_activity
         WHERE datname = current_database() AND application_name = 'toolpack-registry'`,
      );
      return Number(rows[0]!.n);
    } finally {
      await client.end();
    }
  }

  it('seeds the official packs once when two replicas start together', async () => {
    const url = await cluster.createDatabase();
    const [first, second] = await Promise.all(
      [1, 2].map(async () =>
        startRegistry({
          port: 0,
          dataDir: await makeTempDir(),
          database: { url },
          seedDir: DEFAULT_SEED_DIR,
          rateLimits: false,
        }),
      ),
    );
    try {
      const reports = [first!.seed, second!.seed];
      expect(reports.map((report) => report.problems)).toEqual([[], []]);
      const published = reports.find((report) => report.published.length > 0)!;
      const other = reports.find((report) => report !== published)!;
      expect(published.published.length).toBeGreaterThanOrEqual(6);
      // The other one waited for the lock and found every version there.
      expect(other.published).toEqual([]);
      expect(other.unchanged.sort()).toEqual([...published.published].sort());
      expect(await second!.store.countPacks()).toEqual(await first!.store.countPacks());
    } finally {
      await Promise.all([first!.close(), second!.close()]);
    }
  }, 120_000);

  it('closes the one pool both stores share, once however often close() is called', async () => {
    const url = await cluster.createDatabase();
    const registry = await startRegistry({
      port: 0,
      dataDir: await makeTempDir(),
      database: { url, maxConnections: 3 },
      seedDir: false,
    });
    // Both stores answer through it (a search, a tarball lookup).
    expect((await fetch(`${registry.url}/v0/packs`)).status).toBe(200);
    expect((await fetch(`${registry.url}/v0/blobs/sha512/${'a'.repeat(128)}.tgz`)).status).toBe(
      404,
    );
    expect(await countConnections(url)).toBeGreaterThan(0);
    await Promise.all([registry.close(), registry.close()]);
    await registry.close();
    expect(await countConnections(url)).toBe(0);
  });

  it('refuses a database together with a store of its own', async () => {
    const store = createSqliteMetadataStore({ file: ':memory:' });
    await expect(
      startRegistry({
        port: 0,
        dataDir: await makeTempDir(),
        database: { url: cluster.url },
        store,
        seedDir: false,
      }),
    ).rejects.toMatchObject({ code: 'E_REGISTRY_DATABASE' });
    await store.close();
  });
});

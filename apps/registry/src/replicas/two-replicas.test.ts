import { readdir } from 'node:fs/promises';
import {
  hasPostgres,
  NEEDS_POSTGRES,
  startPostgresCluster,
  type PostgresCluster,
} from '@toolpack/pg-cluster';
import { computeIntegrity } from '@toolpack/packs';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkStoredPacks, packLoadPack } from '../hardening/hardening-kit.ts';
import { openRegistryStorage } from '../open-registry-storage.ts';
import { BLOB_PUBLISH_CLAIM_MS, sweepOrphanBlobs } from '../storage/blob-hygiene.ts';
import { computeBlobKey } from '../storage/fs-blob-store.ts';
import { makeTempDir, removeTempDirs } from '../testing/registry-fixtures.ts';
import {
  getJson,
  killReplicas,
  publishTo,
  runRegistryCommand,
  startReplica,
  type Replica,
} from './replica-kit.ts';

/** Never in a log or an error: trust authentication ignores it, so the URL still connects. */
const PASSWORD = 'pw-never-logged-7f3a';

let cluster: PostgresCluster | undefined;

afterAll(async () => {
  await killReplicas();
  await cluster?.stop();
  await removeTempDirs();
}, 120_000);

/** A new database on the cluster, its URL carrying a password as a deployment's would. */
async function createDatabase(): Promise<string> {
  const url = new URL(await cluster!.createDatabase());
  url.password = PASSWORD;
  return url.toString();
}

async function withClient<T>(url: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

async function createTokenFor(url: string): Promise<string> {
  const created = await runRegistryCommand(['token', 'create', '--owner', 'acme'], url);
  expect(created.stderr).toMatch(/^Token [0-9a-f]{16} for owner acme/);
  expect(created.code).toBe(0);
  return created.stdout.trim();
}

interface Pair {
  databaseUrl: string;
  token: string;
  dataDir: string;
  a: Replica;
  b: Replica;
}

/** Two replicas on one database, given the same data folder (it only holds their work folder). */
async function startPair(databaseUrl: string): Promise<Pair> {
  const token = await createTokenFor(databaseUrl);
  const dataDir = await makeTempDir();
  const [a, b] = await Promise.all([
    startReplica({ databaseUrl, dataDir }),
    startReplica({ databaseUrl, dataDir }),
  ]);
  return { databaseUrl, token, dataDir, a, b };
}

async function statusOf(pending: Promise<Response>): Promise<number> {
  const response = await pending;
  await response.body?.cancel();
  return response.status;
}

async function download(url: string): Promise<Buffer> {
  const response = await fetch(url);
  expect(response.status).toBe(200);
  return Buffer.from(await response.arrayBuffer());
}

interface PackDoc {
  latest?: string;
  versions: Record<
    string,
    { deprecated?: string; yanked?: boolean; dist: { tarball: string; integrity: string } }
  >;
}

describe.skipIf(!hasPostgres())(`two registry replicas on one database ${NEEDS_POSTGRES}`, () => {
  let pair: Pair;
  beforeAll(async () => {
    cluster = await startPostgresCluster();
    pair = await startPair(await createDatabase());
  }, 120_000);

  it('keep nothing of their own: data in the database, the password in no log', async () => {
    const { a, b, dataDir } = pair;
    for (const replica of [a, b]) {
      expect(replica.stderr()).toContain(`postgres://toolpack:***@127.0.0.1:${cluster!.port}/`);
      expect(replica.stderr()).not.toContain(PASSWORD);
    }
    // No SQLite file and no tarball folder: only the (empty) work folder, if anything.
    expect((await readdir(dataDir)).filter((name) => name !== 'tmp')).toEqual([]);
  });

  it('serve on B what was published on A at once: search, the pack document, the same tarball bytes', async () => {
    const { a, b, token } = pair;
    const search = `${b.url}/v0/packs?q=visible&tag=hardening`;
    expect((await getJson<{ packs: unknown[] }>(search)).body.packs).toEqual([]);

    const tarball = await packLoadPack({ name: 'acme/visible', version: '1.0.0' });
    expect(await statusOf(publishTo(a.url, token, tarball))).toBe(201);

    const found = await getJson<{ packs: { name: string; version: string }[] }>(search);
    expect(found.body.packs).toMatchObject([{ name: 'acme/visible', version: '1.0.0' }]);
    const pack = await getJson<PackDoc>(`${b.url}/v0/packs/acme%2Fvisible`);
    expect(pack.status).toBe(200);
    const doc = pack.body.versions['1.0.0']!;
    expect(doc.dist.integrity).toBe(computeIntegrity(tarball));
    // B's document points at B, and B serves the bytes A received.
    expect(doc.dist.tarball.startsWith(b.url)).toBe(true);
    expect((await download(doc.dist.tarball)).equals(tarball)).toBe(true);
  });

  it('show on B a deprecation and a yank made on A', async () => {
    const { a, b, token } = pair;
    for (const version of ['1.0.0', '1.1.0']) {
      const tarball = await packLoadPack({ name: 'acme/changing', version });
      expect(await statusOf(publishTo(a.url, token, tarball))).toBe(201);
    }
    const docOnB = () => getJson<PackDoc>(`${b.url}/v0/packs/acme%2Fchanging`);
    expect((await docOnB()).body).toMatchObject({ latest: '1.1.0' });
    expect((await docOnB()).body.versions['1.0.0']?.deprecated).toBeUndefined();

    const change = (version: string, action: string, body: unknown) =>
      statusOf(
        fetch(`${a.url}/v0/packs/acme%2Fchanging/versions/${version}/${action}`, {
          method: 'POST',
          body: JSON.stringify(body),
          headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
        }),
      );
    expect(await change('1.0.0', 'deprecate', { message: 'Use 1.1.0.' })).toBe(200);
    expect((await docOnB()).body.versions['1.0.0']?.deprecated).toBe('Use 1.1.0.');

    expect(await change('1.1.0', 'yank', {})).toBe(200);
    const afterYank = (await docOnB()).body;
    expect(afterYank.latest).toBe('1.0.0');
    expect(afterYank.versions['1.1.0']?.yanked).toBe(true);
    const search = await getJson<{ packs: { name: string; version: string }[] }>(
      `${b.url}/v0/packs?q=changing`,
    );
    expect(search.body.packs).toMatchObject([{ name: 'acme/changing', version: '1.0.0' }]);
  });

  it('give exactly one 201 and 409s when A and B publish the same version at once (10 rounds)', async () => {
    const { a, b, token } = pair;
    for (let round = 0; round < 10; round += 1) {
      const publishers = 2 + (round % 3);
      const version = `2.0.${round}`;
      // Different bytes per publisher: the loser's tarball must not survive.
      const tarballs = await Promise.all(
        Array.from({ length: publishers }, (_, i) =>
          packLoadPack({ name: 'acme/race', version, description: `Publisher ${i}.` }),
        ),
      );
      // Every round has publishers on both replicas.
      const targets = tarballs.map((_, i) => (i % 2 === 0 ? a : b));
      const answers = await Promise.all(
        tarballs.map((tarball, i) => statusOf(publishTo(targets[i]!.url, token, tarball))),
      );
      expect(
        answers.filter((status) => status === 201),
        `round ${round}`,
      ).toHaveLength(1);
      expect(
        answers.filter((status) => status === 409),
        `round ${round}`,
      ).toHaveLength(publishers - 1);
      const winner = answers.indexOf(201);
      const doc = await getJson<PackDoc>(`${b.url}/v0/packs/acme%2Frace`);
      expect(doc.body.versions[version]?.dist.integrity).toBe(computeIntegrity(tarballs[winner]!));
    }
    for (const replica of [a, b]) {
      const stored = await checkStoredPacks(replica.url, ['acme/race']);
      expect(stored.problems).toEqual([]);
      expect(stored.versions.size).toBe(10);
    }
    // The losers removed their tarballs: one blob per version in the whole registry.
    const counts = await withClient(pair.databaseUrl, async (client) => {
      const blobs = await client.query<{ n: string }>('SELECT count(*) AS n FROM blobs');
      const versions = await client.query<{ n: string }>('SELECT count(*) AS n FROM versions');
      return { blobs: Number(blobs.rows[0]!.n), versions: Number(versions.rows[0]!.n) };
    });
    expect(counts.blobs).toBe(counts.versions);
  });
});

describe.skipIf(!hasPostgres())(`a replica killed mid-publish ${NEEDS_POSTGRES}`, () => {
  beforeAll(async () => {
    cluster ??= await startPostgresCluster();
  }, 120_000);

  it('leaves no version, and its tarball is swept once its claim has expired', async () => {
    const databaseUrl = await createDatabase();
    // PostgreSQL then notices within 0.1 s that a client died while its statement waits for
    // a lock, and cancels the statement, rather than finish it when the lock is released.
    await withClient(databaseUrl, (client) =>
      client.query(
        `ALTER DATABASE "${new URL(databaseUrl).pathname.slice(1)}" SET client_connection_check_interval = 100`,
      ),
    );
    const { a, b, token } = await startPair(databaseUrl);
    const tarball = await packLoadPack({ name: 'acme/crash', version: '1.0.0' });
    const key = computeBlobKey(tarball);

    // The test holds the versions table, so A's publish stops where it records the version:
    // after its tarball is written and committed, before the version is.
    const locker = new pg.Client({ connectionString: databaseUrl });
    await locker.connect();
    try {
      await locker.query('BEGIN');
      await locker.query('LOCK TABLE versions IN EXCLUSIVE MODE');
      const publishing = publishTo(a.url, token, tarball).catch((error: Error) => error);
      let stuck = false;
      for (let i = 0; i < 400 && !stuck; i += 1) {
        const { rows } = await locker.query<{ blob: boolean; waiting: boolean }>(
          `SELECT EXISTS (SELECT 1 FROM blobs WHERE key = $1) AS blob,
                  EXISTS (SELECT 1 FROM pg_stat_activity
                          WHERE datname = current_database() AND wait_event_type = 'Lock') AS waiting`,
          [key],
        );
        stuck = rows[0]!.blob && rows[0]!.waiting;
        if (!stuck) await new Promise((resolve) => setTimeout(resolve, 50));
      }
      // The blob really was written (the lock does not cover the blob tables) when A dies.
      expect(stuck).toBe(true);
      await a.kill('SIGKILL');
      expect(await publishing).toBeInstanceOf(Error);
      for (let i = 0; i < 200; i += 1) {
        const { rows } = await locker.query(
          `SELECT 1 FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`,
        );
        if (rows.length === 0) break;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    } finally {
      await locker.query('ROLLBACK');
      await locker.end();
    }

    // B knows no such version; the tarball is an orphan in the shared store.
    expect((await getJson(`${b.url}/v0/packs/acme%2Fcrash`)).status).toBe(404);
    const blobRows = () =>
      withClient(databaseUrl, async (client) =>
        (await client.query('SELECT key FROM blobs')).rows.map((row: { key: string }) => row.key),
      );
    expect(await blobRows()).toEqual([key]);

    // A sweep now keeps it: the dead publish's claim protects it until it expires.
    const early = await runRegistryCommand(['sweep', '--grace', '0'], databaseUrl);
    expect(early.code).toBe(0);
    expect(early.stderr).toMatch(/^Removed 0 orphan tarballs .*1 held by a publish/);
    expect(early.stderr).not.toContain(PASSWORD);
    expect(await blobRows()).toEqual([key]);

    // The sweep as it runs once the claim has expired (the clock moved past it).
    const storage = await openRegistryStorage({
      dataDir: await makeTempDir(),
      database: { url: databaseUrl },
    });
    try {
      const later = new Date(Date.now() + BLOB_PUBLISH_CLAIM_MS + 60_000);
      const report = await sweepOrphanBlobs({
        store: storage.store,
        blobs: storage.blobs,
        graceMs: 0,
        now: () => later,
      });
      expect(report.removed).toEqual([key]);
    } finally {
      await storage.close();
    }
    expect(await blobRows()).toEqual([]);

    // The version was never taken: B publishes it, and serves it whole.
    expect(await statusOf(publishTo(b.url, token, tarball))).toBe(201);
    const doc = await getJson<PackDoc>(`${b.url}/v0/packs/acme%2Fcrash`);
    expect((await download(doc.body.versions['1.0.0']!.dist.tarball)).equals(tarball)).toBe(true);
  }, 60_000);
});

describe.skipIf(!hasPostgres())(`a replica restarting ${NEEDS_POSTGRES}`, () => {
  beforeAll(async () => {
    cluster ??= await startPostgresCluster();
  }, 120_000);

  it('leaves the other answering every search, and comes back with the same data', async () => {
    const databaseUrl = await createDatabase();
    const pair = await startPair(databaseUrl);
    const { b, token } = pair;
    let a = pair.a;
    const tarball = await packLoadPack({ name: 'acme/steady', version: '1.0.0' });
    expect(await statusOf(publishTo(a.url, token, tarball))).toBe(201);

    let restarted = false;
    const onB: number[] = [];
    const searching = (async () => {
      // Bounded: stops once A is back, or after 5000 searches whatever happens.
      for (let i = 0; i < 5000 && !restarted; i += 1) {
        const response = await fetch(`${b.url}/v0/packs?q=steady`);
        const body = (await response.json()) as { packs: { name: string }[] };
        onB.push(response.status === 200 && body.packs.length === 1 ? 200 : response.status);
      }
    })();
    let refusedOnA = 0;
    try {
      await new Promise((resolve) => setTimeout(resolve, 200));
      await a.kill('SIGKILL');
      // A is really down: its port refuses connections.
      await fetch(`${a.url}/health`).catch(() => (refusedOnA += 1));
      a = await startReplica({ databaseUrl, dataDir: pair.dataDir, port: a.port });
      await new Promise((resolve) => setTimeout(resolve, 200));
    } finally {
      restarted = true;
      await searching;
    }
    expect(refusedOnA).toBe(1);
    expect(onB.length).toBeGreaterThan(10);
    expect(onB.filter((status) => status !== 200)).toEqual([]);
    const back = await getJson<{ packs: { name: string }[] }>(`${a.url}/v0/packs?q=steady`);
    expect(back.body.packs.map((p) => p.name)).toEqual(['acme/steady']);
  }, 60_000);
});

describe.skipIf(!hasPostgres())(`replicas across a database restart ${NEEDS_POSTGRES}`, () => {
  beforeAll(async () => {
    cluster ??= await startPostgresCluster();
  }, 120_000);

  it('answer again once PostgreSQL is back, with everything published before', async () => {
    const databaseUrl = await createDatabase();
    const { a, b, token } = await startPair(databaseUrl);
    const tarball = await packLoadPack({ name: 'acme/durable', version: '1.0.0' });
    expect(await statusOf(publishTo(a.url, token, tarball))).toBe(201);
    // Both replicas hold pooled connections that the crash-stop cuts.
    for (const replica of [a, b])
      expect(await statusOf(fetch(`${replica.url}/v0/packs`))).toBe(200);

    await cluster!.restart();

    for (const replica of [b, a]) {
      const found = await getJson<{ packs: { name: string }[] }>(
        `${replica.url}/v0/packs?q=durable`,
      );
      expect(found.status).toBe(200);
      expect(found.body.packs.map((p) => p.name)).toEqual(['acme/durable']);
    }
    const next = await packLoadPack({ name: 'acme/durable', version: '1.1.0' });
    expect(await statusOf(publishTo(b.url, token, next))).toBe(201);
    const doc = await getJson<PackDoc>(`${a.url}/v0/packs/acme%2Fdurable`);
    expect((await download(doc.body.versions['1.1.0']!.dist.tarball)).equals(next)).toBe(true);
  }, 60_000);
});

import { randomBytes } from 'node:crypto';
import {
  hasPostgres,
  NEEDS_POSTGRES,
  startPostgresCluster,
  type PostgresCluster,
} from '@toolpack/pg-cluster';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeBlobStoreContract } from './blob-store-contract.ts';
import { computeBlobKey } from './fs-blob-store.ts';
import { BLOB_CHUNK_BYTES, createPostgresBlobStore } from './postgres-blob-store.ts';
import { openPostgresPool } from './postgres-database.ts';

let cluster: PostgresCluster | undefined;
const pools: pg.Pool[] = [];

async function openDatabase(): Promise<pg.Pool> {
  const pool = await openPostgresPool({ url: await cluster!.createDatabase() });
  pools.push(pool);
  return pool;
}

describe.skipIf(!hasPostgres())(`createPostgresBlobStore ${NEEDS_POSTGRES}`, () => {
  beforeAll(async () => {
    cluster = await startPostgresCluster();
  }, 120_000);
  afterAll(async () => {
    await Promise.all(pools.map((pool) => pool.end()));
    await cluster?.stop();
  }, 120_000);

  describeBlobStoreContract('createPostgresBlobStore', async () => {
    const pool = await openDatabase();
    return {
      blobs: await createPostgresBlobStore({ pool }),
      backdate: async (key, ms) => {
        await pool.query(
          'UPDATE blobs SET modified_at = modified_at - make_interval(secs => $2) WHERE key = $1',
          [key, ms / 1000],
        );
      },
    };
  });

  it('keeps a tarball in chunk rows and streams it one chunk at a time', async () => {
    const pool = await openDatabase();
    const blobs = await createPostgresBlobStore({ pool });
    const bytes = randomBytes(2 * BLOB_CHUNK_BYTES + 100);
    const key = computeBlobKey(bytes);
    await blobs.put(key, bytes);
    const { rows } = await pool.query<{ seq: number; length: number }>(
      'SELECT seq, length(bytes) AS length FROM blob_chunks WHERE key = $1 ORDER BY seq',
      [key],
    );
    expect(rows).toEqual([
      { seq: 0, length: BLOB_CHUNK_BYTES },
      { seq: 1, length: BLOB_CHUNK_BYTES },
      { seq: 2, length: 100 },
    ]);
    const sizes: number[] = [];
    for await (const chunk of (await blobs.open(key))!.stream())
      sizes.push((chunk as Buffer).length);
    expect(sizes).toEqual([BLOB_CHUNK_BYTES, BLOB_CHUNK_BYTES, 100]);
  });

  it('leaves nothing of a put that fails after writing some of its chunks', async () => {
    const pool = await openDatabase();
    const blobs = await createPostgresBlobStore({ pool });
    // The second chunk fails, as a crash or a lost connection would cut the write there; the
    // message says what the write had put in the database by then.
    await pool.query(`
      CREATE FUNCTION fail_second_chunk() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF NEW.seq = 1 THEN
          RAISE EXCEPTION 'the disk is full (blob rows: %, chunk rows: %)',
            (SELECT count(*) FROM blobs WHERE key = NEW.key),
            (SELECT count(*) FROM blob_chunks WHERE key = NEW.key);
        END IF;
        RETURN NEW;
      END $$;
      CREATE TRIGGER fail_second_chunk BEFORE INSERT ON blob_chunks
        FOR EACH ROW EXECUTE FUNCTION fail_second_chunk();
    `);
    const bytes = randomBytes(BLOB_CHUNK_BYTES + 1);
    const key = computeBlobKey(bytes);
    await expect(blobs.put(key, bytes)).rejects.toMatchObject({
      code: 'E_REGISTRY_DATABASE',
      message: expect.stringContaining('(blob rows: 1, chunk rows: 1)'),
    });
    expect(await blobs.has(key)).toBe(false);
    expect(await blobs.open(key)).toBeUndefined();
    expect((await pool.query('SELECT 1 FROM blob_chunks')).rowCount).toBe(0);

    await pool.query('DROP TRIGGER fail_second_chunk ON blob_chunks');
    await blobs.put(key, bytes);
    expect((await blobs.open(key))?.size).toBe(bytes.length);
  });

  it('lists a store larger than one page, each blob once', async () => {
    const pool = await openDatabase();
    const blobs = await createPostgresBlobStore({ pool });
    // Rows written directly: the listing only reads blobs rows.
    await pool.query(`
      INSERT INTO blobs (key, size, modified_at)
      SELECT 'sha512/' || lpad(to_hex(n), 128, '0'), n, now() FROM generate_series(1, 1203) AS n
    `);
    const keys: string[] = [];
    for await (const blob of blobs.list()) keys.push(blob.key);
    expect(keys).toHaveLength(1203);
    expect(new Set(keys).size).toBe(1203);
  });

  it('opens a second time on a migrated database, as a second replica does', async () => {
    const pool = await openDatabase();
    const first = await createPostgresBlobStore({ pool });
    const bytes = Buffer.from('kept');
    await first.put(computeBlobKey(bytes), bytes);
    const [second] = await Promise.all([
      createPostgresBlobStore({ pool }),
      createPostgresBlobStore({ pool }),
    ]);
    expect(await second.has(computeBlobKey(bytes))).toBe(true);
  });
});

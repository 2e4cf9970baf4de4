import { Readable } from 'node:stream';
import { ToolpackError } from '@toolpack/core';
import type pg from 'pg';
import type { BlobHandle, BlobListing, BlobStore } from './blob-store.ts';
import { computeBlobKey, isBlobKey } from './fs-blob-store.ts';
import { applyPostgresMigrations, type PostgresMigration } from './postgres-database.ts';

/**
 * Rows of at most this many bytes hold a tarball: small enough that a download streams one
 * row at a time (never a whole tarball in memory, never a connection held while a slow
 * client reads), large enough that a pack at the size cap is a few dozen rows.
 */
export const BLOB_CHUNK_BYTES = 256 * 1024;

/** How many blobs one `list` query reads. */
const LIST_PAGE_SIZE = 500;

/** The `blobs` component's schema, in `toolpack_schema` beside the metadata store's. */
const BLOB_MIGRATIONS: readonly PostgresMigration[] = [
  {
    version: 1,
    sql: `
      CREATE TABLE blobs (
        key text COLLATE "C" PRIMARY KEY,
        size integer NOT NULL CHECK (size >= 0),
        modified_at timestamptz NOT NULL
      );
      CREATE TABLE blob_chunks (
        key text COLLATE "C" NOT NULL REFERENCES blobs (key) ON DELETE CASCADE,
        seq integer NOT NULL CHECK (seq >= 0),
        bytes bytea NOT NULL,
        PRIMARY KEY (key, seq)
      );
      -- Tarballs are gzip already: compressing them again in TOAST costs CPU for nothing.
      ALTER TABLE blob_chunks ALTER COLUMN bytes SET STORAGE EXTERNAL;
    `,
  },
];

export interface PostgresBlobStoreOptions {
  /** The pool the registry opened (`openPostgresPool`); the store never ends it. */
  pool: pg.Pool;
}

/**
 * Tarballs in PostgreSQL, for registry replicas that share one database. Chosen over an
 * S3-compatible bucket because the replicas already need that database: one system to run,
 * secure and back up, and a backup that holds versions and their tarballs at one instant.
 * Tarballs are small (the publish size cap) and immutable, and downloads are cacheable
 * forever by URL, so a CDN in front takes the read load a bucket would. (An object store
 * remains possible behind the same `BlobStore` interface.)
 *
 * A blob is a `blobs (key, size, modified_at)` row and its bytes in `blob_chunks (key, seq,
 * bytes)` rows of `BLOB_CHUNK_BYTES`, written in one transaction: a reader never sees half a
 * blob and a write cut short by a crash leaves nothing, so there are no interrupted writes
 * to sweep. `modified_at` is the database's clock, the one clock all replicas share.
 */
export async function createPostgresBlobStore(
  options: PostgresBlobStoreOptions,
): Promise<BlobStore> {
  const { pool } = options;
  await applyPostgresMigrations(pool, 'blobs', BLOB_MIGRATIONS);

  return {
    async put(key, bytes) {
      if (!isBlobKey(key)) {
        throw new ToolpackError('E_BLOB_KEY', `${JSON.stringify(key)} is not a blob key.`, {
          hint: 'Use computeBlobKey(bytes) to name a blob.',
        });
      }
      // A wrong key would serve other bytes than its integrity promises, forever.
      if (computeBlobKey(bytes) !== key) {
        throw new ToolpackError('E_BLOB_KEY', `The bytes stored as ${key} do not hash to it.`);
      }
      const client = await pool.connect();
      try {
        await client.query('BEGIN');
        // A concurrent put of the same key waits here for this one's commit, then only
        // touches the row; if this one rolls back, that one writes the chunks itself.
        const { rows } = await client.query<{ inserted: boolean }>(
          `INSERT INTO blobs (key, size, modified_at) VALUES ($1, $2, clock_timestamp())
           ON CONFLICT (key) DO UPDATE SET modified_at = clock_timestamp()
           RETURNING (xmax = 0) AS inserted`,
          [key, bytes.length],
        );
        if (rows[0]?.inserted === true) {
          for (let seq = 0; seq * BLOB_CHUNK_BYTES < bytes.length; seq += 1) {
            const chunk = bytes.subarray(seq * BLOB_CHUNK_BYTES, (seq + 1) * BLOB_CHUNK_BYTES);
            await client.query('INSERT INTO blob_chunks (key, seq, bytes) VALUES ($1, $2, $3)', [
              key,
              seq,
              Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength),
            ]);
          }
        }
        await client.query('COMMIT');
      } catch (error) {
        await client.query('ROLLBACK').catch(() => {});
        throw describeFailure(`Writing ${key}`, error);
      } finally {
        client.release();
      }
    },
    async open(key) {
      if (!isBlobKey(key)) return undefined;
      const { rows } = await query<{ size: number }>(
        pool,
        `Reading ${key}`,
        'SELECT size FROM blobs WHERE key = $1',
        [key],
      );
      const size = rows[0]?.size;
      if (size === undefined) return undefined;
      const handle: BlobHandle = {
        size,
        stream: () => Readable.from(readChunks(pool, key, size), { objectMode: false }),
      };
      return handle;
    },
    async has(key) {
      if (!isBlobKey(key)) return false;
      const { rows } = await query(pool, `Reading ${key}`, 'SELECT 1 FROM blobs WHERE key = $1', [
        key,
      ]);
      return rows.length > 0;
    },
    async delete(key) {
      if (!isBlobKey(key)) {
        throw new ToolpackError('E_BLOB_KEY', `${JSON.stringify(key)} is not a blob key.`, {
          hint: 'Delete blobs by the keys list() gives.',
        });
      }
      await query(pool, `Deleting ${key}`, 'DELETE FROM blobs WHERE key = $1', [key]);
    },
    list: () => listBlobs(pool),
  };
}

/** The chunks in order, one query each, checked against the size the blob row promised. */
async function* readChunks(pool: pg.Pool, key: string, size: number): AsyncGenerator<Buffer> {
  let read = 0;
  for (let seq = 0; read < size; seq += 1) {
    const { rows } = await query<{ bytes: Buffer }>(
      pool,
      `Reading ${key}`,
      'SELECT bytes FROM blob_chunks WHERE key = $1 AND seq = $2',
      [key, seq],
    );
    const bytes = rows[0]?.bytes;
    // Only a deletion during the download gets here (blobs are written whole).
    if (bytes === undefined || bytes.length === 0) {
      throw new ToolpackError(
        'E_REGISTRY_DATABASE',
        `${key} was removed while it was being read (${read} of ${size} bytes sent).`,
      );
    }
    read += bytes.length;
    yield bytes;
  }
}

/** Every blob by key, a page per query, so a large store is never read at once. */
async function* listBlobs(pool: pg.Pool): AsyncGenerator<BlobListing> {
  let after = '';
  for (;;) {
    const { rows } = await query<{ key: string; size: number; modified_at: Date }>(
      pool,
      'Listing blobs',
      'SELECT key, size, modified_at FROM blobs WHERE key > $1 ORDER BY key LIMIT $2',
      [after, LIST_PAGE_SIZE],
    );
    for (const row of rows) yield { key: row.key, size: row.size, modifiedAt: row.modified_at };
    const last = rows.at(-1);
    if (last === undefined || rows.length < LIST_PAGE_SIZE) return;
    after = last.key;
  }
}

async function query<Row extends pg.QueryResultRow>(
  pool: pg.Pool,
  what: string,
  text: string,
  values: unknown[],
): Promise<pg.QueryResult<Row>> {
  try {
    return await pool.query<Row>(text, values);
  } catch (error) {
    throw describeFailure(what, error);
  }
}

function describeFailure(what: string, error: unknown): Error {
  if (error instanceof ToolpackError) return error;
  return new ToolpackError(
    'E_REGISTRY_DATABASE',
    `${what} in the PostgreSQL blob store failed: ${(error as Error).message}.`,
    {
      hint: 'Check that the database is reachable; the request can be retried.',
      cause: error,
    },
  );
}

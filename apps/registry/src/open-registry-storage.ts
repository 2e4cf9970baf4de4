import path from 'node:path';
import type { BlobStore } from './storage/blob-store.ts';
import { createFsBlobStore } from './storage/fs-blob-store.ts';
import type { MetadataStore } from './storage/metadata-store.ts';
import { createPostgresBlobStore } from './storage/postgres-blob-store.ts';
import { describePostgresUrl, openPostgresPool } from './storage/postgres-database.ts';
import { createPostgresMetadataStore } from './storage/postgres-metadata-store.ts';
import { createSqliteMetadataStore } from './storage/sqlite-metadata-store.ts';

/** Where `toolpack-registry` reads the database URL when `--database` is not given. */
export const DATABASE_URL_VARIABLE = 'TOOLPACK_REGISTRY_DATABASE';

export interface RegistryDatabaseOptions {
  /** `postgres://user:password@host:5432/database`; its password is never logged. */
  url: string;
  /** The most connections this instance opens (default 10); each replica has its own. */
  maxConnections?: number;
}

export interface OpenRegistryStorageOptions {
  /** The registry's data folder: `registry.db` and `blobs/` when there is no database. */
  dataDir: string;
  /** Metadata and tarballs in this PostgreSQL database instead, shared by every replica. */
  database?: RegistryDatabaseOptions;
}

export interface RegistryStorage {
  store: MetadataStore;
  blobs: BlobStore;
  /** Where the data is, for messages: the data folder, or the URL without its password. */
  location: string;
  /** Closes the store and, for PostgreSQL, ends the pool both stores share. */
  close(): Promise<void>;
}

/**
 * The registry's two stores: embedded (SQLite and files in the data folder, one instance) or
 * both in one PostgreSQL database through one pool per process (any number of replicas).
 */
export async function openRegistryStorage(
  options: OpenRegistryStorageOptions,
): Promise<RegistryStorage> {
  if (options.database === undefined) {
    const store = createSqliteMetadataStore({ file: path.join(options.dataDir, 'registry.db') });
    return {
      store,
      blobs: createFsBlobStore({ dir: path.join(options.dataDir, 'blobs') }),
      location: options.dataDir,
      close: () => store.close(),
    };
  }
  const pool = await openPostgresPool({
    url: options.database.url,
    ...(options.database.maxConnections === undefined
      ? {}
      : { maxConnections: options.database.maxConnections }),
  });
  try {
    const store = await createPostgresMetadataStore({ pool });
    const blobs = await createPostgresBlobStore({ pool });
    let closing: Promise<void> | undefined;
    return {
      store,
      blobs,
      location: describePostgresUrl(options.database.url),
      close: () =>
        (closing ??= (async () => {
          try {
            await store.close();
          } finally {
            if (!pool.ended) await pool.end();
          }
        })()),
    };
  } catch (error) {
    await pool.end().catch(() => {});
    throw error;
  }
}

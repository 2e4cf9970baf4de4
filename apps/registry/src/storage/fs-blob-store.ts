import { createHash, randomBytes } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { mkdir, readdir, rename, rm, stat, utimes, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { ToolpackError } from '@toolpack/core';
import type { BlobHandle, BlobListing, BlobStore, InterruptedWrite } from './blob-store.ts';

const KEY_PATTERN = /^sha512\/([0-9a-f]{128})$/;
const FILE_PATTERN = /^([0-9a-f]{128})\.tgz$/;
/** `put` writes `<hex>.tgz.<12 hex>.tmp` aside, then renames it over `<hex>.tgz`. */
const TEMPORARY_PATTERN = /^([0-9a-f]{128})\.tgz\.[0-9a-f]{12}\.tmp$/;

/** The content-addressed key of `bytes`. */
export function computeBlobKey(bytes: Uint8Array): string {
  return `sha512/${createHash('sha512').update(bytes).digest('hex')}`;
}

export function isBlobKey(key: string): boolean {
  return KEY_PATTERN.test(key);
}

export interface FsBlobStoreOptions {
  /** The folder blobs are written under (`<dir>/sha512/ab/<hex>.tgz`). */
  dir: string;
}

/** Tarballs on the local disk, one file per content hash. */
export function createFsBlobStore(options: FsBlobStoreOptions): BlobStore {
  const root = path.resolve(options.dir);
  const fileOf = (key: string): string | undefined => {
    const hex = KEY_PATTERN.exec(key)?.[1];
    return hex === undefined ? undefined : path.join(root, 'sha512', hex.slice(0, 2), `${hex}.tgz`);
  };

  return {
    async put(key, bytes) {
      const file = fileOf(key);
      if (file === undefined) {
        throw new ToolpackError('E_BLOB_KEY', `${JSON.stringify(key)} is not a blob key.`, {
          hint: 'Use computeBlobKey(bytes) to name a blob.',
        });
      }
      // A wrong key would serve other bytes than its integrity promises, forever.
      if (computeBlobKey(bytes) !== key) {
        throw new ToolpackError('E_BLOB_KEY', `The bytes stored as ${key} do not hash to it.`);
      }
      // Touching an existing blob restarts its sweep grace period; if it vanished meanwhile
      // (a sweep removed an orphan), it is written again below.
      const now = new Date();
      if (
        (await exists(file)) &&
        (await utimes(file, now, now).then(
          () => true,
          () => false,
        ))
      )
        return;
      await mkdir(path.dirname(file), { recursive: true });
      // Written aside and renamed, so a reader never sees half a tarball and a crash leaves
      // at most a stray temporary file.
      const temporary = `${file}.${randomBytes(6).toString('hex')}.tmp`;
      try {
        await writeFile(temporary, bytes, { flag: 'wx' });
        await rename(temporary, file);
      } finally {
        await rm(temporary, { force: true });
      }
    },
    async open(key) {
      const file = fileOf(key);
      if (file === undefined) return undefined;
      const stats = await stat(file).catch(() => undefined);
      if (stats === undefined || !stats.isFile()) return undefined;
      const handle: BlobHandle = { size: stats.size, stream: () => createReadStream(file) };
      return handle;
    },
    async has(key) {
      const file = fileOf(key);
      return file !== undefined && (await exists(file));
    },
    async delete(key) {
      const file = fileOf(key);
      if (file === undefined) {
        throw new ToolpackError('E_BLOB_KEY', `${JSON.stringify(key)} is not a blob key.`, {
          hint: 'Delete blobs by the keys list() gives.',
        });
      }
      await rm(file, { force: true });
    },
    list: () => listBlobs(root),
    async removeInterruptedWrites({ olderThan, dryRun = false }) {
      const found: InterruptedWrite[] = [];
      for await (const { file, name } of listShardFiles(root)) {
        if (!TEMPORARY_PATTERN.test(name)) continue;
        const stats = await stat(file).catch(() => undefined);
        // A write still running touches its file; one older than the grace period died.
        if (stats === undefined || !stats.isFile() || stats.mtime >= olderThan) continue;
        if (!dryRun) await rm(file, { force: true });
        found.push({ path: path.relative(root, file).split(path.sep).join('/'), size: stats.size });
      }
      return found;
    },
  };
}

async function exists(file: string): Promise<boolean> {
  return stat(file).then(
    (s) => s.isFile(),
    () => false,
  );
}

/** Every name in the `<root>/sha512/<first two hex>/` shard folders, with its shard. */
async function* listShardFiles(
  root: string,
): AsyncGenerator<{ file: string; name: string; shard: string }> {
  const base = path.join(root, 'sha512');
  const shards = await readdir(base, { withFileTypes: true }).catch(() => []);
  for (const shard of shards) {
    if (!shard.isDirectory() || !/^[0-9a-f]{2}$/.test(shard.name)) continue;
    const names = await readdir(path.join(base, shard.name)).catch(() => []);
    for (const name of names)
      yield { file: path.join(base, shard.name, name), name, shard: shard.name };
  }
}

/** Blobs are `<root>/sha512/<first two hex>/<hex>.tgz`; anything else there (temporary files) is not a blob. */
async function* listBlobs(root: string): AsyncGenerator<BlobListing> {
  for await (const { file, name, shard } of listShardFiles(root)) {
    const hex = FILE_PATTERN.exec(name)?.[1];
    if (hex === undefined || !hex.startsWith(shard)) continue;
    const stats = await stat(file).catch(() => undefined);
    // Gone since the folder was read (removed by another sweep), or not a file.
    if (stats === undefined || !stats.isFile()) continue;
    yield { key: `sha512/${hex}`, size: stats.size, modifiedAt: stats.mtime };
  }
}

import { readdir, utimes } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { makeTempDir, removeTempDirs } from '../testing/registry-fixtures.ts';
import { describeBlobStoreContract } from './blob-store-contract.ts';
import { computeBlobKey, createFsBlobStore } from './fs-blob-store.ts';

afterAll(removeTempDirs);

/** Where the store keeps `key` under `dir`. */
function fileOf(dir: string, key: string): string {
  const hex = key.slice('sha512/'.length);
  return path.join(dir, 'sha512', hex.slice(0, 2), `${hex}.tgz`);
}

describeBlobStoreContract('createFsBlobStore', async () => {
  const dir = await makeTempDir();
  return {
    blobs: createFsBlobStore({ dir }),
    backdate: async (key, ms) => {
      const then = new Date(Date.now() - ms);
      await utimes(fileOf(dir, key), then, then);
    },
  };
});

describe('createFsBlobStore', () => {
  it('keeps a blob as one file in a shard folder named by its hash', async () => {
    const dir = await makeTempDir();
    const blobs = createFsBlobStore({ dir });
    const bytes = Buffer.from('a tarball, supposedly');
    const key = computeBlobKey(bytes);
    await blobs.put(key, bytes);
    await blobs.put(key, bytes);
    const shard = path.join(dir, 'sha512', key.slice(7, 9));
    expect(await readdir(shard)).toEqual([`${key.slice(7)}.tgz`]);
  });
});

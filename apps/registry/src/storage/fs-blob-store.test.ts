import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { text } from 'node:stream/consumers';
import { afterAll, describe, expect, it } from 'vitest';
import { makeTempDir, removeTempDirs } from '../testing/registry-fixtures.ts';
import { computeBlobKey, createFsBlobStore, isBlobKey } from './fs-blob-store.ts';

afterAll(removeTempDirs);

describe('createFsBlobStore', () => {
  it('stores bytes under their sha512 and serves them back', async () => {
    const dir = await makeTempDir();
    const blobs = createFsBlobStore({ dir });
    const bytes = Buffer.from('a tarball, supposedly');
    const key = computeBlobKey(bytes);
    expect(isBlobKey(key)).toBe(true);
    expect(await blobs.has(key)).toBe(false);
    await blobs.put(key, bytes);
    await blobs.put(key, bytes);
    const handle = await blobs.open(key);
    expect(handle?.size).toBe(bytes.length);
    expect(await text(handle!.stream())).toBe('a tarball, supposedly');
    const shard = path.join(dir, 'sha512', key.slice(7, 9));
    expect(await readdir(shard)).toEqual([`${key.slice(7)}.tgz`]);
  });

  it('refuses keys that are not content hashes, or not the hash of the bytes', async () => {
    const blobs = createFsBlobStore({ dir: await makeTempDir() });
    await expect(blobs.put('sha512/../../etc/passwd', Buffer.from('x'))).rejects.toMatchObject({
      code: 'E_BLOB_KEY',
    });
    await expect(
      blobs.put(computeBlobKey(Buffer.from('a')), Buffer.from('b')),
    ).rejects.toMatchObject({ code: 'E_BLOB_KEY' });
    expect(await blobs.open('sha512/../../registry.db')).toBeUndefined();
    expect(await blobs.open(`sha512/${'f'.repeat(128)}`)).toBeUndefined();
  });
});

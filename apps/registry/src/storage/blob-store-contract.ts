import { randomBytes } from 'node:crypto';
import { buffer } from 'node:stream/consumers';
import { describe, expect, it } from 'vitest';
import type { BlobListing, BlobStore } from './blob-store.ts';
import { computeBlobKey, isBlobKey } from './fs-blob-store.ts';

export interface BlobStoreUnderTest {
  blobs: BlobStore;
  /** Makes `key` look last written `ms` earlier than it was (its mtime, its row's time). */
  backdate(key: string, ms: number): Promise<void>;
}

/**
 * The behaviour every `BlobStore` promises, run against each store (the file store, the
 * PostgreSQL one) so that the registry code above them can rely on it whichever is used.
 * `setup` gives each test an empty store of its own.
 */
export function describeBlobStoreContract(
  title: string,
  setup: () => Promise<BlobStoreUnderTest>,
): void {
  describe(`${title}: the BlobStore contract`, () => {
    it('stores bytes under their sha512 and serves them back, one copy however often put', async () => {
      const { blobs } = await setup();
      const bytes = Buffer.from('a tarball, supposedly');
      const key = computeBlobKey(bytes);
      expect(isBlobKey(key)).toBe(true);
      expect(await blobs.has(key)).toBe(false);
      expect(await blobs.open(key)).toBeUndefined();
      await blobs.put(key, bytes);
      await blobs.put(key, bytes);
      const handle = await blobs.open(key);
      expect(handle?.size).toBe(bytes.length);
      expect((await buffer(handle!.stream())).toString()).toBe('a tarball, supposedly');
      expect(await blobs.has(key)).toBe(true);
      expect((await listAll(blobs)).map((blob) => [blob.key, blob.size])).toEqual([
        [key, bytes.length],
      ]);
    });

    it('serves a large blob byte for byte, twice over, and an empty one', async () => {
      const { blobs } = await setup();
      const bytes = randomBytes(600 * 1024 + 17);
      const key = computeBlobKey(bytes);
      await blobs.put(key, bytes);
      const handle = await blobs.open(key);
      expect(handle?.size).toBe(bytes.length);
      expect((await buffer(handle!.stream())).equals(bytes)).toBe(true);
      // A handle streams as often as asked (a retried download).
      expect((await buffer(handle!.stream())).equals(bytes)).toBe(true);

      const empty = Buffer.alloc(0);
      await blobs.put(computeBlobKey(empty), empty);
      const none = await blobs.open(computeBlobKey(empty));
      expect(none?.size).toBe(0);
      expect((await buffer(none!.stream())).length).toBe(0);
    });

    it('keeps one whole copy when the same bytes are put many times at once', async () => {
      const { blobs } = await setup();
      const bytes = randomBytes(300 * 1024);
      const key = computeBlobKey(bytes);
      await Promise.all(Array.from({ length: 6 }, () => blobs.put(key, bytes)));
      expect((await listAll(blobs)).map((blob) => blob.key)).toEqual([key]);
      expect((await buffer((await blobs.open(key))!.stream())).equals(bytes)).toBe(true);
    });

    it('refuses keys that are not content hashes, or not the hash of the bytes', async () => {
      const { blobs } = await setup();
      await expect(blobs.put('sha512/../../etc/passwd', Buffer.from('x'))).rejects.toMatchObject({
        code: 'E_BLOB_KEY',
      });
      await expect(
        blobs.put(computeBlobKey(Buffer.from('a')), Buffer.from('b')),
      ).rejects.toMatchObject({ code: 'E_BLOB_KEY' });
      expect(await blobs.open('sha512/../../registry.db')).toBeUndefined();
      expect(await blobs.has('sha512/../../registry.db')).toBe(false);
      expect(await blobs.open(`sha512/${'f'.repeat(128)}`)).toBeUndefined();
      await expect(blobs.delete('sha512/../../registry.db')).rejects.toMatchObject({
        code: 'E_BLOB_KEY',
      });
      expect(await listAll(blobs)).toEqual([]);
    });

    it('lists blobs with sizes, deletes them, and refreshes modifiedAt on a repeated put', async () => {
      const { blobs, backdate } = await setup();
      const put = async (text: string) => {
        const key = computeBlobKey(Buffer.from(text));
        await blobs.put(key, Buffer.from(text));
        return key;
      };
      const a = await put('a');
      const b = await put('bb');
      await backdate(a, 60_000);
      expect((await listAll(blobs)).map((blob) => blob.key).sort()).toEqual([a, b].sort());
      const before = (await listAll(blobs)).find((blob) => blob.key === a)!;
      expect(before.modifiedAt.getTime()).toBeLessThan(Date.now() - 50_000);
      await blobs.put(a, Buffer.from('a'));
      const after = (await listAll(blobs)).find((blob) => blob.key === a)!;
      expect(after.modifiedAt.getTime()).toBeGreaterThan(Date.now() - 10_000);
      expect(after.size).toBe(1);

      await blobs.delete(a);
      await blobs.delete(a);
      expect(await blobs.has(a)).toBe(false);
      expect(await blobs.open(a)).toBeUndefined();
      expect(await listAll(blobs)).toMatchObject([{ key: b, size: 2 }]);
      // Deleted bytes can be written again.
      await blobs.put(a, Buffer.from('a'));
      expect((await buffer((await blobs.open(a))!.stream())).toString()).toBe('a');
    });
  });
}

async function listAll(blobs: BlobStore): Promise<BlobListing[]> {
  const listed: BlobListing[] = [];
  for await (const blob of blobs.list()) listed.push(blob);
  return listed;
}

import type { Readable } from 'node:stream';

/**
 * Where tarballs live, by content hash. Keys are `sha512/<hex>`: a blob never changes once
 * written, so any number of registry instances can share one store (a folder here, an
 * S3-compatible bucket in a scaled deployment) and caches may keep blobs forever.
 */
export interface BlobStore {
  /** Idempotent: writing the same key twice keeps one copy. */
  put(key: string, bytes: Uint8Array): Promise<void>;
  /** Undefined when there is no such blob. */
  open(key: string): Promise<BlobHandle | undefined>;
  has(key: string): Promise<boolean>;
}

export interface BlobHandle {
  size: number;
  stream(): Readable;
}

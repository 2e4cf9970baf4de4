import type { Readable } from 'node:stream';

/**
 * Where tarballs live, by content hash. Keys are `sha512/<hex>`: a blob never changes once
 * written, so any number of registry instances can share one store (a folder here, an
 * S3-compatible bucket in a scaled deployment) and caches may keep blobs forever.
 *
 * A blob is written before the version that points at it is committed, so a publish that
 * loses a race or dies in between leaves a blob nothing references. `list` and `delete`
 * exist for that clean-up only (`sweepOrphanBlobs`, and a publish abandoning its own blob);
 * they run under a delete claim in the MetadataStore, never on their own.
 */
export interface BlobStore {
  /**
   * Idempotent: writing the same key twice keeps one copy. Writing a key that is already
   * there still marks it as just written (its `modifiedAt`), as an object store's PUT does,
   * so a sweep's grace period counts from the latest publish that needed it.
   */
  put(key: string, bytes: Uint8Array): Promise<void>;
  /** Undefined when there is no such blob. */
  open(key: string): Promise<BlobHandle | undefined>;
  has(key: string): Promise<boolean>;
  /** Removes a blob; removing one that is not there is not an error. */
  delete(key: string): Promise<void>;
  /** Every blob, in no particular order (a paginated listing for an object store). */
  list(): AsyncIterable<BlobListing>;
  /**
   * Removes what writes interrupted by a crash left behind, last touched before `olderThan`,
   * and lists it (in a dry run, lists only). Optional: a store whose writes are atomic by
   * themselves, like an object store's PUT, leaves nothing to remove.
   */
  removeInterruptedWrites?(options: {
    olderThan: Date;
    dryRun?: boolean;
  }): Promise<InterruptedWrite[]>;
}

export interface InterruptedWrite {
  /** Where it was, relative to the store (`sha512/ab/<hex>.tgz.<random>.tmp`). */
  path: string;
  size: number;
}

export interface BlobHandle {
  size: number;
  stream(): Readable;
}

export interface BlobListing {
  key: string;
  size: number;
  /** When the blob was last written (a file's mtime, an object's LastModified). */
  modifiedAt: Date;
}

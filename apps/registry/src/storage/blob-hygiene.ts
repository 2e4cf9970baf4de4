import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { createDiagnostic, ToolpackError, type Diagnostic } from '@toolpack/core';
import type { BlobStore, InterruptedWrite } from './blob-store.ts';
import type { MetadataStore } from './metadata-store.ts';

/**
 * How long a publish's claim protects its blob. It only has to outlast writing the blob and
 * committing the version (seconds, even for a large tarball to an object store); a publish
 * that died holding it stops protecting an orphan after this.
 */
export const BLOB_PUBLISH_CLAIM_MS = 10 * 60_000;

/** A deletion holds its claim for one `BlobStore.delete`. */
export const BLOB_DELETE_CLAIM_MS = 60_000;

/**
 * Orphans younger than this are left to the next sweep: a publish in another process may have
 * just written the blob (with a registry that predates claims, or a clock that disagrees).
 */
export const DEFAULT_BLOB_SWEEP_GRACE_MS = 10 * 60_000;

const CLAIM_RETRY_MS = 20;

export interface BlobClaimOptions {
  /** The claimer's id: a publish releases its claim with it. */
  id: string;
  /** Stops waiting for a deletion of the same blob to finish. */
  signal?: AbortSignal;
  now?: () => Date;
}

/**
 * Claims `key` for a publish about to write it. While a deletion of the same blob is under
 * way (an orphan with the same bytes), waits for it to finish, so the blob is written after
 * it is deleted, never before. False when `signal` aborted the wait.
 */
export async function claimBlobForPublish(
  store: MetadataStore,
  key: string,
  options: BlobClaimOptions,
): Promise<boolean> {
  const now = options.now ?? (() => new Date());
  // A delete claim expires after BLOB_DELETE_CLAIM_MS, so the wait is bounded even when the
  // deleter died; the margin covers the retries' own delay.
  const attempts = Math.ceil(BLOB_DELETE_CLAIM_MS / CLAIM_RETRY_MS) + 50;
  for (let attempt = 0; attempt < attempts; attempt += 1) {
    if (options.signal?.aborted === true) return false;
    const at = now();
    const result = await store.claimBlob({
      key,
      id: options.id,
      purpose: 'publish',
      at,
      expiresAt: new Date(at.getTime() + BLOB_PUBLISH_CLAIM_MS),
    });
    if (result === 'granted') return true;
    await sleep(CLAIM_RETRY_MS);
  }
  throw new ToolpackError(
    'E_BLOB_CLAIM',
    `${key} stayed claimed for deletion longer than ${BLOB_DELETE_CLAIM_MS / 1000} s.`,
    { hint: 'Check that the registry instances sharing this store agree on the time.' },
  );
}

export type BlobRemoval = 'removed' | 'referenced' | 'held';

/**
 * Deletes a blob no version references and no publish is writing (`removed`); otherwise
 * leaves it (`referenced`, `held`). The check and the deletion sit under one delete claim, so
 * a publish of the same bytes either sees the claim and waits, or holds the blob first.
 */
export function removeBlobIfUnreferenced(
  store: MetadataStore,
  blobs: BlobStore,
  key: string,
  options: { now?: () => Date } = {},
): Promise<BlobRemoval> {
  return claimAndRemove(store, blobs, key, options.now ?? (() => new Date()), true);
}

/** With `remove` false: would it be removed now? (Claims and releases, deletes nothing.) */
async function claimAndRemove(
  store: MetadataStore,
  blobs: BlobStore,
  key: string,
  now: () => Date,
  remove: boolean,
): Promise<BlobRemoval> {
  const id = randomUUID();
  const at = now();
  const claim = await store.claimBlob({
    key,
    id,
    purpose: 'delete',
    at,
    expiresAt: new Date(at.getTime() + BLOB_DELETE_CLAIM_MS),
  });
  if (claim !== 'granted') return claim;
  try {
    if (remove) await blobs.delete(key);
  } finally {
    await store.releaseBlobClaim(key, id);
  }
  return 'removed';
}

export interface SweepOrphanBlobsOptions {
  store: MetadataStore;
  blobs: BlobStore;
  /** Orphans written less than this long ago are kept. Default 10 minutes. */
  graceMs?: number;
  /** Report what would be removed, remove nothing. */
  dryRun?: boolean;
  now?: () => Date;
}

export interface BlobSweepReport {
  /** Keys of the orphans removed (in a dry run, of those that would be). */
  removed: string[];
  /** Files that writes interrupted by a crash left, removed (or, in a dry run, found). */
  interruptedWrites: InterruptedWrite[];
  /** The orphans' and the interrupted writes' bytes together. */
  removedBytes: number;
  /** Blobs left: a version points at them, they are newer than the grace period, or a publish holds them. */
  kept: { referenced: number; recent: number; held: number };
  /** Orphans the store failed to remove, each with why; the sweep went on with the others. */
  problems: Diagnostic[];
}

/**
 * Removes blobs no version references that were written longer ago than the grace period:
 * what a publish leaves when its process dies between writing the tarball and committing
 * the version. Safe while publishes run, here or in other instances sharing the stores.
 */
export async function sweepOrphanBlobs(options: SweepOrphanBlobsOptions): Promise<BlobSweepReport> {
  const { store, blobs } = options;
  const now = options.now ?? (() => new Date());
  const graceMs = options.graceMs ?? DEFAULT_BLOB_SWEEP_GRACE_MS;
  if (!Number.isFinite(graceMs) || graceMs < 0) {
    throw new ToolpackError(
      'E_SWEEP_GRACE',
      `The grace period must be 0 or more ms, not ${graceMs}.`,
    );
  }
  const report: BlobSweepReport = {
    removed: [],
    interruptedWrites: [],
    removedBytes: 0,
    kept: { referenced: 0, recent: 0, held: 0 },
    problems: [],
  };
  if (options.dryRun !== true) await store.pruneBlobClaims(now());
  const cutoff = now().getTime() - graceMs;
  for await (const blob of blobs.list()) {
    if (blob.modifiedAt.getTime() > cutoff) {
      report.kept.recent += 1;
      continue;
    }
    // A read first: most blobs are referenced, and a claim is a write transaction.
    if (await store.isBlobReferenced(blob.key)) {
      report.kept.referenced += 1;
      continue;
    }
    let outcome: BlobRemoval;
    try {
      outcome = await claimAndRemove(store, blobs, blob.key, now, options.dryRun !== true);
    } catch (error) {
      report.problems.push(
        createDiagnostic(
          'warning',
          'W_BLOB_SWEEP_FAILED',
          `The orphan blob ${blob.key} could not be removed: ${(error as Error).message}`,
          { path: blob.key },
          'Check the blob store (permissions, connectivity); the next sweep tries again.',
        ),
      );
      continue;
    }
    if (outcome === 'removed') {
      report.removed.push(blob.key);
      report.removedBytes += blob.size;
    } else {
      report.kept[outcome] += 1;
    }
  }
  try {
    report.interruptedWrites =
      (await blobs.removeInterruptedWrites?.({
        olderThan: new Date(cutoff),
        dryRun: options.dryRun === true,
      })) ?? [];
    for (const write of report.interruptedWrites) report.removedBytes += write.size;
  } catch (error) {
    report.problems.push(
      createDiagnostic(
        'warning',
        'W_BLOB_SWEEP_FAILED',
        `The files interrupted writes left could not be removed: ${(error as Error).message}`,
        { path: 'sha512/' },
        'Check the blob store (permissions, connectivity); the next sweep tries again.',
      ),
    );
  }
  return report;
}

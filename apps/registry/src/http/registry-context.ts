import type { PackLimits } from '@toolpack/packs';
import type { RateLimiter } from '../auth/rate-limit.ts';
import type { PackDoc, VersionDoc } from '../documents.ts';
import type { PublishContext } from '../publish/publish-pack.ts';
import type { BlobStore } from '../storage/blob-store.ts';
import type { MetadataStore, StoredPack, StoredVersion } from '../storage/metadata-store.ts';
import { findLatestVersion } from '../storage/pack-versions.ts';

/** What every route needs; built once by `createRegistryHandler`. */
export interface RegistryContext {
  store: MetadataStore;
  blobs: BlobStore;
  publish: PublishContext;
  limits: PackLimits;
  /** The registry's public base URL, without a trailing slash (tarball URLs start with it). */
  publicUrl(): string;
  searchLimiter: RateLimiter | undefined;
  publishLimiter: RateLimiter | undefined;
  trustProxy: boolean;
  log(message: string): void;
  /**
   * True while the registry publishes its seed packs on start: searches and lookups would
   * answer from a partial gallery, so they say so instead.
   */
  isSeeding(): boolean;
  /** Aborted when a closing registry stops waiting for requests in flight. */
  signal?: AbortSignal;
  /** How `/v0.1` names packs as servers and which CLI its server.json documents run. */
  officialApi: { namespace: string; cliVersion: string };
}

export function getTarballUrl(context: RegistryContext, blobKey: string): string {
  return `${context.publicUrl()}/v0/blobs/${blobKey}.tgz`;
}

/** The VersionDoc as served: stored documents leave `dist.tarball` to be filled per registry URL. */
export function toVersionDoc(context: RegistryContext, stored: StoredVersion): VersionDoc {
  return {
    ...stored.doc,
    dist: { ...stored.doc.dist, tarball: getTarballUrl(context, stored.blobKey) },
  };
}

/** Name, description and tags come from the latest version (else the newest one). */
export function toPackDoc(context: RegistryContext, pack: StoredPack): PackDoc {
  const docs = pack.versions.map((version) => toVersionDoc(context, version));
  const latest = findLatestVersion(docs);
  const head = docs.find((doc) => doc.version === latest) ?? docs.at(-1);
  const versions: Record<string, VersionDoc> = {};
  for (const doc of docs) versions[doc.version] = doc;
  return {
    name: pack.name,
    description: head?.description ?? '',
    tags: [...(head?.tags ?? [])],
    ...(latest === undefined ? {} : { latest }),
    versions,
  };
}

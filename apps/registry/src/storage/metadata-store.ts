import type { PackSummary, VersionDoc } from '../documents.ts';

/**
 * Where the registry keeps pack metadata, search and tokens. The HTTP and publish code
 * only ever talk to this interface, so a PostgreSQL store (tsvector search, a real
 * connection pool) can replace the embedded SQLite one without touching them. Every method
 * is async for that reason, although SQLite answers synchronously.
 */
export interface MetadataStore {
  /**
   * Records a new version, claiming the name for `owner` when nobody has published it yet.
   * Atomic: of two concurrent publishes of one name@version exactly one is `created`.
   */
  addVersion(record: NewVersionRecord): Promise<AddVersionResult>;
  /** The owner recorded when the name was first published. */
  getPackOwner(name: string): Promise<string | undefined>;
  /** Every version, yanked ones included, in ascending semver order. */
  getPack(name: string): Promise<StoredPack | undefined>;
  getVersion(name: string, version: string): Promise<StoredVersion | undefined>;
  /** Deprecation and yank are the only things that change after publishing. */
  updateVersion(
    name: string,
    version: string,
    change: VersionChange,
  ): Promise<StoredVersion | undefined>;
  search(query: StoreSearchQuery): Promise<StoreSearchPage>;
  /**
   * Counts one download of the version whose tarball is `blobKey` (its `.tgz`, or the
   * `.nupkg` made from it). A key no version holds counts nothing.
   */
  recordDownload(blobKey: string): Promise<void>;
  /** Downloads so far of each named pack (a pack never downloaded, or unknown, is absent). */
  countDownloads(names: readonly string[]): Promise<Map<string, DownloadCounts>>;
  /**
   * Versions one page at a time, for the official MCP Registry API (`GET /v0.1/servers`):
   * ordered by pack name, then version, both compared as bytes (a stable order for cursors,
   * not semver order), yanked versions and unlisted packs included.
   */
  listVersions(query: VersionListQuery): Promise<VersionListPage>;
  /** The most used tags of listed packs, most used first, spelled as most packs spell them. */
  listTags(limit: number): Promise<TagCount[]>;
  countPacks(): Promise<{ packs: number; versions: number }>;

  /**
   * Blob bookkeeping, so a tarball is never deleted while a version or a publish in progress
   * needs it, whichever instance runs what. A publish claims its blob (`publish`) before
   * writing it and releases the claim once its version is committed (the version then holds
   * the blob) or abandoned. A `delete` claim is granted only when no version references the
   * blob and no unexpired claim of another id holds it; while one is held, `publish` claims
   * of that blob are refused (`held`) and the publisher waits. Each claim is decided in one
   * transaction, so a deletion and a publish of the same bytes never interleave.
   */
  claimBlob(claim: BlobClaim): Promise<BlobClaimResult>;
  /** Releasing a claim that is not there (expired and pruned) is not an error. */
  releaseBlobClaim(key: string, id: string): Promise<void>;
  /** Whether a version (yanked ones included) points at the blob. */
  isBlobReferenced(key: string): Promise<boolean>;
  /** Forgets claims that expired by `at` (left by a publish that crashed); returns how many. */
  pruneBlobClaims(at: Date): Promise<number>;

  addToken(record: TokenRecord): Promise<void>;
  getToken(id: string): Promise<TokenRecord | undefined>;
  listTokens(owner?: string): Promise<TokenRecord[]>;
  /** False when there is no such token or it was already revoked. */
  revokeToken(id: string, at: string): Promise<boolean>;

  /**
   * Runs `work` while holding the lock `name` against every registry instance that shares
   * this store (PostgreSQL: an advisory lock; SQLite, which one process owns: in-process), so
   * that work such as seeding the official packs never runs twice at once. The lock is
   * released when `work` settles, or when the instance holding it dies.
   */
  withLock<T>(name: string, work: () => Promise<T>): Promise<T>;

  close(): Promise<void>;
}

export interface NewVersionRecord {
  owner: string;
  /** The document as served, except `dist.tarball`, which the API fills in per request. */
  doc: VersionDoc;
  /** Where the tarball is in the blob store. */
  blobKey: string;
  publishedAt: string;
  /** The token id, or `seed` for packs seeded from the official pack folder. */
  publishedBy: string;
}

export type AddVersionResult =
  | { status: 'created'; version: StoredVersion }
  | { status: 'exists' }
  | { status: 'owned-by-other'; owner: string };

export interface BlobClaim {
  /** The blob key (`sha512/<hex>`). */
  key: string;
  /** Unique per claimer (a random id per publish or deletion). */
  id: string;
  purpose: 'publish' | 'delete';
  /** Now, as the claimer sees it: claims that expired by then do not count. */
  at: Date;
  /** After this the claim no longer protects anything (its holder is presumed dead). */
  expiresAt: Date;
}

/** `referenced` only answers a `delete` claim: a version points at the blob. */
export type BlobClaimResult = 'granted' | 'held' | 'referenced';

export interface StoredVersion {
  doc: VersionDoc;
  blobKey: string;
  publishedAt: string;
  publishedBy: string;
  /** When it was published or last deprecated, undeprecated or yanked (ISO 8601, UTC). */
  updatedAt: string;
}

export interface StoredPack {
  name: string;
  owner: string;
  createdAt: string;
  versions: StoredVersion[];
}

export interface VersionChange {
  /** A message deprecates; `null` lifts the deprecation. */
  deprecated?: string | null;
  yanked?: boolean;
}

export interface DownloadCounts {
  total: number;
  /** By version; a version never downloaded is absent. */
  versions: Record<string, number>;
}

/**
 * The order of search results: `relevance` (the default: an exact name first, then by rank;
 * by name without words), `downloads` (most first), `updated` (the latest publish first) or
 * `name`. Ties go by name.
 */
export const SEARCH_SORTS = ['relevance', 'downloads', 'updated', 'name'] as const;
export type SearchSort = (typeof SEARCH_SORTS)[number];

export interface StoreSearchQuery {
  /** Words as the user typed them; the store decides how to match them safely. */
  words: readonly string[];
  /** Lowercased; a pack must carry every one. */
  tags: readonly string[];
  /** The whole query, trimmed and lowercased: a pack with exactly this name ranks first. */
  exactName?: string;
  sort?: SearchSort;
  offset: number;
  limit: number;
  /**
   * Count the matches of all pages, up to this many (a page that shows a result count asks
   * for it). Counting is bounded and opt-in: an exact count of a query that matches most of a
   * 100,000-pack catalogue cost every search several times its own time.
   */
  countUpTo?: number;
}

export interface StoreSearchPage {
  packs: PackSummary[];
  hasMore: boolean;
  /**
   * With `countUpTo`: how many packs match in all pages, counted up to it (equal to it: at
   * least that many). Absent otherwise.
   */
  total?: number;
}

export interface VersionListQuery {
  /** Resume after this version of this pack (exclusive): the last one of the previous page. */
  after?: { name: string; version: string };
  limit: number;
  /** Only versions whose `updatedAt` is at or after this instant (ISO 8601, UTC). */
  updatedSince?: string;
  /** Only each pack's listed version (the one search shows; a pack with every version yanked has none). */
  latestOnly?: boolean;
  /** Only packs whose name contains this, ignoring ASCII case. */
  nameContains?: string;
}

export interface VersionListPage {
  versions: ListedVersion[];
  hasMore: boolean;
}

export interface ListedVersion extends StoredVersion {
  /** Whether this is the pack's listed version. */
  isLatest: boolean;
}

export interface TagCount {
  tag: string;
  count: number;
}

export interface TokenRecord {
  id: string;
  owner: string;
  /** Random per token, hex. */
  salt: string;
  /** HMAC-SHA256 of the token's secret keyed with `salt`, hex. The token itself is never stored. */
  hash: string;
  label?: string;
  createdAt: string;
  revokedAt?: string;
}

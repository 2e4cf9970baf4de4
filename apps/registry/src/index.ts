export {
  DEFAULT_REGISTRY_HOST,
  DEFAULT_REGISTRY_PORT,
  DEFAULT_SEED_DIR,
  startRegistry,
} from './start-registry.ts';
export type {
  CloseRegistryOptions,
  RunningRegistry,
  StartRegistryOptions,
} from './start-registry.ts';

export { runRegistryCli } from './registry-cli.ts';
export type { RegistryCliIo } from './registry-cli.ts';
export { DATABASE_URL_VARIABLE, openRegistryStorage } from './open-registry-storage.ts';
export type {
  OpenRegistryStorageOptions,
  RegistryDatabaseOptions,
  RegistryStorage,
} from './open-registry-storage.ts';

export { DEFAULT_RATE_LIMITS, createRegistryHandler } from './http/create-registry-handler.ts';
export type {
  RateLimitOptions,
  RegistryHandlerOptions,
  RegistryRequestHandler,
} from './http/create-registry-handler.ts';

export {
  CLOSING_RETRY_AFTER_SECONDS,
  DEFAULT_DRAIN_TIMEOUT_MS,
  createRequestDrain,
} from './http/request-drain.ts';
export type { DrainOptions, DrainReport, RequestDrain } from './http/request-drain.ts';

export { createToken, generateToken, isValidOwner, verifyToken } from './auth/tokens.ts';
export type { CreateTokenOptions, CreatedToken, VerifiedToken } from './auth/tokens.ts';
export { createRateLimiter } from './auth/rate-limit.ts';
export type { RateDecision, RateLimiter, TokenBucketOptions } from './auth/rate-limit.ts';

export { checkOwnership, publishPack } from './publish/publish-pack.ts';
export type {
  OwnershipInput,
  PublishContext,
  PublishOutcome,
  PublishRequest,
} from './publish/publish-pack.ts';
export { listPackTools } from './publish/list-pack-tools.ts';
export type {
  ListPackToolsInput,
  PackToolLister,
  PackToolListing,
} from './publish/list-pack-tools.ts';
export { OFFICIAL_OWNER, SEED_LOCK, seedPacks } from './publish/seed-packs.ts';
export type { SeedReport } from './publish/seed-packs.ts';

export type { BlobHandle, BlobListing, BlobStore, InterruptedWrite } from './storage/blob-store.ts';
export {
  BLOB_DELETE_CLAIM_MS,
  BLOB_PUBLISH_CLAIM_MS,
  DEFAULT_BLOB_SWEEP_GRACE_MS,
  claimBlobForPublish,
  removeBlobIfUnreferenced,
  sweepOrphanBlobs,
} from './storage/blob-hygiene.ts';
export type {
  BlobClaimOptions,
  BlobRemoval,
  BlobSweepReport,
  SweepOrphanBlobsOptions,
} from './storage/blob-hygiene.ts';
export { computeBlobKey, createFsBlobStore, isBlobKey } from './storage/fs-blob-store.ts';
export type { FsBlobStoreOptions } from './storage/fs-blob-store.ts';
export type {
  AddVersionResult,
  BlobClaim,
  BlobClaimResult,
  MetadataStore,
  NewVersionRecord,
  StoreSearchPage,
  StoreSearchQuery,
  StoredPack,
  StoredVersion,
  TagCount,
  TokenRecord,
  VersionChange,
} from './storage/metadata-store.ts';
export { createSqliteMetadataStore } from './storage/sqlite-metadata-store.ts';
export type { SqliteMetadataStoreOptions } from './storage/sqlite-metadata-store.ts';
export { createPostgresMetadataStore } from './storage/postgres-metadata-store.ts';
export { describePostgresUrl, openPostgresPool } from './storage/postgres-database.ts';
export type { OpenPostgresOptions } from './storage/postgres-database.ts';
export type { PostgresMetadataStoreOptions } from './storage/postgres-metadata-store.ts';
export { BLOB_CHUNK_BYTES, createPostgresBlobStore } from './storage/postgres-blob-store.ts';
export type { PostgresBlobStoreOptions } from './storage/postgres-blob-store.ts';
export { buildFtsQuery, splitSearchTerms } from './storage/fts-query.ts';

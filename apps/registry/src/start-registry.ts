import { existsSync } from 'node:fs';
import { lstat, readdir, rm } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ToolpackError } from '@toolpack/core';
import { DEFAULT_PACK_LIMITS, type PackLimits } from '@toolpack/packs';
import { createToken, type CreateTokenOptions, type CreatedToken } from './auth/tokens.ts';
import {
  createRegistryHandler,
  resolveOfficialApiOptions,
  type RateLimitOptions,
} from './http/create-registry-handler.ts';
import { createRequestDrain, DEFAULT_DRAIN_TIMEOUT_MS } from './http/request-drain.ts';
import { openRegistryStorage, type RegistryDatabaseOptions } from './open-registry-storage.ts';
import { listPackTools, type PackToolLister } from './publish/list-pack-tools.ts';
import { seedPacks, type SeedReport } from './publish/seed-packs.ts';
import {
  DEFAULT_BLOB_SWEEP_GRACE_MS,
  sweepOrphanBlobs,
  type BlobSweepReport,
} from './storage/blob-hygiene.ts';
import type { BlobStore } from './storage/blob-store.ts';
import { createFsBlobStore } from './storage/fs-blob-store.ts';
import type { MetadataStore } from './storage/metadata-store.ts';
import { createSqliteMetadataStore } from './storage/sqlite-metadata-store.ts';

export const DEFAULT_REGISTRY_PORT = 4873;
export const DEFAULT_REGISTRY_HOST = '127.0.0.1';

/** This repository's official packs (`registry/packs`), the default seed. */
export const DEFAULT_SEED_DIR = fileURLToPath(new URL('../../../registry/packs', import.meta.url));

export interface StartRegistryOptions {
  /** Default 4873; 0 picks a free port. */
  port?: number;
  /** Default 127.0.0.1. */
  host?: string;
  /**
   * Holds registry.db and blobs/ (only the `tmp` work folder with `database`). Default
   * `.toolpack/registry` under the working directory.
   */
  dataDir?: string;
  /**
   * Metadata, search, tokens and tarballs in this PostgreSQL database, through one pool that
   * `close()` ends: any number of instances started on one database are replicas of one
   * registry. Not together with `store` or `blobs`.
   */
  database?: RegistryDatabaseOptions;
  /** Pack folders published on start (new versions only); `false` for none. Default `registry/packs`. */
  seedDir?: string | false;
  /** The URL clients reach the registry at (tarball URLs start with it). Default from host and port. */
  publicUrl?: string;
  limits?: Partial<PackLimits>;
  rateLimits?: RateLimitOptions | false;
  trustProxy?: boolean;
  /**
   * The reverse-DNS namespace the official MCP Registry API (`/v0.1`) names packs under
   * (`jira` -> `<namespace>/jira`, `acme/jira` -> `<namespace>.acme/jira`). Default `dev.toolpack`.
   */
  serverNamespace?: string;
  /** The `@toolpack/cli` version `/v0.1` server.json documents run. Default this repository's. */
  cliVersion?: string;
  /** Tokens to register on start (made by `generateToken`), e.g. from a deployment's secrets. */
  tokens?: CreateTokenOptions[];
  /** Another MetadataStore (PostgreSQL, ...) instead of `<dataDir>/registry.db`. */
  store?: MetadataStore;
  /** Another BlobStore (S3-compatible, ...) instead of `<dataDir>/blobs`. */
  blobs?: BlobStore;
  listTools?: PackToolLister;
  /** Where the registry reports what it did (publishes, failures); silent by default. */
  log?: (message: string) => void;
  /**
   * On start, remove tarballs no version references that are older than `graceMs` (default
   * 10 minutes): what a publish leaves when the process dies between writing its tarball and
   * committing its version. `false` skips it (e.g. a large bucket swept by a scheduled
   * `toolpack-registry sweep` instead).
   */
  sweep?: { graceMs?: number } | false;
  /**
   * How long `close()` lets requests in flight finish (default 10 s); publishes still running
   * then are aborted and remove the tarball they wrote.
   */
  drainTimeoutMs?: number;
  /**
   * Called with the public URL as soon as the registry listens, before seeding ends (until
   * then `/health` answers 503 and searches answer 503 with `Retry-After`).
   */
  onListening?: (url: string) => void;
}

export interface CloseRegistryOptions {
  /** Overrides `drainTimeoutMs` for this close. */
  timeoutMs?: number;
}

export interface RunningRegistry {
  /** The public base URL, without a trailing slash. */
  url: string;
  port: number;
  host: string;
  dataDir: string;
  /** What seeding published, skipped and refused. */
  seed: SeedReport;
  /** What the start-up sweep removed and kept; undefined with `sweep: false`. */
  sweep: BlobSweepReport | undefined;
  store: MetadataStore;
  blobs: BlobStore;
  /** Creates a publish token for an owner; the token is only ever returned here. */
  createToken(options: CreateTokenOptions): Promise<CreatedToken>;
  /**
   * Stops gracefully: new connections are refused and requests on open ones get 503 with
   * `Retry-After`; requests in flight finish (publishes land whole) for up to the drain
   * timeout, after which publishes still running are aborted and leave nothing behind; then
   * the connections and the database close. Calling it again waits for the same close.
   */
  close(options?: CloseRegistryOptions): Promise<void>;
}

/**
 * Starts the registry (HTTP API and web gallery) on embedded defaults: SQLite metadata and
 * search in `<dataDir>/registry.db`, tarballs by content hash in `<dataDir>/blobs`, and the
 * official packs seeded from `registry/packs` through the same publish path as an upload.
 * With `database`, both stores live in PostgreSQL and the instance is one stateless replica:
 * start as many as needed on one database (each seeds under the store's `seed` lock, so the
 * official packs are published once).
 */
export async function startRegistry(options: StartRegistryOptions = {}): Promise<RunningRegistry> {
  const host = options.host ?? DEFAULT_REGISTRY_HOST;
  const officialApi = resolveOfficialApiOptions(options);
  const dataDir = path.resolve(options.dataDir ?? path.join('.toolpack', 'registry'));
  const workDir = path.join(dataDir, 'tmp');
  await removeWorkLeftovers(workDir);
  const { store, blobs, closeStorage } = await openStorage(options, dataDir);
  const limits: PackLimits = { ...DEFAULT_PACK_LIMITS, ...options.limits };
  const listTools = options.listTools ?? listPackTools;
  const log = options.log ?? (() => {});
  let publicUrl = options.publicUrl ?? '';

  let sweep: BlobSweepReport | undefined;
  try {
    for (const token of options.tokens ?? []) await createToken(store, token);
    if (options.sweep !== false) {
      sweep = await sweepOrphanBlobs({
        store,
        blobs,
        graceMs: options.sweep?.graceMs ?? DEFAULT_BLOB_SWEEP_GRACE_MS,
      });
      if (sweep.removed.length + sweep.interruptedWrites.length > 0)
        log(
          `removed ${sweep.removed.length} orphan tarballs and ${sweep.interruptedWrites.length} files left by interrupted writes (${sweep.removedBytes} bytes)`,
        );
      for (const problem of sweep.problems) log(`${problem.path}: ${problem.message}`);
    }
  } catch (error) {
    await closeStorage();
    throw error;
  }

  const seedDir =
    options.seedDir === undefined
      ? existsSync(DEFAULT_SEED_DIR)
        ? DEFAULT_SEED_DIR
        : false
      : options.seedDir;
  // Requests are answered while seed packs are published; this tells them they are early.
  let seeding = seedDir !== false;
  const drain = createRequestDrain();
  const handler = createRegistryHandler({
    store,
    blobs,
    workDir,
    publicUrl: () => publicUrl,
    limits,
    listTools,
    trustProxy: options.trustProxy === true,
    log,
    drain,
    isSeeding: () => seeding,
    ...(options.rateLimits === undefined ? {} : { rateLimits: options.rateLimits }),
    serverNamespace: officialApi.namespace,
    cliVersion: officialApi.cliVersion,
  });
  const server = createServer(handler);
  server.requestTimeout = 120_000;
  server.headersTimeout = 30_000;
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(options.port ?? DEFAULT_REGISTRY_PORT, host, () => {
        server.off('error', reject);
        resolve();
      });
    });
  } catch (error) {
    await closeStorage();
    const code = (error as NodeJS.ErrnoException).code;
    throw new ToolpackError(
      'E_REGISTRY_LISTEN',
      `The registry cannot listen on ${host}:${options.port ?? DEFAULT_REGISTRY_PORT}: ${code ?? (error as Error).message}.`,
      {
        hint:
          code === 'EADDRINUSE'
            ? 'Another program uses that port: pick another with --port.'
            : 'Check --host and --port.',
        cause: error,
      },
    );
  }
  const port = (server.address() as AddressInfo).port;
  if (publicUrl === '') publicUrl = defaultPublicUrl(host, port);
  publicUrl = publicUrl.replace(/\/+$/, '');
  options.onListening?.(publicUrl);

  let closing: Promise<void> | undefined;
  const close = (closeOptions: CloseRegistryOptions = {}): Promise<void> => {
    closing ??= (async () => {
      // Draining first: from here on the handler answers 503 to requests on open connections.
      const drained = drain.drain({
        timeoutMs: closeOptions.timeoutMs ?? options.drainTimeoutMs ?? DEFAULT_DRAIN_TIMEOUT_MS,
      });
      // Stops listening (new connections are refused) and closes idle keep-alive connections.
      const serverClosed = new Promise<void>((resolve) => server.close(() => resolve()));
      const report = await drained;
      if (report.aborted > 0) {
        log(
          `closing: ${report.aborted} of ${report.inFlight} requests were still running at the drain timeout and were aborted${report.abandoned > 0 ? ` (${report.abandoned} did not stop; their connections are cut)` : ''}`,
        );
      }
      server.closeAllConnections();
      await serverClosed;
      await closeStorage();
    })();
    return closing;
  };

  let seed: SeedReport = { published: [], unchanged: [], problems: [] };
  if (seedDir !== false) {
    try {
      seed = await seedPacks({ store, blobs, limits, listTools, workDir }, seedDir);
    } catch (error) {
      await close();
      throw error;
    } finally {
      seeding = false;
    }
    if (seed.published.length > 0) log(`seeded ${seed.published.join(', ')}`);
    for (const problem of seed.problems)
      log(`${problem.path}: ${problem.severity} ${problem.code}: ${problem.message}`);
  }

  return {
    url: publicUrl,
    port,
    host,
    dataDir,
    seed,
    sweep,
    store,
    blobs,
    createToken: (tokenOptions) => createToken(store, tokenOptions),
    close,
  };
}

async function openStorage(
  options: StartRegistryOptions,
  dataDir: string,
): Promise<{ store: MetadataStore; blobs: BlobStore; closeStorage: () => Promise<void> }> {
  if (options.database === undefined) {
    const store =
      options.store ?? createSqliteMetadataStore({ file: path.join(dataDir, 'registry.db') });
    const blobs = options.blobs ?? createFsBlobStore({ dir: path.join(dataDir, 'blobs') });
    return { store, blobs, closeStorage: () => store.close() };
  }
  if (options.store !== undefined || options.blobs !== undefined) {
    throw new ToolpackError(
      'E_REGISTRY_DATABASE',
      'startRegistry was given a database and also a store or blobs; the database holds both.',
      { hint: 'Pass either database, or store and blobs.' },
    );
  }
  const storage = await openRegistryStorage({ dataDir, database: options.database });
  return { store: storage.store, blobs: storage.blobs, closeStorage: storage.close };
}

/**
 * A publish unpacks into its own `publish-*` folder under the work folder and removes it
 * within its request (tool listing has a 15 s limit, a request 120 s), so anything there an
 * hour old was left by a process that died. Younger entries stay: another replica given the
 * same data folder may be unpacking into one right now.
 */
const WORK_LEFTOVER_MS = 60 * 60_000;

async function removeWorkLeftovers(workDir: string): Promise<void> {
  const cutoff = Date.now() - WORK_LEFTOVER_MS;
  for (const name of await readdir(workDir).catch(() => [])) {
    const entry = path.join(workDir, name);
    const stats = await lstat(entry).catch(() => undefined);
    if (stats !== undefined && stats.mtimeMs < cutoff)
      await rm(entry, { recursive: true, force: true });
  }
}

function defaultPublicUrl(host: string, port: number): string {
  const reachable = host === '0.0.0.0' || host === '::' || host === '' ? 'localhost' : host;
  return `http://${reachable.includes(':') ? `[${reachable}]` : reachable}:${port}`;
}

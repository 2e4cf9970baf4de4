import path from 'node:path';
import { parseArgs } from 'node:util';
import { describeErrorCode, isToolpackError, parseDuration } from '@toolpack/core';
import { formatBytes, isValidServerNamespace } from '@toolpack/packs';
import { createToken } from './auth/tokens.ts';
import {
  DATABASE_URL_VARIABLE,
  openRegistryStorage,
  type OpenRegistryStorageOptions,
  type RegistryStorage,
} from './open-registry-storage.ts';
import { DEFAULT_BLOB_SWEEP_GRACE_MS, sweepOrphanBlobs } from './storage/blob-hygiene.ts';
import { describePostgresUrl } from './storage/postgres-database.ts';
import { DEFAULT_REGISTRY_HOST, DEFAULT_REGISTRY_PORT, startRegistry } from './start-registry.ts';

export interface RegistryCliIo {
  stdout: { write(text: string): unknown };
  stderr: { write(text: string): unknown };
  cwd: string;
  /** Where `TOOLPACK_REGISTRY_DATABASE` is read (`process.env` in the real binary); none when absent. */
  env?: Readonly<Record<string, string | undefined>>;
  /** Resolves when `serve` should stop (SIGINT/SIGTERM in the real binary). */
  waitForStop?: () => Promise<void>;
}

const USAGE = `Usage:
  toolpack-registry serve [--port 4873] [--host 127.0.0.1] [--data DIR]
                          [--database URL [--max-connections 10]]
                          [--seed DIR | --no-seed] [--public-url URL] [--trust-proxy]
                          [--no-rate-limit] [--server-namespace NS]
  toolpack-registry token create --owner NAME [--label TEXT] [--data DIR] [--database URL]
  toolpack-registry token list [--owner NAME] [--data DIR] [--database URL]
  toolpack-registry token revoke ID [--data DIR] [--database URL]
  toolpack-registry sweep [--grace 10m] [--dry-run] [--data DIR] [--database URL]

DIR defaults to .toolpack/registry. With --database postgres://user:password@host/db (or the
URL in ${DATABASE_URL_VARIABLE}, which keeps the password off the command line) metadata and
tarballs are in that PostgreSQL database, shared by every replica started on it, and DIR
holds only the work folder; each process opens at most --max-connections to it (default 10).
--server-namespace (default dev.toolpack) is the reverse-DNS prefix the official MCP Registry
API at /v0.1 names packs under (jira -> NS/jira). A token is printed once and stored only as
a salted hash.
sweep removes tarballs no version references, and files left by writes a crash interrupted,
that are older than --grace (a number with ms, s, m or h; seconds without), as serve does on
start; safe while a registry runs.
Exit codes: 0 ok, 1 failure, 2 bad usage.
`;

/** The `toolpack-registry` command (`node src/cli.ts ...`); returns the exit code. */
export async function runRegistryCli(argv: readonly string[], io: RegistryCliIo): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
      args: [...argv],
      allowPositionals: true,
      options: {
        port: { type: 'string' },
        host: { type: 'string' },
        data: { type: 'string' },
        database: { type: 'string' },
        'max-connections': { type: 'string' },
        seed: { type: 'string' },
        'no-seed': { type: 'boolean' },
        'public-url': { type: 'string' },
        'trust-proxy': { type: 'boolean' },
        'no-rate-limit': { type: 'boolean' },
        'server-namespace': { type: 'string' },
        owner: { type: 'string' },
        label: { type: 'string' },
        grace: { type: 'string' },
        'dry-run': { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
    });
  } catch (error) {
    io.stderr.write(`${(error as Error).message}\n\n${USAGE}`);
    return 2;
  }
  const { values, positionals } = parsed;
  if (values.help === true || positionals.length === 0) {
    (values.help === true ? io.stdout : io.stderr).write(USAGE);
    return values.help === true ? 0 : 2;
  }
  const dataDir = path.resolve(io.cwd, values.data ?? path.join('.toolpack', 'registry'));
  // An empty variable counts as unset, as a shell's `VAR= cmd` means.
  const databaseUrl = values.database ?? (io.env?.[DATABASE_URL_VARIABLE] || undefined);
  if (databaseUrl !== undefined && !/^postgres(ql)?:\/\//.test(databaseUrl)) {
    io.stderr.write(
      `--database (or ${DATABASE_URL_VARIABLE}) must be a postgres:// URL, such as postgres://user:password@host:5432/database.\n`,
    );
    return 2;
  }
  const maxConnections =
    values['max-connections'] === undefined ? undefined : Number(values['max-connections']);
  if (maxConnections !== undefined && databaseUrl === undefined) {
    io.stderr.write(`--max-connections needs --database (or ${DATABASE_URL_VARIABLE}).\n`);
    return 2;
  }
  if (maxConnections !== undefined && (!Number.isInteger(maxConnections) || maxConnections < 1)) {
    io.stderr.write(
      `--max-connections must be a whole number of 1 or more, not ${String(values['max-connections'])}.\n`,
    );
    return 2;
  }
  const storageOptions: OpenRegistryStorageOptions = {
    dataDir,
    ...(databaseUrl === undefined
      ? {}
      : {
          database: {
            url: databaseUrl,
            ...(maxConnections === undefined ? {} : { maxConnections }),
          },
        }),
  };
  const [command, sub, ...rest] = positionals;
  try {
    if (command === 'serve' && sub === undefined) return await serve(values, storageOptions, io);
    if (command === 'sweep' && sub === undefined) return await sweep(values, storageOptions, io);
    if (command === 'token' && sub === 'create' && rest.length === 0) {
      if (values.owner === undefined) {
        io.stderr.write(`token create needs --owner NAME.\n\n${USAGE}`);
        return 2;
      }
      const { store, close } = await openRegistryStorage(storageOptions);
      try {
        const created = await createToken(store, {
          owner: values.owner,
          ...(values.label === undefined ? {} : { label: values.label }),
        });
        io.stderr.write(
          `Token ${created.id} for owner ${created.owner}. It is shown this once; store it as a secret:\n`,
        );
        io.stdout.write(`${created.token}\n`);
      } finally {
        await close();
      }
      return 0;
    }
    if (command === 'token' && sub === 'list' && rest.length === 0) {
      const { store, close } = await openRegistryStorage(storageOptions);
      try {
        for (const token of await store.listTokens(values.owner)) {
          io.stdout.write(
            `${token.id}\t${token.owner}\t${token.createdAt}\t${token.revokedAt === undefined ? 'active' : `revoked ${token.revokedAt}`}\t${token.label ?? ''}\n`,
          );
        }
      } finally {
        await close();
      }
      return 0;
    }
    if (command === 'token' && sub === 'revoke' && rest.length === 1 && rest[0] !== undefined) {
      const { store, close } = await openRegistryStorage(storageOptions);
      try {
        if (!(await store.revokeToken(rest[0], new Date().toISOString()))) {
          io.stderr.write(`No active token with id ${rest[0]}.\n`);
          return 1;
        }
        io.stderr.write(`Revoked token ${rest[0]}.\n`);
      } finally {
        await close();
      }
      return 0;
    }
  } catch (error) {
    if (!isToolpackError(error)) throw error;
    io.stderr.write(
      `error ${error.code}: ${error.message}${error.hint === undefined ? '' : `\n${error.hint}`}\n`,
    );
    return describeErrorCode(error.code)?.exit === 'usage' ? 2 : 1;
  }
  io.stderr.write(`Unknown command: ${positionals.join(' ')}\n\n${USAGE}`);
  return 2;
}

async function serve(
  values: Record<string, string | boolean | undefined>,
  storage: OpenRegistryStorageOptions,
  io: RegistryCliIo,
): Promise<number> {
  const port = values.port === undefined ? DEFAULT_REGISTRY_PORT : Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65_535) {
    io.stderr.write(`--port must be a port number (0-65535), not ${String(values.port)}.\n`);
    return 2;
  }
  const seedDir =
    values['no-seed'] === true
      ? false
      : typeof values.seed === 'string'
        ? path.resolve(io.cwd, values.seed)
        : undefined;
  const serverNamespace = values['server-namespace'];
  if (typeof serverNamespace === 'string' && !isValidServerNamespace(serverNamespace)) {
    io.stderr.write(
      `--server-namespace must be a lowercase reverse-DNS name such as com.example.packs, not ${serverNamespace}.\n`,
    );
    return 2;
  }
  const registry = await startRegistry({
    port,
    host: typeof values.host === 'string' ? values.host : DEFAULT_REGISTRY_HOST,
    dataDir: storage.dataDir,
    ...(storage.database === undefined ? {} : { database: storage.database }),
    ...(seedDir === undefined ? {} : { seedDir }),
    ...(typeof values['public-url'] === 'string' ? { publicUrl: values['public-url'] } : {}),
    ...(values['trust-proxy'] === true ? { trustProxy: true } : {}),
    ...(values['no-rate-limit'] === true ? { rateLimits: false as const } : {}),
    ...(typeof serverNamespace === 'string' ? { serverNamespace } : {}),
    log: (message) => io.stderr.write(`${message}\n`),
  });
  const { packs, versions } = await registry.store.countPacks();
  const where =
    storage.database === undefined
      ? `data in ${registry.dataDir}`
      : `data in ${describePostgresUrl(storage.database.url)}, work folder in ${registry.dataDir}`;
  io.stderr.write(
    `Toolpack registry listening on ${registry.url} (${packs} packs, ${versions} versions; ${where})\n`,
  );
  await (io.waitForStop ?? waitForSignal)();
  await registry.close();
  return 0;
}

async function sweep(
  values: Record<string, string | boolean | undefined>,
  storageOptions: OpenRegistryStorageOptions,
  io: RegistryCliIo,
): Promise<number> {
  const graceMs =
    typeof values.grace === 'string' ? readGraceMs(values.grace) : DEFAULT_BLOB_SWEEP_GRACE_MS;
  if (graceMs === undefined) {
    io.stderr.write(
      `--grace must be a duration such as 600, 90s, 10m or 1h, not ${String(values.grace)}.\n`,
    );
    return 2;
  }
  const dryRun = values['dry-run'] === true;
  const storage: RegistryStorage = await openRegistryStorage(storageOptions);
  try {
    const report = await sweepOrphanBlobs({
      store: storage.store,
      blobs: storage.blobs,
      graceMs,
      dryRun,
    });
    for (const key of report.removed) io.stdout.write(`${key}\n`);
    for (const write of report.interruptedWrites) io.stdout.write(`${write.path}\n`);
    const { referenced, recent, held } = report.kept;
    const interrupted =
      report.interruptedWrites.length === 0
        ? ''
        : ` and ${report.interruptedWrites.length} files left by interrupted writes`;
    io.stderr.write(
      `${dryRun ? 'Would remove' : 'Removed'} ${report.removed.length} orphan tarballs${interrupted} (${formatBytes(report.removedBytes)}); kept ${referenced + recent + held} (${referenced} referenced, ${recent} newer than the grace period, ${held} held by a publish).\n`,
    );
    for (const problem of report.problems)
      io.stderr.write(`${problem.path}: ${problem.severity} ${problem.code}: ${problem.message}\n`);
    return report.problems.length > 0 ? 1 : 0;
  } finally {
    await storage.close();
  }
}

/** `600` (seconds), `90s`, `90000ms`, `10m`, `1h` -> whole milliseconds; 0 sweeps at once. */
function readGraceMs(text: string): number | undefined {
  const ms = parseDuration(text, { defaultUnitMs: 1000 });
  return ms === undefined ? undefined : Math.round(ms);
}

function waitForSignal(): Promise<void> {
  return new Promise((resolve) => {
    const stop = () => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      resolve();
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
}

import { ToolpackError } from '@toolpack/core';
import pg from 'pg';

export interface OpenPostgresOptions {
  /** `postgres://user:password@host:port/database` (a libpq connection URL). */
  url: string;
  /** The most connections this instance opens (default 10); replicas each have their own. */
  maxConnections?: number;
}

/**
 * A connection pool for the PostgreSQL stores, checked with one round trip so that a wrong
 * URL fails on start with the reason, not on the first request.
 */
export async function openPostgresPool(options: OpenPostgresOptions): Promise<pg.Pool> {
  const where = describePostgresUrl(options.url);
  let pool: pg.Pool;
  try {
    pool = new pg.Pool({
      connectionString: options.url,
      max: options.maxConnections ?? 10,
      connectionTimeoutMillis: 10_000,
      idleTimeoutMillis: 30_000,
      application_name: 'toolpack-registry',
    });
  } catch (error) {
    throw new ToolpackError('E_REGISTRY_DATABASE', `${where} is not a PostgreSQL URL.`, {
      hint: 'Give --database as postgres://user:password@host:5432/database.',
      cause: error,
    });
  }
  // An idle connection the server drops (a restart, a failover) must not crash the registry;
  // the pool replaces it on the next query.
  pool.on('error', () => {});
  try {
    await pool.query('SELECT 1');
  } catch (error) {
    await pool.end().catch(() => {});
    throw new ToolpackError(
      'E_REGISTRY_DATABASE',
      `The registry cannot use the database at ${where}: ${(error as Error).message}.`,
      {
        hint: 'Check that PostgreSQL is running and reachable there, and that the user may connect to that database.',
        cause: error,
      },
    );
  }
  return pool;
}

/** The URL without its password, for messages and logs. */
export function describePostgresUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password !== '') parsed.password = '***';
    return parsed.toString();
  } catch {
    return JSON.stringify(url.replace(/:[^:@/]*@/, ':***@'));
  }
}

export interface PostgresMigration {
  /** 1, 2, 3, ...: applied in order, each once. */
  version: number;
  sql: string;
}

/**
 * Brings one component's tables (`metadata`, `blobs`) up to the newest migration, in one
 * transaction under an advisory lock: replicas starting together apply each migration once,
 * and a migration that fails leaves the schema as it was. A database written by a newer
 * registry is refused rather than used by code that does not know its schema.
 */
export async function applyPostgresMigrations(
  pool: pg.Pool,
  component: string,
  migrations: readonly PostgresMigration[],
): Promise<void> {
  const newest = Math.max(0, ...migrations.map((migration) => migration.version));
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    await client.query("SELECT pg_advisory_xact_lock(hashtext('toolpack_schema'))");
    await client.query(
      'CREATE TABLE IF NOT EXISTS toolpack_schema (component text PRIMARY KEY, version integer NOT NULL)',
    );
    const row = (
      await client.query<{ version: number }>(
        'SELECT version FROM toolpack_schema WHERE component = $1',
        [component],
      )
    ).rows[0];
    const current = row?.version ?? 0;
    if (current > newest) {
      throw new ToolpackError(
        'E_REGISTRY_SCHEMA',
        `The database's ${component} tables were written by a newer registry (schema ${current}; this one knows ${newest}).`,
        { hint: 'Upgrade every replica to the same registry version.' },
      );
    }
    for (const migration of [...migrations].sort((a, b) => a.version - b.version)) {
      if (migration.version <= current) continue;
      await client.query(migration.sql);
    }
    await client.query(
      'INSERT INTO toolpack_schema (component, version) VALUES ($1, $2) ON CONFLICT (component) DO UPDATE SET version = EXCLUDED.version',
      [component, Math.max(current, newest)],
    );
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK').catch(() => {});
    if (error instanceof ToolpackError) throw error;
    throw new ToolpackError(
      'E_REGISTRY_DATABASE',
      `Migrating the registry's ${component} tables failed: ${(error as Error).message}.`,
      {
        hint: 'This is a bug in the registry if the database is reachable: report it.',
        cause: error,
      },
    );
  } finally {
    client.release();
  }
}

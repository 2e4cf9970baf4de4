// Only tests and benches import this package (a private workspace devDependency); it is never
// published. It starts a PostgreSQL server of the machine's own (Debian's `postgresql`
// package), never a download, in a temp folder, bound to 127.0.0.1 only.
import { spawn, spawnSync, type SpawnOptions } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chownSync, existsSync, mkdtempSync, readdirSync, realpathSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';

/** Set it to a server's URL to use that server instead of starting one (each test still gets its own database). */
export const POSTGRES_URL_VARIABLE = 'TOOLPACK_TEST_POSTGRES_URL';

/** How a test's title says it needs PostgreSQL (the CI summary groups skips by it). */
export const NEEDS_POSTGRES = '[needs postgresql]';

export interface PostgresInstall {
  /** The folder with initdb, pg_ctl and postgres. */
  binDir: string;
  /** `15.18` */
  version: string;
}

let found: PostgresInstall | null | undefined;

/**
 * The machine's PostgreSQL server binaries: `initdb` on PATH, else the newest
 * `/usr/lib/postgresql/<major>/bin` (Debian keeps them off PATH). Undefined when there is none.
 */
export function findPostgres(): PostgresInstall | undefined {
  if (found !== undefined) return found ?? undefined;
  const candidates: string[] = [];
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
    if (dir !== '' && existsSync(path.join(dir, 'initdb')))
      candidates.push(path.dirname(realpathSync(path.join(dir, 'initdb'))));
  }
  const debian = '/usr/lib/postgresql';
  if (existsSync(debian)) {
    const majors = readdirSync(debian)
      .filter((name) => /^\d+$/.test(name))
      .sort((a, b) => Number(b) - Number(a));
    candidates.push(...majors.map((major) => path.join(debian, major, 'bin')));
  }
  for (const binDir of candidates) {
    if (!existsSync(path.join(binDir, 'pg_ctl'))) continue;
    const result = spawnSync(path.join(binDir, 'postgres'), ['--version'], { encoding: 'utf8' });
    const version = /(\d+\.\d+)/.exec(result.stdout ?? '')?.[1];
    if (result.status === 0 && version !== undefined) {
      found = { binDir, version };
      return found;
    }
  }
  found = null;
  return undefined;
}

/** Whether tests can have a PostgreSQL server: one named by the variable, or one to start. */
export function hasPostgres(): boolean {
  return process.env[POSTGRES_URL_VARIABLE] !== undefined || findPostgres() !== undefined;
}

export interface PostgresCluster {
  /** The server's maintenance database, as `postgres://toolpack@127.0.0.1:<port>/postgres`. */
  readonly url: string;
  readonly port: number;
  /** The server's version (`15.18`). */
  readonly version: string;
  /** Creates an empty database (a random name unless given) and returns its URL. */
  createDatabase(name?: string): Promise<string>;
  /**
   * Stops the server as a crash would (`immediate`: no checkpoint, clients cut off) and
   * starts it again on the same port and data. Only for a cluster this package started.
   */
  restart(): Promise<void>;
  /** Stops the server and removes its folder (or drops the databases made on a given server). */
  stop(): Promise<void>;
}

export interface StartPostgresOptions {
  /** Default 100. */
  maxConnections?: number;
}

/**
 * Starts a throw-away cluster: `initdb` in a new temp folder (trust authentication for the
 * `toolpack` role, which only loopback can reach), then `pg_ctl start` on a free port. As
 * root it runs them as the `postgres` user, since PostgreSQL refuses to run as root. With
 * {@link POSTGRES_URL_VARIABLE} set it starts nothing and hands out databases on that server.
 */
export async function startPostgresCluster(
  options: StartPostgresOptions = {},
): Promise<PostgresCluster> {
  const given = process.env[POSTGRES_URL_VARIABLE];
  if (given !== undefined && given !== '') return useGivenServer(given);
  const install = findPostgres();
  if (install === undefined)
    throw new Error(
      'No PostgreSQL server binaries here (initdb, pg_ctl): install Debian\'s "postgresql" package, or set ' +
        `${POSTGRES_URL_VARIABLE} to a server's URL.`,
    );

  const owner = process.getuid?.() === 0 ? lookUpUser('postgres') : undefined;
  const root = mkdtempSync(path.join(os.tmpdir(), 'toolpack-pg-'));
  if (owner !== undefined) chownSync(root, owner.uid, owner.gid);
  const dataDir = path.join(root, 'data');
  const run = (command: string, args: string[]): Promise<void> =>
    runTool(path.join(install.binDir, command), args, owner);

  try {
    await run('initdb', [
      '-D',
      dataDir,
      '-U',
      'toolpack',
      '--auth=trust',
      '--encoding=UTF8',
      '--locale=C.UTF-8',
      '--no-sync',
      '--no-instructions',
    ]);
  } catch (error) {
    rmSync(root, { recursive: true, force: true });
    throw error;
  }

  let port = 0;
  const serverOptions = (): string =>
    [
      `-p ${port}`,
      '-c listen_addresses=127.0.0.1',
      `-c unix_socket_directories=${root}`,
      `-c max_connections=${options.maxConnections ?? 100}`,
      // Throw-away data: nothing needs to survive the machine crashing, but a committed row
      // survives the server crashing (restart()), so commits stay synchronous.
      '-c fsync=off',
      '-c full_page_writes=off',
    ].join(' ');
  const startServer = async (): Promise<void> => {
    await run('pg_ctl', [
      '-D',
      dataDir,
      '-l',
      path.join(root, 'server.log'),
      '-w',
      '-t',
      '60',
      '-o',
      serverOptions(),
      'start',
    ]);
  };
  // A free port can be taken between asking and binding; another is tried then.
  let started = false;
  for (let attempt = 0; attempt < 3 && !started; attempt += 1) {
    port = await findFreePort();
    try {
      await startServer();
      started = true;
    } catch (error) {
      if (attempt === 2) {
        rmSync(root, { recursive: true, force: true });
        throw error;
      }
    }
  }

  // If the test process dies without stop(), the server must not outlive it.
  const stopNow = (): void => {
    spawnSync(
      path.join(install.binDir, 'pg_ctl'),
      ['-D', dataDir, '-m', 'immediate', '-w', 'stop'],
      { stdio: 'ignore', ...(owner ?? {}) },
    );
    rmSync(root, { recursive: true, force: true });
  };
  process.once('exit', stopNow);

  const url = `postgres://toolpack@127.0.0.1:${port}/postgres`;
  return {
    url,
    port,
    version: install.version,
    createDatabase: (name) => createDatabase(url, name),
    async restart() {
      await run('pg_ctl', ['-D', dataDir, '-m', 'immediate', '-w', 'stop']);
      await startServer();
    },
    async stop() {
      process.off('exit', stopNow);
      await run('pg_ctl', ['-D', dataDir, '-m', 'fast', '-w', '-t', '60', 'stop']).catch(() =>
        run('pg_ctl', ['-D', dataDir, '-m', 'immediate', '-w', 'stop']),
      );
      rmSync(root, { recursive: true, force: true });
    },
  };
}

async function useGivenServer(url: string): Promise<PostgresCluster> {
  const made: string[] = [];
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  const version = String(
    (await client.query<{ server_version: string }>('SHOW server_version')).rows[0]?.server_version,
  );
  await client.end();
  return {
    url,
    port: Number(new URL(url).port || 5432),
    version,
    async createDatabase(name) {
      const databaseUrl = await createDatabase(url, name);
      made.push(new URL(databaseUrl).pathname.slice(1));
      return databaseUrl;
    },
    restart() {
      return Promise.reject(
        new Error(`Cannot restart a server this test did not start (${POSTGRES_URL_VARIABLE}).`),
      );
    },
    async stop() {
      const admin = new pg.Client({ connectionString: url });
      await admin.connect();
      try {
        for (const name of made)
          await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      } finally {
        await admin.end();
      }
    },
  };
}

async function createDatabase(serverUrl: string, name?: string): Promise<string> {
  const database = name ?? `t_${randomBytes(6).toString('hex')}`;
  if (!/^[a-z_][a-z0-9_]{0,62}$/.test(database))
    throw new Error(`${JSON.stringify(database)} is not a plain database name.`);
  const client = new pg.Client({ connectionString: serverUrl });
  await client.connect();
  try {
    await client.query(`CREATE DATABASE "${database}" TEMPLATE template0 ENCODING 'UTF8'`);
  } finally {
    await client.end();
  }
  const url = new URL(serverUrl);
  url.pathname = `/${database}`;
  return url.toString();
}

function lookUpUser(name: string): { uid: number; gid: number } {
  const entry = spawnSync('getent', ['passwd', name], { encoding: 'utf8' }).stdout ?? '';
  const [, , uid, gid] = entry.trim().split(':');
  if (uid === undefined || gid === undefined)
    throw new Error(
      `PostgreSQL refuses to run as root and there is no "${name}" user to run it as.`,
    );
  return { uid: Number(uid), gid: Number(gid) };
}

function runTool(
  file: string,
  args: string[],
  owner: { uid: number; gid: number } | undefined,
): Promise<void> {
  const spawnOptions: SpawnOptions = {
    // pg_ctl's server keeps running after pg_ctl exits; its output goes to the log file, so
    // no pipe of ours is held open by it.
    stdio: ['ignore', 'ignore', 'pipe'],
    cwd: os.tmpdir(),
    ...(owner ?? {}),
  };
  return new Promise((resolve, reject) => {
    const child = spawn(file, args, spawnOptions);
    let stderr = '';
    child.stderr?.setEncoding('utf8');
    child.stderr?.on('data', (chunk: string) => {
      stderr += chunk;
    });
    child.once('error', reject);
    child.once('close', (code) => {
      if (code === 0) resolve();
      else
        reject(
          new Error(`${path.basename(file)} ${args.at(-1)} exited with ${code}: ${stderr.trim()}`),
        );
    });
  });
}

function findFreePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => {
        if (address !== null && typeof address === 'object') resolve(address.port);
        else reject(new Error('No free port on 127.0.0.1.'));
      });
    });
  });
}

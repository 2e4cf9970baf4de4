import { spawnSync } from 'node:child_process';
import { mkdir, readdir, utimes, writeFile } from 'node:fs/promises';
import { createServer, type AddressInfo } from 'node:net';
import path from 'node:path';
import {
  hasPostgres,
  NEEDS_POSTGRES,
  startPostgresCluster,
  type PostgresCluster,
} from '@toolpack/pg-cluster';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runRegistryCli, type RegistryCliIo } from './registry-cli.ts';
import { computeBlobKey } from './storage/fs-blob-store.ts';
import { createSqliteMetadataStore } from './storage/sqlite-metadata-store.ts';
import { verifyToken } from './auth/tokens.ts';
import { makeTempDir, removeTempDirs } from './testing/registry-fixtures.ts';

afterAll(removeTempDirs);

/** A loopback port nothing listens on (it was free a moment ago). */
async function findClosedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

function createIo(cwd: string, waitForStop?: () => Promise<void>) {
  const out = { stdout: '', stderr: '' };
  const io: RegistryCliIo = {
    stdout: { write: (text: string) => (out.stdout += text) },
    stderr: { write: (text: string) => (out.stderr += text) },
    cwd,
    ...(waitForStop === undefined ? {} : { waitForStop }),
  };
  return { io, out };
}

describe('toolpack-registry', () => {
  it('creates a token with `node src/cli.ts token create`, printed once on stdout', async () => {
    const cwd = await makeTempDir();
    const result = spawnSync(
      process.execPath,
      [
        path.join(import.meta.dirname, 'cli.ts'),
        'token',
        'create',
        '--owner',
        'acme',
        '--label',
        'ci',
      ],
      {
        cwd,
        encoding: 'utf8',
      },
    );
    expect(result.stderr).toMatch(/^Token [0-9a-f]{16} for owner acme\. It is shown this once/);
    expect(result.status).toBe(0);
    const token = result.stdout.trim();
    const store = createSqliteMetadataStore({
      file: path.join(cwd, '.toolpack', 'registry', 'registry.db'),
    });
    expect(await verifyToken(store, token)).toMatchObject({ owner: 'acme' });
    await store.close();
  });

  it('lists and revokes tokens', async () => {
    const cwd = await makeTempDir();
    const created = createIo(cwd);
    expect(
      await runRegistryCli(['token', 'create', '--owner', 'bob', '--data', 'reg'], created.io),
    ).toBe(0);
    const id = created.out.stderr.match(/Token ([0-9a-f]{16})/)?.[1] ?? '';
    const listed = createIo(cwd);
    expect(await runRegistryCli(['token', 'list', '--data', 'reg'], listed.io)).toBe(0);
    expect(listed.out.stdout).toMatch(new RegExp(`^${id}\\tbob\\t\\S+\\tactive\\t\\n$`));
    expect(listed.out.stdout).not.toContain(created.out.stdout.trim());
    expect(await runRegistryCli(['token', 'revoke', id, '--data', 'reg'], createIo(cwd).io)).toBe(
      0,
    );
    expect(await runRegistryCli(['token', 'revoke', id, '--data', 'reg'], createIo(cwd).io)).toBe(
      1,
    );
  });

  it('serves until told to stop', async () => {
    const cwd = await makeTempDir();
    let stop = () => {};
    const stopped = new Promise<void>((resolve) => (stop = resolve));
    const { io, out } = createIo(cwd, () => stopped);
    const running = runRegistryCli(['serve', '--port', '0', '--no-seed', '--data', 'reg'], io);
    await expect.poll(() => out.stderr, { timeout: 10_000 }).toMatch(/listening on (http:\S+)/);
    const url = out.stderr.match(/listening on (http:\S+)/)?.[1] ?? '';
    expect(await (await fetch(`${url}/health`)).json()).toEqual({
      status: 'ok',
      packs: 0,
      versions: 0,
    });
    stop();
    expect(await running).toBe(0);
    await expect(fetch(`${url}/health`)).rejects.toThrow();
  });

  it('sweeps orphan tarballs and interrupted writes older than --grace, with a dry run first', async () => {
    const cwd = await makeTempDir();
    const blobsDir = path.join(cwd, 'reg', 'blobs', 'sha512');
    const write = async (text: string, ageMs: number) => {
      const key = computeBlobKey(Buffer.from(text));
      const file = path.join(blobsDir, key.slice(7, 9), `${key.slice(7)}.tgz`);
      await mkdir(path.dirname(file), { recursive: true });
      await writeFile(file, text);
      const then = new Date(Date.now() - ageMs);
      await utimes(file, then, then);
      return key;
    };
    const old = await write('an orphan from a crash', 3 * 3_600_000);
    await write('a tarball a publish just wrote', 0);
    const hex = computeBlobKey(Buffer.from('half a tarball')).slice(7);
    const interrupted = `sha512/${hex.slice(0, 2)}/${hex}.tgz.00000000beef.tmp`;
    const interruptedFile = path.join(cwd, 'reg', 'blobs', interrupted);
    await mkdir(path.dirname(interruptedFile), { recursive: true });
    await writeFile(interruptedFile, 'half');
    await utimes(interruptedFile, new Date(0), new Date(0));

    const dry = createIo(cwd);
    expect(
      await runRegistryCli(['sweep', '--grace', '1h', '--dry-run', '--data', 'reg'], dry.io),
    ).toBe(0);
    expect(dry.out.stdout).toBe(`${old}\n${interrupted}\n`);
    expect(dry.out.stderr).toMatch(
      /^Would remove 1 orphan tarballs and 1 files left by interrupted writes \(26 B\); kept 1 \(0 referenced, 1 newer/,
    );

    const real = createIo(cwd);
    expect(await runRegistryCli(['sweep', '--grace', '1h', '--data', 'reg'], real.io)).toBe(0);
    expect(real.out.stdout).toBe(`${old}\n${interrupted}\n`);
    expect(real.out.stderr).toMatch(/^Removed 1 orphan tarballs and 1 files/);

    const again = createIo(cwd);
    expect(await runRegistryCli(['sweep', '--data', 'reg'], again.io)).toBe(0);
    expect(again.out.stdout).toBe('');
    expect(again.out.stderr).toMatch(/^Removed 0 orphan tarballs/);
  });

  it('refuses a --database that is not a postgres:// URL, and never shows its password', async () => {
    const bad = createIo(await makeTempDir());
    expect(await runRegistryCli(['token', 'list', '--database', 'mysql://x/y'], bad.io)).toBe(2);
    expect(bad.out.stderr).toMatch(/must be a postgres:\/\/ URL/);

    // Nothing listens on this port: the error names the database, its password masked.
    const port = await findClosedPort();
    const url = `postgres://registry:s3cret-pw@127.0.0.1:${port}/gallery`;
    const byFlag = createIo(await makeTempDir());
    expect(await runRegistryCli(['sweep', '--database', url], byFlag.io)).toBe(1);
    const byVariable = createIo(await makeTempDir());
    byVariable.io.env = { TOOLPACK_REGISTRY_DATABASE: url };
    expect(await runRegistryCli(['token', 'list'], byVariable.io)).toBe(1);
    for (const { out } of [byFlag, byVariable]) {
      expect(out.stderr).toMatch(
        /^error E_REGISTRY_DATABASE: The registry cannot use the database at /,
      );
      expect(out.stderr).toContain(`postgres://registry:***@127.0.0.1:${port}/gallery`);
      expect(out.stderr).not.toContain('s3cret-pw');
    }

    // An empty variable is no database: the data folder's SQLite file, as without it.
    const empty = createIo(await makeTempDir());
    empty.io.env = { TOOLPACK_REGISTRY_DATABASE: '' };
    expect(await runRegistryCli(['token', 'list', '--data', 'reg'], empty.io)).toBe(0);
  });

  it('answers bad usage with exit code 2 and the usage text', async () => {
    for (const argv of [
      [],
      ['nonsense'],
      ['token', 'create'],
      ['token', 'create', '--owner', 'Bad Owner'],
      ['serve', '--port', 'x'],
      ['sweep', '--grace', 'soon'],
      ['serve', '--max-connections', '5'],
      ['serve', '--database', 'postgres://x@127.0.0.1/y', '--max-connections', '0'],
      ['sweep', 'now'],
      ['--bogus'],
    ]) {
      const { io, out } = createIo(await makeTempDir());
      expect(await runRegistryCli(argv, io), argv.join(' ')).toBe(2);
      expect(out.stderr).not.toBe('');
    }
    const help = createIo(await makeTempDir());
    expect(await runRegistryCli(['--help'], help.io)).toBe(0);
    expect(help.out.stdout).toContain('toolpack-registry token create --owner NAME');
  });
});

describe.skipIf(!hasPostgres())(`toolpack-registry --database ${NEEDS_POSTGRES}`, () => {
  let cluster: PostgresCluster;
  beforeAll(async () => {
    cluster = await startPostgresCluster();
  }, 120_000);
  afterAll(() => cluster?.stop(), 120_000);

  it('creates, lists and revokes tokens in the database, not in the data folder', async () => {
    const url = await cluster.createDatabase();
    const cwd = await makeTempDir();
    const created = createIo(cwd);
    expect(
      await runRegistryCli(['token', 'create', '--owner', 'acme', '--database', url], created.io),
    ).toBe(0);
    const id = created.out.stderr.match(/Token ([0-9a-f]{16})/)?.[1] ?? '';
    const listed = createIo(cwd);
    listed.io.env = { TOOLPACK_REGISTRY_DATABASE: url };
    expect(await runRegistryCli(['token', 'list'], listed.io)).toBe(0);
    expect(listed.out.stdout).toMatch(new RegExp(`^${id}\\tacme\\t\\S+\\tactive\\t\\n$`));
    // The flag wins over the variable.
    const revoked = createIo(cwd);
    revoked.io.env = { TOOLPACK_REGISTRY_DATABASE: 'postgres://nobody@127.0.0.1:1/none' };
    expect(await runRegistryCli(['token', 'revoke', id, '--database', url], revoked.io)).toBe(0);
    const after = createIo(cwd);
    expect(await runRegistryCli(['token', 'list', '--database', url], after.io)).toBe(0);
    expect(after.out.stdout).toContain('\trevoked ');
    expect(await readdir(cwd)).toEqual([]);
  });
});

import { spawnSync } from 'node:child_process';
import { mkdir, utimes, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runRegistryCli, type RegistryCliIo } from './registry-cli.ts';
import { computeBlobKey } from './storage/fs-blob-store.ts';
import { createSqliteMetadataStore } from './storage/sqlite-metadata-store.ts';
import { verifyToken } from './auth/tokens.ts';
import { makeTempDir, removeTempDirs } from './testing/registry-fixtures.ts';

afterAll(removeTempDirs);

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

  it('answers bad usage with exit code 2 and the usage text', async () => {
    for (const argv of [
      [],
      ['nonsense'],
      ['token', 'create'],
      ['token', 'create', '--owner', 'Bad Owner'],
      ['serve', '--port', 'x'],
      ['sweep', '--grace', 'soon'],
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

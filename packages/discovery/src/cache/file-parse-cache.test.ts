import { mkdtemp, readFile, rm, stat, utimes, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FileParseCache } from './file-parse-cache.ts';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'toolpack-cache-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** Sets a file's mtime well in the past, as for a file edited long before discovery ran. */
async function age(file: string, secondsAgo = 60): Promise<void> {
  const when = new Date(Date.now() - secondsAgo * 1000);
  await utimes(file, when, when);
}

describe('FileParseCache', () => {
  it('serves an unchanged file from the cache across processes (a new instance)', async () => {
    const file = path.join(dir, 'a.ps1');
    await writeFile(file, 'one');
    await age(file);
    let parses = 0;
    const parse = ([content]: string[]) => ({ parsed: content, n: ++parses });

    const first = new FileParseCache({ dir: path.join(dir, 'cache') });
    expect(await first.read('k@1', [file], parse)).toEqual({ parsed: 'one', n: 1 });
    await first.flush();

    const second = new FileParseCache({ dir: path.join(dir, 'cache') });
    expect(await second.read('k@1', [file], parse)).toEqual({ parsed: 'one', n: 1 });
    expect(second.stats).toEqual({ hits: 1, misses: 0 });
    expect(parses).toBe(1);
  });

  it('does not rewrite the cache file when a run only hits entries', async () => {
    const file = path.join(dir, 'a.ps1');
    await writeFile(file, 'one');
    await age(file);
    const cacheDir = path.join(dir, 'cache');
    const cacheFile = path.join(cacheDir, 'discovery-v1.json');
    const parse = ([content]: string[]) => content;

    const first = new FileParseCache({ dir: cacheDir });
    await first.read('k@1', [file], parse);
    await first.flush();
    const written = (await stat(cacheFile)).ino;

    // flush replaces the file by a rename, so a rewrite shows as a new inode.
    const second = new FileParseCache({ dir: cacheDir });
    await second.read('k@1', [file], parse);
    await second.flush();
    expect(second.stats).toEqual({ hits: 1, misses: 0 });
    expect((await stat(cacheFile)).ino).toBe(written);

    // A miss still writes: the same check sees that rewrite.
    const other = path.join(dir, 'b.ps1');
    await writeFile(other, 'two');
    const third = new FileParseCache({ dir: cacheDir });
    await third.read('k@1', [other], parse);
    await third.flush();
    expect((await stat(cacheFile)).ino).not.toBe(written);
  });

  it('never serves a stale value after an edit, even one that keeps size and mtime', async () => {
    const file = path.join(dir, 'a.ps1');
    await writeFile(file, 'aaaa');
    const cache = new FileParseCache({ dir: path.join(dir, 'cache') });
    expect(await cache.read('k@1', [file], ([c]) => c)).toBe('aaaa');

    // Same size, and the mtime forced back to the old value: only the hash can tell.
    const { mtime } = await import('node:fs/promises').then((fs) => fs.stat(file));
    await writeFile(file, 'bbbb');
    await utimes(file, mtime, mtime);
    expect(await cache.read('k@1', [file], ([c]) => c)).toBe('bbbb');
  });

  it('re-parses when any of several files changes', async () => {
    const a = path.join(dir, 'metadata.yaml');
    const b = path.join(dir, 'script.ps1');
    await writeFile(a, 'name: x');
    await writeFile(b, 'function Invoke-X {}');
    await age(a);
    await age(b);
    const cache = new FileParseCache({ dir: path.join(dir, 'cache') });
    const parse = (contents: string[]) => contents.join('|');
    expect(await cache.read('folder@1', [a, b], parse)).toBe('name: x|function Invoke-X {}');
    await writeFile(b, 'function Invoke-Y {}');
    expect(await cache.read('folder@1', [a, b], parse)).toBe('name: x|function Invoke-Y {}');
    expect(cache.stats).toEqual({ hits: 0, misses: 2 });
  });

  it('keeps entries of different parser versions apart', async () => {
    const file = path.join(dir, 'a.ps1');
    await writeFile(file, 'x');
    await age(file);
    const cache = new FileParseCache({ dir: path.join(dir, 'cache') });
    expect(await cache.read('k@1', [file], () => 'v1')).toBe('v1');
    expect(await cache.read('k@2', [file], () => 'v2')).toBe('v2');
    expect(await cache.read('k@1', [file], () => 'other')).toBe('v1');
  });

  it('starts empty when another discovery version wrote the cache', async () => {
    const file = path.join(dir, 'a.ps1');
    await writeFile(file, 'x');
    await age(file);
    const cacheDir = path.join(dir, 'cache');
    const older = new FileParseCache({ dir: cacheDir, parser: '0.1.0' });
    expect(await older.read('k@1', [file], () => 'parsed by 0.1.0')).toBe('parsed by 0.1.0');
    await older.flush();
    const same = new FileParseCache({ dir: cacheDir, parser: '0.1.0' });
    expect(await same.read('k@1', [file], () => 'again')).toBe('parsed by 0.1.0');
    const newer = new FileParseCache({ dir: cacheDir, parser: '99.0.0-test' });
    expect(await newer.read('k@1', [file], () => 'parsed by 99')).toBe('parsed by 99');
    expect(newer.stats).toEqual({ hits: 0, misses: 1 });
    // By default the parser is the running package's version.
    await newer.flush();
    const running = new FileParseCache({ dir: cacheDir });
    expect(await running.read('k@1', [file], () => 'parsed now')).toBe('parsed now');
  });

  it('returns copies the caller cannot corrupt the cache through', async () => {
    const file = path.join(dir, 'a.ps1');
    await writeFile(file, 'x');
    await age(file);
    const cache = new FileParseCache({ dir: path.join(dir, 'cache') });
    const value = await cache.read('k@1', [file], () => ({ list: [1] }));
    value.list.push(2);
    expect(await cache.read('k@1', [file], () => ({ list: [9] }))).toEqual({ list: [1] });
  });

  it('starts empty from a corrupt cache file and tolerates an unwritable folder', async () => {
    const cacheDir = path.join(dir, 'cache');
    const file = path.join(dir, 'a.ps1');
    await writeFile(file, 'x');
    const cache = new FileParseCache({ dir: cacheDir });
    await cache.read('k@1', [file], () => 1);
    await cache.flush();
    await writeFile(path.join(cacheDir, 'discovery-v1.json'), '{not json');
    const fresh = new FileParseCache({ dir: cacheDir });
    expect(await fresh.read('k@1', [file], () => 2)).toBe(2);

    const blocked = new FileParseCache({ dir: path.join(file, 'inside-a-file') });
    await blocked.read('k@1', [file], () => 3);
    await expect(blocked.flush()).resolves.toBeUndefined();
  });

  it('writes the cache atomically as JSON', async () => {
    const file = path.join(dir, 'a.ps1');
    await writeFile(file, 'x');
    const cache = new FileParseCache({ dir: path.join(dir, 'cache') });
    await cache.read('k@1', [file], () => ({ ok: true }));
    await cache.flush();
    const stored = JSON.parse(await readFile(path.join(dir, 'cache', 'discovery-v1.json'), 'utf8'));
    expect(stored.format).toBe(1);
    expect(Object.values(stored.entries)).toHaveLength(1);
  });

  it('propagates a missing file so the adapter can report it', async () => {
    const cache = new FileParseCache({ dir: path.join(dir, 'cache') });
    await expect(cache.read('k@1', [path.join(dir, 'gone.ps1')], () => 1)).rejects.toMatchObject({
      code: 'ENOENT',
    });
  });
});

import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { computeIntegrity } from '../integrity/integrity.ts';
import { createPackCache, defaultCacheDir } from './pack-cache.ts';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe('the pack cache', () => {
  it('stores and returns tarballs by integrity', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'toolpack-cache-'));
    dirs.push(dir);
    const cache = createPackCache({ dir });
    const bytes = Buffer.from('tarball bytes');
    const integrity = computeIntegrity(bytes);
    expect(await cache.read(integrity)).toBeUndefined();
    await cache.write(integrity, bytes);
    expect((await cache.read(integrity))?.equals(bytes)).toBe(true);
    expect(readdirSync(cache.dir)).toEqual([expect.stringMatching(/^sha512-[0-9a-f]{128}\.tgz$/)]);
  });

  it('drops an entry whose bytes no longer match', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'toolpack-cache-'));
    dirs.push(dir);
    const cache = createPackCache({ dir });
    const integrity = computeIntegrity(Buffer.from('a'));
    await cache.write(integrity, Buffer.from('a'));
    writeFileSync(path.join(cache.dir, readdirSync(cache.dir)[0]!), 'tampered');
    expect(await cache.read(integrity)).toBeUndefined();
    expect(readdirSync(cache.dir)).toEqual([]);
  });

  it('lives in TOOLPACK_CACHE_DIR, else XDG_CACHE_HOME, else ~/.cache', () => {
    expect(defaultCacheDir({ TOOLPACK_CACHE_DIR: '/c' })).toBe(path.resolve('/c'));
    expect(defaultCacheDir({ XDG_CACHE_HOME: '/x' })).toBe(path.join('/x', 'toolpack'));
    if (process.platform !== 'win32')
      expect(defaultCacheDir({})).toBe(path.join(os.homedir(), '.cache', 'toolpack'));
  });
});

import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * The CommonJS packages a fresh Node process holds after running `script` (an ES module that
 * imports @toolpack/packs from its sources), by package name.
 */
function loadedPackages(script: string): string[] {
  const result = spawnSync(
    process.execPath,
    [
      '--conditions=@toolpack/source',
      '--input-type=module',
      '-e',
      `${script}
import { createRequire } from 'node:module';
const cache = createRequire(import.meta.url).cache;
console.log(JSON.stringify(Object.keys(cache)));`,
    ],
    { cwd: path.join(import.meta.dirname, '..'), encoding: 'utf8' },
  );
  expect(result.stderr).toBe('');
  const files = JSON.parse(result.stdout) as string[];
  return [
    ...new Set(
      files.flatMap((file) => /node_modules[\\/](semver|tar|yaml)[\\/]/.exec(file)?.[1] ?? []),
    ),
  ].sort();
}

describe('lazy dependencies', () => {
  it('importing @toolpack/packs loads neither semver, tar nor yaml', () => {
    expect(loadedPackages("await import('@toolpack/packs');")).toEqual([]);
  });

  it('loads each on first use', () => {
    expect(
      loadedPackages(`const packs = await import('@toolpack/packs');
packs.sortVersionsDescending(['1.0.0', '2.0.0']);
const { gzipSync } = await import('node:zlib');
try { packs.inspectTarball(gzipSync(Buffer.alloc(1024))); } catch {}
(await import('@toolpack/core')).parseLocatedYaml('a: 1');`),
    ).toEqual(['semver', 'tar', 'yaml']);
  });
});

import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { buildTarball, packManifestText, type RawTarEntry } from '../testing/build-tarball.ts';
import { inspectTarball, readPackTarball } from './read-tarball.ts';

const manifest: RawTarEntry = {
  path: 'package/toolpack.yaml',
  data: packManifestText('hostile', '1.0.0'),
};

function problemsOf(entries: RawTarEntry[], limits = {}) {
  const result = inspectTarball(buildTarball([manifest, ...entries]), {
    limits,
    label: 'evil.tgz',
  });
  expect(result.files).toBeUndefined();
  return result.problems.map((p) => `${p.code}: ${p.message}`);
}

describe('inspectTarball on a good tarball', () => {
  it('returns the files relative to package/', () => {
    const result = inspectTarball(
      buildTarball([
        { path: 'package/', type: 'Directory' },
        manifest,
        { path: 'package/scripts/a.mjs', data: 'console.log(1)\n' },
        { path: 'package/./scripts/b.mjs', data: 'x' },
      ]),
    );
    expect(result.problems).toEqual([]);
    expect(result.files?.map((f) => [f.path, f.data.toString()])).toEqual([
      ['toolpack.yaml', packManifestText('hostile', '1.0.0')],
      ['scripts/a.mjs', 'console.log(1)\n'],
      ['scripts/b.mjs', 'x'],
    ]);
  });
});

describe('inspectTarball refuses hostile tarballs before anything is written', () => {
  it.each([
    [
      'a .. path',
      'package/../evil.txt',
      /E_TARBALL_PATH: "package\/\.\.\/evil\.txt" climbs out of the pack/,
    ],
    ['a nested .. path', 'package/a/../../evil.txt', /climbs out of the pack/],
    ['an absolute path', '/etc/cron.d/evil', /is an absolute path/],
    ['a drive path', 'C:/Windows/evil.txt', /is an absolute path/],
    ['a path outside package/', 'evil.txt', /is not under package\//],
    ['a backslash path', 'package\\..\\evil.txt', /contains "\\" \(a Windows path separator\)/],
    ['a reserved Windows name', 'package/scripts/CON.txt', /reserved device name/],
    ['an alternate data stream', 'package/a.txt:stream', /not allowed in file names/],
  ])('%s', (_, entryPath, expected) => {
    expect(problemsOf([{ path: entryPath, data: 'evil' }])).toEqual([
      expect.stringMatching(expected),
    ]);
  });

  it('a .. path hidden in a pax header', () => {
    expect(
      problemsOf([
        { path: `package/${'x'.repeat(120)}/../../../evil.txt`, data: 'evil', pax: true },
      ]),
    ).toEqual([expect.stringMatching(/climbs out of the pack/)]);
  });

  it.each([
    ['SymbolicLink', '/etc/passwd', /is a symbolic link \(to "\/etc\/passwd"\)/],
    ['SymbolicLink', '../../outside', /is a symbolic link/],
    ['Link', 'package/toolpack.yaml', /is a hard link/],
    ['CharacterDevice', undefined, /is a device file/],
    ['BlockDevice', undefined, /is a device file/],
    ['FIFO', undefined, /is a FIFO/],
  ] as const)('a %s entry (%s)', (type, linkpath, expected) => {
    expect(
      problemsOf([
        { path: 'package/scripts/thing', type, ...(linkpath === undefined ? {} : { linkpath }) },
      ]),
    ).toEqual([expect.stringMatching(expected)]);
  });

  it('a file over the per-file cap', () => {
    expect(
      problemsOf([{ path: 'package/big.bin', data: Buffer.alloc(4096, 7) }], {
        maxFileBytes: 1024,
      }),
    ).toEqual(['E_TARBALL_FILE_TOO_LARGE: big.bin is 4.0 KB; one file may be at most 1.0 KB.']);
  });

  it('files over the total cap', () => {
    const files = Array.from({ length: 5 }, (_, i) => ({
      path: `package/f${i}.bin`,
      data: Buffer.alloc(1000, i),
    }));
    expect(problemsOf(files, { maxTotalBytes: 3000 })).toEqual([
      expect.stringMatching(/^E_TARBALL_TOO_LARGE: evil\.tgz unpacks to more than 2\.9 KB/),
    ]);
  });

  it('more entries than the cap', () => {
    const files = Array.from({ length: 20 }, (_, i) => ({ path: `package/f${i}.txt`, data: 'x' }));
    expect(problemsOf(files, { maxEntries: 10 })).toEqual([
      'E_TARBALL_TOO_MANY_ENTRIES: evil.tgz has more than 10 entries.',
    ]);
  });

  it('a decompression bomb (ratio above the cap)', () => {
    const bomb = buildTarball([
      manifest,
      { path: 'package/zeros.bin', data: Buffer.alloc(8 * 1024 * 1024) },
    ]);
    expect(bomb.length).toBeLessThan(20_000);
    const result = inspectTarball(bomb, { label: 'bomb.tgz' });
    expect(result.files).toBeUndefined();
    expect(result.problems.map((p) => p.code)).toEqual(['E_TARBALL_RATIO']);
    expect(result.problems[0]?.message).toMatch(/decompresses to more than 100 times its size/);
  });

  it('a tarball over the download cap, not gzip, or gzipped twice', () => {
    const good = buildTarball([manifest]);
    expect(inspectTarball(good, { limits: { maxTarballBytes: 10 } }).problems[0]?.code).toBe(
      'E_TARBALL_TOO_LARGE',
    );
    expect(inspectTarball(buildTarball([manifest], { gzip: false })).problems[0]?.message).toMatch(
      /not a gzip-compressed tar/,
    );
    expect(inspectTarball(gzipSync(good)).problems[0]?.message).toMatch(/compressed twice/);
  });

  it('the same path twice, paths differing in case, a file that is also a folder', () => {
    expect(
      problemsOf([
        { path: 'package/a.txt', data: '1' },
        { path: 'package/a.txt', data: '2' },
        { path: 'package/Readme.md', data: '1' },
        { path: 'package/README.md', data: '2' },
        { path: 'package/tools', data: 'file' },
        { path: 'package/tools/x.txt', data: 'inside' },
      ]),
    ).toEqual([
      'E_TARBALL_DUPLICATE: a.txt appears twice.',
      'E_TARBALL_DUPLICATE: README.md and Readme.md differ only in case; they would overwrite each other on macOS and Windows.',
      'E_TARBALL_DUPLICATE: tools is a file and also the folder of tools/x.txt.',
    ]);
  });

  it('a damaged header', () => {
    const tar = buildTarball([manifest, { path: 'package/a.txt', data: 'x' }], { gzip: false });
    tar[1024 + 148] = 0x37; // the second entry's checksum
    const result = inspectTarball(gzipSync(tar));
    expect(result.files).toBeUndefined();
    expect(result.problems[0]?.message).toMatch(/damaged tar/);
  });

  it('throws every problem at once from readPackTarball', () => {
    const bytes = buildTarball([
      manifest,
      { path: 'package/../a', data: 'x' },
      { path: 'package/l', type: 'SymbolicLink', linkpath: '/' },
    ]);
    expect(() => readPackTarball(bytes, { label: 'The tarball of x@1.0.0' })).toThrow(
      /The tarball of x@1\.0\.0 was refused and nothing was installed:\n {2}- .*climbs out.*\n {2}- .*symbolic link/,
    );
  });
});

import {
  lstat,
  mkdir,
  mkdtemp,
  readFile,
  readlink,
  rm,
  symlink,
  writeFile,
} from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import yauzl from 'yauzl';
import {
  buildModuleNupkg,
  buildZip,
  nuspecText,
  type RawZipEntry,
} from '../testing/build-nupkg.ts';
import { inspectNupkg, readNupkgContent } from './read-nupkg.ts';

const temps: string[] = [];
afterEach(async () => {
  await Promise.all(temps.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

async function tempDir(): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), 'toolpack-nupkg-'));
  temps.push(dir);
  return dir;
}

/**
 * What an unzip that trusts the archive does: every name joined to the target folder, a link
 * made a link, a later entry written over an earlier one. It shows each attack below reaching
 * its target when nothing checks the package.
 */
async function extractNaively(bytes: Buffer, target: string): Promise<void> {
  const zip = await new Promise<yauzl.ZipFile>((resolve, reject) =>
    yauzl.fromBuffer(
      bytes,
      { lazyEntries: true, decodeStrings: false, validateEntrySizes: false },
      (error, z) => (error ? reject(error) : resolve(z)),
    ),
  );
  const entries: yauzl.Entry[] = [];
  await new Promise<void>((resolve, reject) => {
    zip.on('entry', (entry: yauzl.Entry) => {
      entries.push(entry);
      zip.readEntry();
    });
    zip.once('end', resolve);
    zip.once('error', reject);
    zip.readEntry();
  });
  for (const entry of entries) {
    const name = decodeURIComponent((entry.fileName as unknown as Buffer).toString('utf8'));
    const data = await new Promise<Buffer>((resolve, reject) =>
      zip.openReadStream(entry, (error, stream) => {
        if (error) return reject(error);
        const chunks: Buffer[] = [];
        stream.on('data', (chunk: Buffer) => chunks.push(chunk));
        stream.once('end', () => resolve(Buffer.concat(chunks)));
        stream.once('error', reject);
      }),
    );
    const file = path.isAbsolute(name) ? name : path.join(target, name);
    await mkdir(path.dirname(file), { recursive: true });
    if (((entry.externalFileAttributes >>> 16) & 0o170000) === 0o120000)
      await symlink(data.toString(), file);
    else await writeFile(file, data);
  }
  zip.close();
}

async function problemsOf(extra: RawZipEntry[], limits = {}): Promise<string[]> {
  const bytes = await buildModuleNupkg({ id: 'Hostile', version: '1.0.0', extra });
  const result = await inspectNupkg(bytes, { limits, label: 'evil.nupkg' });
  expect(result.files).toBeUndefined();
  return result.problems.map((p) => `${p.code}: ${p.message}`);
}

describe('inspectNupkg on a package made by the real Publish-PSResource', () => {
  it('returns every file, paths as NuGet names them', async () => {
    const bytes = await readFile(path.join(import.meta.dirname, 'fixtures/EchoTools.1.2.0.nupkg'));
    const result = await inspectNupkg(bytes);
    expect(result.problems).toEqual([]);
    expect(result.files?.map((f) => f.path).sort()).toEqual([
      'EchoTools.nuspec',
      'EchoTools.psd1',
      'EchoTools.psm1',
      '[Content_Types].xml',
      '_rels/.rels',
      expect.stringMatching(/^package\/services\/metadata\/core-properties\/[0-9a-f]+\.psmdcp$/),
    ]);
  });

  it('unescapes names as NuGet does (a space is written %20)', async () => {
    const result = await inspectNupkg(await buildZip([{ path: 'My%20Tools.ps1', data: 'x' }]));
    expect(result.files?.map((f) => f.path)).toEqual(['My Tools.ps1']);
  });
});

describe('inspectNupkg refuses hostile packages before anything is written', () => {
  it('a .. path, which an unchecked unzip writes outside its folder', async () => {
    const root = await tempDir();
    const target = path.join(root, 'pack');
    const hostile: RawZipEntry = { path: '../evil.txt', data: 'evil' };
    await extractNaively(await buildZip([hostile]), target);
    expect(await readFile(path.join(root, 'evil.txt'), 'utf8')).toBe('evil');

    expect(await problemsOf([hostile])).toEqual([
      expect.stringMatching(/^E_TARBALL_PATH: "\.\.\/evil\.txt" climbs out of the pack/),
    ]);
  });

  it('a .. path hidden in %-escapes', async () => {
    const root = await tempDir();
    const hostile: RawZipEntry = { path: '%2e%2e/evil.txt', data: 'evil' };
    await extractNaively(await buildZip([hostile]), path.join(root, 'pack'));
    expect(await readFile(path.join(root, 'evil.txt'), 'utf8')).toBe('evil');

    expect(await problemsOf([hostile])).toEqual([expect.stringMatching(/climbs out of the pack/)]);
  });

  it('an absolute path, which an unchecked unzip writes where it says', async () => {
    const root = await tempDir();
    const outside = path.join(root, 'outside.txt');
    const hostile: RawZipEntry = { path: outside, data: 'evil' };
    await extractNaively(await buildZip([hostile]), path.join(root, 'pack'));
    expect(await readFile(outside, 'utf8')).toBe('evil');

    expect(await problemsOf([hostile])).toEqual([
      expect.stringMatching(/^E_TARBALL_PATH: .* is an absolute path/),
    ]);
  });

  it('a symbolic link, which an unchecked unzip makes pointing out of the pack', async () => {
    const root = await tempDir();
    const target = path.join(root, 'pack');
    const hostile: RawZipEntry = { path: 'Hostile.ps1', data: '/etc/passwd', mode: 0o120777 };
    await extractNaively(await buildZip([hostile]), target);
    expect((await lstat(path.join(target, 'Hostile.ps1'))).isSymbolicLink()).toBe(true);
    expect(await readlink(path.join(target, 'Hostile.ps1'))).toBe('/etc/passwd');

    expect(await problemsOf([hostile])).toEqual([
      expect.stringMatching(/^E_TARBALL_ENTRY_TYPE: Hostile\.ps1 is a symbolic link/),
    ]);
  });

  it('the same name twice, whose second copy an unchecked unzip writes over the first', async () => {
    const root = await tempDir();
    const entries: RawZipEntry[] = [
      { path: 'Tools.ps1', data: 'the reviewed one' },
      { path: 'tools.PS1', data: 'the one that runs' },
    ];
    await extractNaively(
      await buildZip([entries[0]!, { ...entries[1]!, path: 'Tools.ps1' }]),
      root,
    );
    expect(await readFile(path.join(root, 'Tools.ps1'), 'utf8')).toBe('the one that runs');

    expect(await problemsOf([entries[0]!, { ...entries[1]!, path: 'Tools.ps1' }])).toEqual([
      expect.stringMatching(/^E_TARBALL_DUPLICATE: Tools\.ps1 appears twice/),
    ]);
    expect(await problemsOf(entries)).toEqual([
      expect.stringMatching(/^E_TARBALL_DUPLICATE: tools\.PS1 and Tools\.ps1 differ only in case/),
    ]);
  });

  it('a zip bomb: 30 MB of zeros in a few KB, which an unchecked unzip writes in full', async () => {
    const root = await tempDir();
    const hostile: RawZipEntry = { path: 'bomb.bin', data: Buffer.alloc(30 * 1024 * 1024) };
    const bytes = await buildZip([hostile]);
    expect(bytes.length).toBeLessThan(100 * 1024);
    await extractNaively(bytes, root);
    expect((await lstat(path.join(root, 'bomb.bin'))).size).toBe(30 * 1024 * 1024);

    expect(await problemsOf([hostile])).toEqual([
      expect.stringMatching(
        /^E_TARBALL_FILE_TOO_LARGE: bomb\.bin is 30\.0 MB; one file may be at most 10\.0 MB/,
      ),
    ]);
  });

  it('many small files past the total, and a ratio past the cap', async () => {
    const files = Array.from({ length: 6 }, (_, i) => ({
      path: `part${i}.bin`,
      data: Buffer.alloc(9 * 1024 * 1024),
    }));
    expect(await problemsOf(files)).toEqual([
      expect.stringMatching(/^E_TARBALL_TOO_LARGE: evil\.nupkg unpacks to more than 50\.0 MB/),
    ]);
    expect(await problemsOf(files.slice(0, 1), { maxFileBytes: 20 * 1024 * 1024 })).toEqual([
      expect.stringMatching(/^E_TARBALL_RATIO: .*decompression bomb/),
    ]);
  });

  it('a size the central directory understates, which yauzl stops at', async () => {
    const bytes = await buildZip([{ path: 'small.txt', data: 'x'.repeat(4096), store: true }]);
    // The central directory's uncompressed size of the one entry: 4096 -> 16.
    const central = bytes.lastIndexOf(Buffer.from([0x50, 0x4b, 0x01, 0x02]));
    bytes.writeUInt32LE(16, central + 24);
    const result = await inspectNupkg(bytes, { label: 'evil.nupkg' });
    expect(result.files).toBeUndefined();
    expect(result.problems.map((p) => p.code)).toEqual(['E_TARBALL_FORMAT']);
  });

  it('too many entries, and something that is not a zip', async () => {
    const many = Array.from({ length: 12 }, (_, i) => ({ path: `f${i}.txt`, data: 'x' }));
    expect(await problemsOf(many, { maxEntries: 10 })).toEqual([
      expect.stringMatching(
        /^E_TARBALL_TOO_MANY_ENTRIES: evil\.nupkg has 17 entries; the limit is 10/,
      ),
    ]);
    const result = await inspectNupkg(Buffer.from('PK\u0003\u0004 not really'), { label: 'x' });
    expect(result.problems.map((p) => p.code)).toEqual(['E_TARBALL_FORMAT']);
  });
});

describe('readNupkgContent', () => {
  it("gives the real package's .nuspec and its own files, NuGet's packaging files left out", async () => {
    const bytes = await readFile(path.join(import.meta.dirname, 'fixtures/EchoTools.1.2.0.nupkg'));
    const read = await readNupkgContent(bytes);
    expect(read.problems).toEqual([]);
    expect(read.content?.nuspec).toMatchObject({ id: 'EchoTools', version: '1.2.0' });
    expect(read.content?.files.map((f) => f.path).sort()).toEqual([
      'EchoTools.psd1',
      'EchoTools.psm1',
    ]);
  });

  it("keeps a module's own folder named package, leaving out only NuGet's metadata in it", async () => {
    const read = await readNupkgContent(
      await buildZip([
        { path: 'Clocks.nuspec', data: nuspecText({ id: 'Clocks', version: '1.0.0' }) },
        { path: 'Clocks.psd1', data: '@{}' },
        { path: 'package/helper.ps1', data: 'x' },
        { path: 'package/services/metadata/core-properties/1.psmdcp', data: '<x/>' },
      ]),
    );
    expect(read.content?.files.map((f) => f.path)).toEqual(['Clocks.psd1', 'package/helper.ps1']);
  });

  it('refuses a package with no .nuspec, two, or one declaring a DOCTYPE', async () => {
    const module = { path: 'Clocks.psd1', data: '@{}' };
    const spec = nuspecText({ id: 'Clocks', version: '1.0.0' });
    const bomb = spec.replace('<package', '<!DOCTYPE package [<!ENTITY a "aaaa">]><package');
    const cases: [RawZipEntry[], RegExp][] = [
      [[module], /has no \.nuspec at its root/],
      [
        [module, { path: 'Clocks.nuspec', data: spec }, { path: 'Other.nuspec', data: spec }],
        /has more than one \.nuspec/,
      ],
      [[module, { path: 'Clocks.nuspec', data: bomb }], /Clocks\.nuspec\) .*declares a DOCTYPE/],
    ];
    for (const [entries, message] of cases) {
      const read = await readNupkgContent(await buildZip(entries), { label: 'x.nupkg' });
      expect(read.content).toBeUndefined();
      expect(read.problems.map((p) => `${p.code} ${p.message}`)).toEqual([
        expect.stringMatching(message),
      ]);
    }
  });
});

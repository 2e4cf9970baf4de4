import { readFileSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inspectTarball } from '@toolpack/packs';
import { buildTarball, type RawTarEntry } from '@toolpack/packs/testing';
import { generateToken } from '../auth/tokens.ts';
import { makeTempDir, removeTempDirs } from '../testing/registry-fixtures.ts';
import {
  HARDENING_FIXTURES,
  listBlobFiles,
  publish,
  startHardeningRegistry,
  type HardeningRegistry,
} from './hardening-kit.ts';

const fixture = (name: string) => readFileSync(path.join(HARDENING_FIXTURES, 'hostile', name));
const MANIFEST = fixture('toolpack.yaml');
const GOOD_TOOL = fixture('good-tool.sh');
const BROKEN_TOOL = fixture('broken-tool.sh');

const LIMITS = { maxFileBytes: 64 * 1024, maxEntries: 50, maxTotalBytes: 4 * 1024 * 1024 };

/** A pack that would publish, plus `extra`: one hostile entry spoils all of it. */
const packWith = (...extra: RawTarEntry[]) =>
  buildTarball([
    { path: 'package/toolpack.yaml', data: MANIFEST },
    { path: 'package/scripts/good.sh', data: GOOD_TOOL },
    ...extra,
  ]);

/** One ustar header block, written by hand for what tar's own Header refuses to write. */
function rawHeader(name: string, type: string, size: number): Buffer {
  const block = Buffer.alloc(512);
  block.write(name.slice(0, 100), 0, 'latin1');
  block.write('0000644\0', 100);
  block.write('0000000\0', 108);
  block.write('0000000\0', 116);
  block.write(`${size.toString(8).padStart(11, '0')}\0`, 124);
  block.write('00000000000\0', 136);
  block.write(type, 156);
  block.write('ustar\0', 257);
  block.write('00', 263);
  block.write('        ', 148);
  let sum = 0;
  for (const byte of block) sum += byte;
  block.write(`${sum.toString(8).padStart(6, '0')}\0 `, 148);
  return block;
}

function padded(data: Buffer): Buffer[] {
  return [data, Buffer.alloc((512 - (data.length % 512)) % 512)];
}

/** A pax extended header (`x`, or `g` for global) carrying `records`. */
function paxHeader(records: Record<string, string>, type: 'x' | 'g' = 'x'): Buffer[] {
  const body = Buffer.concat(
    Object.entries(records).map(([key, value]) => {
      const text = ` ${key}=${value}\n`;
      let length = Buffer.byteLength(text);
      length += String(length + String(length).length).length;
      return Buffer.from(`${length}${text}`);
    }),
  );
  return [rawHeader('PaxHeader/x', type, body.length), ...padded(body)];
}

function rawFile(name: string, data: Buffer, type = '0'): Buffer[] {
  return [rawHeader(name, type, data.length), ...padded(data)];
}

/** The good pack followed by hand-written blocks, gzipped. */
function packWithRaw(...blocks: Buffer[][]): Buffer {
  return gzipSync(
    Buffer.concat([
      ...rawFile('package/toolpack.yaml', MANIFEST),
      ...rawFile('package/scripts/good.sh', GOOD_TOOL),
      ...blocks.flat(),
      Buffer.alloc(1024),
    ]),
  );
}

/**
 * File names that display as another name (issue 14, finding 14): the tarball reader lets
 * them through (see below), the registry's publish refuses them. [label, the name, code]
 */
const DECEPTIVE_NAMES: [label: string, name: string, code: string][] = [
  ['a right-to-left override', 'scripts/report\u202Efdp.sh', 'E_TARBALL_PATH_CHARACTER'],
  ['a right-to-left isolate in a folder name', 'docs\u2067x/a.md', 'E_TARBALL_PATH_CHARACTER'],
  ['a right-to-left mark', 'scripts/a\u200F.sh', 'E_TARBALL_PATH_CHARACTER'],
  ['an Arabic letter mark', 'scripts/a\u061C.sh', 'E_TARBALL_PATH_CHARACTER'],
  ['a zero-width space', 'scripts/go\u200Bod.sh', 'E_TARBALL_PATH_CHARACTER'],
  ['a zero-width joiner', 'scripts/go\u200Dod.sh', 'E_TARBALL_PATH_CHARACTER'],
  ['a byte-order mark', 'scripts/\uFEFFgood2.sh', 'E_TARBALL_PATH_CHARACTER'],
  ['a soft hyphen', 'scripts/go\u00ADod.sh', 'E_TARBALL_PATH_CHARACTER'],
  ['a tag character', 'scripts/good\u{E0041}.sh', 'E_TARBALL_PATH_CHARACTER'],
  ['a DEL control character', 'scripts/a\u007F.sh', 'E_TARBALL_PATH_CHARACTER'],
  ['a C1 control character (NEL)', 'scripts/a\u0085.sh', 'E_TARBALL_PATH_CHARACTER'],
  ['a no-break space', 'scripts/my\u00A0tool.sh', 'E_TARBALL_PATH_CHARACTER'],
  ['a line separator', 'scripts/a\u2028b.sh', 'E_TARBALL_PATH_CHARACTER'],
  ['a Hangul filler', 'scripts/a\u3164.sh', 'E_TARBALL_PATH_CHARACTER'],
  ['a variation selector', 'scripts/a\uFE0F.sh', 'E_TARBALL_PATH_CHARACTER'],
  ['a composed and a decomposed é', 'docs/caf\u00E9.md', 'E_TARBALL_DUPLICATE'],
];
const deceptivePack = (name: string) =>
  packWith(
    { path: `package/${name}`, data: 'x' },
    // The composed é collides with its decomposed spelling, which this entry adds.
    ...(name.includes('\u00E9') ? [{ path: 'package/docs/cafe\u0301.md', data: 'y' }] : []),
  );

const HOSTILE: [label: string, tarball: () => Buffer, code: string][] = [
  [
    'a path climbing out with ..',
    () => packWith({ path: 'package/../../evil.sh', data: 'x' }),
    'E_TARBALL_PATH',
  ],
  ['an absolute path', () => packWith({ path: '/tmp/evil.sh', data: 'x' }), 'E_TARBALL_PATH'],
  [
    'a path outside package/',
    () => packWith({ path: 'other/evil.sh', data: 'x' }),
    'E_TARBALL_PATH',
  ],
  [
    'a symbolic link',
    () => packWith({ path: 'package/scripts/x.sh', type: 'SymbolicLink', linkpath: '/etc/passwd' }),
    'E_TARBALL_ENTRY_TYPE',
  ],
  [
    'a hard link',
    () =>
      packWith({ path: 'package/scripts/x.sh', type: 'Link', linkpath: 'package/toolpack.yaml' }),
    'E_TARBALL_ENTRY_TYPE',
  ],
  [
    'a character device',
    () => packWith({ path: 'package/tty', type: 'CharacterDevice' }),
    'E_TARBALL_ENTRY_TYPE',
  ],
  [
    'a block device',
    () => packWith({ path: 'package/sda', type: 'BlockDevice' }),
    'E_TARBALL_ENTRY_TYPE',
  ],
  ['a FIFO', () => packWith({ path: 'package/pipe', type: 'FIFO' }), 'E_TARBALL_ENTRY_TYPE'],
  [
    'a file over the per-file cap',
    () => packWith({ path: 'package/big.bin', data: Buffer.alloc(LIMITS.maxFileBytes + 1, 7) }),
    'E_TARBALL_FILE_TOO_LARGE',
  ],
  [
    'more entries than the cap',
    () =>
      packWith(
        ...Array.from({ length: LIMITS.maxEntries }, (_, i) => ({
          path: `package/docs/n${i}.txt`,
          data: 'x',
        })),
      ),
    'E_TARBALL_TOO_MANY_ENTRIES',
  ],
  [
    'a decompression bomb (ratio)',
    () => packWith({ path: 'package/zeros.bin', data: Buffer.alloc(3 * 1024 * 1024) }),
    'E_TARBALL_RATIO',
  ],
  [
    'bytes that are not gzip',
    () => Buffer.from('PK\u0003\u0004 a zip, not a tgz'),
    'E_TARBALL_FORMAT',
  ],
  ['a truncated gzip', () => packWith().subarray(0, 60), 'E_TARBALL_FORMAT'],
  ['a gzip inside a gzip', () => gzipSync(packWith()), 'E_TARBALL_FORMAT'],
  // Two zero blocks: tar's parser calls that no archive at all.
  ['an empty tarball', () => buildTarball([]), 'E_TARBALL'],
  [
    'no toolpack.yaml',
    () => buildTarball([{ path: 'package/scripts/good.sh', data: GOOD_TOOL }]),
    'E_PACK_NO_MANIFEST',
  ],
  [
    'an invalid toolpack.yaml',
    () =>
      buildTarball([
        { path: 'package/toolpack.yaml', data: fixture('invalid-toolpack.yaml') },
        { path: 'package/scripts/good.sh', data: GOOD_TOOL },
      ]),
    'E_MANIFEST',
  ],
  [
    'a source that climbs out of the pack',
    () =>
      buildTarball([
        { path: 'package/toolpack.yaml', data: fixture('escaping-toolpack.yaml') },
        { path: 'package/scripts/good.sh', data: GOOD_TOOL },
      ]),
    'E_PACK_SOURCE_PATH',
  ],
  [
    'a tool with an error diagnostic',
    () => packWith({ path: 'package/scripts/broken.sh', data: BROKEN_TOOL }),
    'E_',
  ],
  [
    'no tools at all',
    () =>
      buildTarball([
        { path: 'package/toolpack.yaml', data: fixture('no-tools-toolpack.yaml') },
        { path: 'package/docs/README.txt', data: 'nothing to serve' },
      ]),
    'E_PACK_NO_TOOLS',
  ],
  [
    'the same entry twice',
    () => packWith({ path: 'package/scripts/good.sh', data: GOOD_TOOL }),
    'E_TARBALL_DUPLICATE',
  ],
  [
    'entries differing only in case',
    () => packWith({ path: 'package/scripts/GOOD.sh', data: GOOD_TOOL }),
    'E_TARBALL_DUPLICATE',
  ],
  [
    'a file that is also a folder',
    () => packWith({ path: 'package/scripts/good.sh/inner.sh', data: GOOD_TOOL }),
    'E_TARBALL_DUPLICATE',
  ],
  [
    'a file name over 255 bytes',
    () => packWith({ path: `package/${'a'.repeat(300)}.sh`, data: 'x' }),
    'E_TARBALL_PATH',
  ],
  [
    'a path nested 40 folders deep',
    () => packWith({ path: `package/${'d/'.repeat(40)}x.sh`, data: 'x' }),
    'E_TARBALL_PATH',
  ],
  // tar reads a pax value up to its NUL, and that is the path checked (and later written).
  [
    'a NUL in a pax name hiding an absolute path',
    () =>
      packWithRaw(
        paxHeader({ path: '/etc/passwd\0package/ok.sh' }),
        rawFile('package/ok.sh', GOOD_TOOL),
      ),
    'E_TARBALL_PATH',
  ],
  [
    'a Windows device name',
    () => packWith({ path: 'package/scripts/con.sh', data: 'x' }),
    'E_TARBALL_PATH',
  ],
  [
    'a backslash in a path',
    () => packWith({ path: 'package\\..\\evil.sh', data: 'x' }),
    'E_TARBALL_PATH',
  ],
  [
    'a pax path overriding a harmless ustar name',
    () =>
      packWithRaw(
        paxHeader({ path: 'package/../../../evil.sh' }),
        rawFile('package/ok.sh', GOOD_TOOL),
      ),
    'E_TARBALL_PATH',
  ],
  [
    'a pax path with a Windows drive',
    () =>
      packWithRaw(paxHeader({ path: 'C:/Windows/evil.sh' }), rawFile('package/ok.sh', GOOD_TOOL)),
    'E_TARBALL_PATH',
  ],
  [
    'a GNU long name to an absolute path',
    () =>
      packWithRaw(
        rawFile('././@LongLink', Buffer.from('/etc/evil.sh\0'), 'L'),
        rawFile('package/ok.sh', GOOD_TOOL),
      ),
    'E_TARBALL_PATH',
  ],
  [
    'a pax size larger than the data',
    () => packWithRaw(paxHeader({ size: '999999' }), rawFile('package/ok.sh', GOOD_TOOL)),
    'E_TARBALL',
  ],
  [
    'a pax linkpath on a symbolic link',
    () =>
      packWithRaw(
        paxHeader({ linkpath: '../../../../etc/passwd' }),
        rawFile('package/link', Buffer.alloc(0), '2'),
      ),
    'E_TARBALL',
  ],
  ...DECEPTIVE_NAMES.map(([label, name, code]): (typeof HOSTILE)[number] => [
    `a file name with ${label}`,
    () => deceptivePack(name),
    code,
  ]),
  [
    'a file name that is not UTF-8',
    () => packWithRaw(rawFile('package/scripts/caf\xE9.sh', GOOD_TOOL)),
    'E_TARBALL_PATH_CHARACTER',
  ],
];

let app: HardeningRegistry;

beforeAll(async () => {
  app = await startHardeningRegistry({
    dataDir: await makeTempDir(),
    token: generateToken(),
    limits: LIMITS,
  });
});

afterAll(async () => {
  await app?.close();
  await removeTempDirs();
});

interface ErrorBody {
  error: { code: string; message: string };
  problems: { severity: string; code: string; message: string; path: string; line?: number }[];
}

describe(`${HOSTILE.length} hostile tarballs`, () => {
  it('are all distinct', () => {
    expect(new Set(HOSTILE.map(([label]) => label)).size).toBe(HOSTILE.length);
    const bytes = HOSTILE.map(([, build]) => build().toString('base64'));
    expect(new Set(bytes).size).toBe(HOSTILE.length);
  });

  it.each(HOSTILE)('answers 422 for %s', async (_label, build, code) => {
    const response = await publish(app.url, app.token, build());
    const body = (await response.json()) as ErrorBody;
    expect(response.status, JSON.stringify(body)).toBe(422);
    expect(body.error.code).toBe('E_PACK_INVALID');
    expect(body.problems.length).toBeGreaterThan(0);
    for (const problem of body.problems) {
      expect(problem.severity).toBe('error');
      expect(problem.message.length).toBeGreaterThan(0);
      expect(typeof problem.path).toBe('string');
    }
    expect(
      body.problems.some((p) => p.code.startsWith(code)),
      JSON.stringify(body.problems),
    ).toBe(true);
  });

  it('really hold the deceptive names, byte for byte', () => {
    for (const [, name] of DECEPTIVE_NAMES)
      expect(gunzipSync(deceptivePack(name)).includes(Buffer.from(name)), name).toBe(true);
  });

  it('names the entry with its invisible characters written out, never raw', async () => {
    const response = await publish(app.url, app.token, deceptivePack('scripts/report\u202Efdp.sh'));
    const body = (await response.json()) as ErrorBody;
    expect(response.status).toBe(422);
    const [problem] = body.problems;
    expect(problem?.message).toContain('package/scripts/report\\u{202E}fdp.sh has U+202E');
    expect(problem?.message).toContain('RIGHT-TO-LEFT OVERRIDE (a bidirectional control)');
    expect(problem?.path).toBe('The tarball:package/scripts/report\\u{202E}fdp.sh');
    expect(JSON.stringify(body)).not.toMatch(/[\u202A-\u202E\u2066-\u2069]/);
  });

  it('answers 403, not 422, for a valid pack named for another owner', async () => {
    const tarball = buildTarball([
      {
        path: 'package/toolpack.yaml',
        data: MANIFEST.toString('utf8').replace('name: hostile', 'name: bob/hostile'),
      },
      { path: 'package/scripts/good.sh', data: GOOD_TOOL },
    ]);
    const response = await publish(app.url, app.token, tarball);
    expect(response.status).toBe(403);
    await response.body?.cancel();
  });

  it('stored nothing of any of them, and left no upload folder behind', async () => {
    for (const name of ['hostile', 'bob/hostile']) {
      const response = await fetch(`${app.url}/v0/packs/${encodeURIComponent(name)}`);
      expect(response.status).toBe(404);
      await response.body?.cancel();
    }
    expect(await listBlobFiles(app.dataDir)).toEqual({ keys: [], other: [] });
    expect(await readdir(path.join(app.dataDir, 'tmp')).catch(() => [])).toEqual([]);
    const health = (await (await fetch(`${app.url}/health`)).json()) as { versions: number };
    expect(health.versions).toBe(0);
  });

  it('ignores the path of a global pax header: every entry keeps its own checked path', async () => {
    const manifest = MANIFEST.toString('utf8').replace('version: 1.0.0', 'version: 0.9.0');
    const tarball = gzipSync(
      Buffer.concat([
        ...paxHeader({ path: '/etc/cron.d/evil' }, 'g'),
        ...rawFile('package/toolpack.yaml', Buffer.from(manifest)),
        ...rawFile('package/scripts/good.sh', GOOD_TOOL),
        Buffer.alloc(1024),
      ]),
    );
    const response = await publish(app.url, app.token, tarball);
    expect(response.status).toBe(201);
    const doc = (await response.json()) as { dist: { tarball: string } };
    const served = new Uint8Array(await (await fetch(doc.dist.tarball)).arrayBuffer());
    expect(inspectTarball(served).files?.map((f) => f.path)).toEqual([
      'toolpack.yaml',
      'scripts/good.sh',
    ]);
  });

  it('still publishes the same pack without its hostile entry', async () => {
    const response = await publish(app.url, app.token, packWith());
    expect(response.status).toBe(201);
    await response.body?.cancel();
  });
});

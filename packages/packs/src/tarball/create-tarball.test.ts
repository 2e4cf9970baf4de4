import {
  chmodSync,
  cpSync,
  mkdirSync,
  mkdtempSync,
  rmSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { checkIntegrity } from '../integrity/integrity.ts';
import { createPackTarball, PACK_MTIME } from './create-tarball.ts';
import { inspectTarball } from './read-tarball.ts';
import { Parser, type ReadEntry } from 'tar';

const sample = path.join(import.meta.dirname, 'fixtures', 'sample-pack');
let work: string;

beforeEach(() => {
  work = mkdtempSync(path.join(os.tmpdir(), 'toolpack-pack-'));
});
afterEach(() => rmSync(work, { recursive: true, force: true }));

/** A copy of the sample pack with the files a pack must never hold added beside it. */
function copyWithSecrets(): string {
  const dir = path.join(work, 'sample');
  cpSync(sample, dir, { recursive: true });
  for (const file of [
    '.env',
    '.env.production',
    'id_rsa',
    'server.pem',
    'deploy.key',
    'old-0.1.0.tgz',
  ])
    writeFileSync(path.join(dir, file), 'secret\n');
  for (const folder of ['.git', 'node_modules/dep', '.toolpack/cache'])
    mkdirSync(path.join(dir, folder), { recursive: true });
  writeFileSync(path.join(dir, '.git', 'config'), '[core]\n');
  writeFileSync(path.join(dir, 'node_modules', 'dep', 'index.js'), '');
  writeFileSync(path.join(dir, '.toolpack', 'cache', 'x.json'), '{}');
  return dir;
}

function listEntries(tarball: Buffer) {
  const entries: {
    path: string;
    mode?: number;
    uid?: number;
    gid?: number;
    mtime?: Date;
    uname?: string;
    type: string;
  }[] = [];
  const parser = new Parser({
    onReadEntry: (entry: ReadEntry) => {
      entries.push({
        path: entry.path,
        mode: entry.mode,
        uid: entry.uid,
        gid: entry.gid,
        mtime: entry.mtime,
        uname: entry.uname,
        type: entry.type,
      });
      entry.resume();
    },
  });
  parser.end(gunzipSync(tarball));
  return entries;
}

describe('createPackTarball', () => {
  it('packs the files under package/, sorted, without ignored or secret files', async () => {
    const packed = await createPackTarball({ dir: copyWithSecrets() });
    expect(packed.diagnostics).toEqual([]);
    expect(packed.files).toEqual([
      'scripts/echo.mjs',
      'scripts/keep.log',
      'toolpack.yaml',
      'tools/get-thing/metadata.yaml',
      'tools/get-thing/script.mjs',
    ]);
    const entries = listEntries(packed.tarball!);
    expect(entries.map((e) => e.path)).toEqual(packed.files.map((f) => `package/${f}`));
    for (const entry of entries) {
      expect(entry).toMatchObject({ type: 'File', mode: 0o644, uid: 0, gid: 0, mtime: PACK_MTIME });
      expect(entry.uname ?? '').toBe('');
    }
    expect(checkIntegrity(packed.tarball!, packed.integrity!)).toBe(true);
    expect(packed.manifest).toMatchObject({ name: 'sample', version: '0.3.0' });
  });

  it('is reproducible: two packs of the same folder are byte-identical, whatever the mtimes and modes', async () => {
    const dir = copyWithSecrets();
    const first = await createPackTarball({ dir });
    utimesSync(path.join(dir, 'scripts', 'echo.mjs'), new Date(), new Date(2001, 1, 1));
    chmodSync(path.join(dir, 'scripts', 'echo.mjs'), 0o755);
    const copy = path.join(work, 'elsewhere', 'copy');
    cpSync(dir, copy, { recursive: true });
    const second = await createPackTarball({ dir });
    const third = await createPackTarball({ dir: copy });
    expect(second.tarball!.equals(first.tarball!)).toBe(true);
    expect(third.tarball!.equals(first.tarball!)).toBe(true);
    expect(third.integrity).toBe(first.integrity);
    // gzip header: no timestamp, OS "unknown".
    expect([...first.tarball!.subarray(4, 10)]).toEqual([0, 0, 0, 0, 2, 0xff]);
  });

  it('round-trips long and non-ASCII paths through the safe reader', async () => {
    const dir = copyWithSecrets();
    const deep = path.join(dir, 'scripts', 'a'.repeat(60), 'b'.repeat(60));
    mkdirSync(deep, { recursive: true });
    writeFileSync(path.join(deep, 'çava-ünïcode.mjs'), '// hi\n');
    const packed = await createPackTarball({ dir });
    const inspected = inspectTarball(packed.tarball!);
    expect(inspected.problems).toEqual([]);
    expect(inspected.files?.map((f) => f.path)).toContain(
      `scripts/${'a'.repeat(60)}/${'b'.repeat(60)}/çava-ünïcode.mjs`,
    );
  });

  it('leaves out links with a warning', async () => {
    const dir = copyWithSecrets();
    symlinkSync('/etc/passwd', path.join(dir, 'scripts', 'passwd'));
    const packed = await createPackTarball({ dir });
    expect(packed.files).not.toContain('scripts/passwd');
    expect(packed.diagnostics.map((d) => d.code)).toEqual(['W_PACK_LINK_SKIPPED']);
  });

  it('refuses a folder that is not a valid pack, with every problem', async () => {
    const dir = path.join(work, 'nothing');
    mkdirSync(dir);
    const missing = await createPackTarball({ dir });
    expect(missing.tarball).toBeUndefined();
    expect(missing.diagnostics.map((d) => d.code)).toEqual(['E_PACK_NO_MANIFEST']);
    writeFileSync(path.join(dir, 'toolpack.yaml'), 'name: Bad Name\nsources: []\n');
    const bad = await createPackTarball({ dir });
    expect(bad.tarball).toBeUndefined();
    expect(bad.diagnostics.map((d) => d.code)).toEqual([
      'E_MANIFEST_FIELD',
      'E_PACK_FIELD_MISSING',
      'E_PACK_FIELD_MISSING',
      'E_PACK_NO_SOURCES',
    ]);
  });

  it('refuses a pack over the size caps before packing it', async () => {
    const dir = copyWithSecrets();
    writeFileSync(path.join(dir, 'scripts', 'big.bin'), Buffer.alloc(2048, 1));
    const packed = await createPackTarball({ dir, limits: { maxFileBytes: 1024 } });
    expect(packed.tarball).toBeUndefined();
    expect(packed.diagnostics.map((d) => d.message)).toEqual([
      'scripts/big.bin is 2.0 KB; one file may be at most 1.0 KB.',
    ]);
  });
});

describe('createPackTarball and deceptive file names', () => {
  it('refuses to pack a file whose name holds a bidirectional control, and names it escaped', async () => {
    const dir = path.join(work, 'sample');
    cpSync(sample, dir, { recursive: true });
    writeFileSync(path.join(dir, 'report\u202Efdp.sh'), 'echo hi\n');
    const packed = await createPackTarball({ dir });
    expect(packed.tarball).toBeUndefined();
    const problem = packed.diagnostics.find((d) => d.code === 'E_TARBALL_PATH_CHARACTER');
    expect(problem?.message).toMatch(
      /^report\\u\{202E\}fdp\.sh has U\+202E RIGHT-TO-LEFT OVERRIDE/,
    );
  });
});

import { readFile } from 'node:fs/promises';
import { gzipSync } from 'node:zlib';
import { loadTar } from '../lazy-dependencies.ts';
import { createDiagnostic, type Diagnostic } from '@toolpack/core';
import { computeIntegrity } from '../integrity/integrity.ts';
import { MANIFEST_FILE, readManifest } from '../manifest/parse-manifest.ts';
import type { PackManifest } from '../manifest/manifest-schema.ts';
import {
  NAME_CHARACTERS_RULE,
  describeNameCharacters,
  escapeFileName,
} from './file-name-characters.ts';
import { formatBytes, resolveLimits, type PackLimits } from './limits.ts';
import { listPackFiles } from './list-pack-files.ts';

/** npm's fixed mtime for reproducible tarballs (some tools mistrust a zero mtime). */
export const PACK_MTIME = new Date('1985-10-26T08:15:00.000Z');
const FILE_MODE = 0o644;
const ENTRY_PREFIX = 'package/';

export interface CreatePackOptions {
  /** The pack folder (holds toolpack.yaml). */
  dir: string;
  limits?: Partial<PackLimits>;
}

export interface PackTarball {
  /** Undefined when a diagnostic is an error. */
  tarball?: Buffer;
  /** `sha512-<base64>` of `tarball`. */
  integrity?: string;
  manifest?: PackManifest;
  /** Packed paths, relative to the pack folder. */
  files: string[];
  /** Unpacked size of the files. */
  unpackedSize: number;
  diagnostics: Diagnostic[];
}

/**
 * Makes a pack's `.tgz` reproducibly: entries sorted, every entry under `package/`, fixed
 * mtime, mode 0644, uid/gid 0 and no user names, only regular files (no links, no folders),
 * gzip with a zero timestamp and "unknown" OS byte. Two packs of the same files are
 * byte-identical on any machine running the same zlib.
 */
export async function createPackTarball(options: CreatePackOptions): Promise<PackTarball> {
  const limits = resolveLimits(options.limits);
  const read = await readManifest(options.dir, { kind: 'pack' });
  const diagnostics: Diagnostic[] = [...read.diagnostics];
  if (!read.exists) {
    diagnostics.push(
      createDiagnostic(
        'error',
        'E_PACK_NO_MANIFEST',
        `${options.dir} has no ${MANIFEST_FILE}, so it is not a pack.`,
        { path: read.file },
        'Create toolpack.yaml with name, version, description, tags and sources.',
      ),
    );
  }
  const listed = await listPackFiles(options.dir);
  diagnostics.push(...listed.diagnostics);
  const files = listed.files.map((file) => file.path);
  const unpackedSize = listed.files.reduce((sum, file) => sum + file.size, 0);
  const over = (code: Diagnostic['code'], message: string) =>
    diagnostics.push(
      createDiagnostic(
        'error',
        code,
        message,
        { path: options.dir },
        'Leave large or generated files out with .toolpackignore.',
      ),
    );
  if (listed.files.length > limits.maxEntries)
    over(
      'E_PACK_TOO_MANY_FILES',
      `The pack has ${listed.files.length} files; the limit is ${limits.maxEntries}.`,
    );
  if (unpackedSize > limits.maxTotalBytes)
    over(
      'E_PACK_TOO_LARGE',
      `The pack's files total ${formatBytes(unpackedSize)}; the limit is ${formatBytes(limits.maxTotalBytes)}.`,
    );
  for (const file of listed.files) {
    const deceptive = describeNameCharacters(file.path);
    if (deceptive !== undefined)
      diagnostics.push(
        createDiagnostic(
          'error',
          'E_TARBALL_PATH_CHARACTER',
          `${escapeFileName(file.path)} ${deceptive}: ${NAME_CHARACTERS_RULE}`,
          { path: options.dir },
          'Rename the file with visible characters, or leave it out with .toolpackignore.',
        ),
      );
    if (file.size > limits.maxFileBytes)
      over(
        'E_PACK_FILE_TOO_LARGE',
        `${file.path} is ${formatBytes(file.size)}; one file may be at most ${formatBytes(limits.maxFileBytes)}.`,
      );
  }
  if (read.manifest === undefined || diagnostics.some((d) => d.severity === 'error'))
    return { files, unpackedSize, diagnostics };

  const blocks: Buffer[] = [];
  for (const file of listed.files) {
    const body = await readFile(file.absolute);
    blocks.push(...encodeFileEntry(`${ENTRY_PREFIX}${file.path}`, body));
  }
  blocks.push(Buffer.alloc(1024));
  const tarball = gzipReproducibly(Buffer.concat(blocks));
  if (tarball.length > limits.maxTarballBytes)
    over(
      'E_PACK_TOO_LARGE',
      `The tarball is ${formatBytes(tarball.length)}; the limit is ${formatBytes(limits.maxTarballBytes)}.`,
    );
  if (diagnostics.some((d) => d.severity === 'error')) return { files, unpackedSize, diagnostics };
  return {
    tarball,
    integrity: computeIntegrity(tarball),
    manifest: read.manifest,
    files,
    unpackedSize,
    diagnostics,
  };
}

/** One regular-file entry: a pax header first when the path does not fit ustar's fields. */
export function encodeFileEntry(entryPath: string, body: Buffer): Buffer[] {
  const data = {
    path: entryPath,
    mode: FILE_MODE,
    uid: 0,
    gid: 0,
    uname: '',
    gname: '',
    size: body.length,
    mtime: PACK_MTIME,
    type: 'File' as const,
  };
  const header = new (loadTar().Header)(data);
  const blocks: Buffer[] = [];
  if (header.encode())
    blocks.push(new (loadTar().Pax)({ path: entryPath, mtime: PACK_MTIME }).encode());
  blocks.push(header.block as Buffer);
  if (body.length > 0) {
    blocks.push(body);
    const padding = (512 - (body.length % 512)) % 512;
    if (padding > 0) blocks.push(Buffer.alloc(padding));
  }
  return blocks;
}

export function gzipReproducibly(tar: Buffer): Buffer {
  const gzipped = gzipSync(tar, { level: 9 });
  // Bytes 4-7 (mtime) are already zero; byte 9 names the OS zlib was built for.
  gzipped[9] = 0xff;
  return gzipped;
}

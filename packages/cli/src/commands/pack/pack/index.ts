import { randomBytes } from 'node:crypto';
import { mkdir, rename, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Diagnostic } from '@toolpack/core';
import { toFileStem } from '@toolpack/packs';
import { displayPath } from '../../../tool-view.ts';
import { buildPack } from '../build-pack.ts';

export interface PackFolderOptions {
  cwd: string;
  /** The pack folder (holds toolpack.yaml), relative to `cwd`. */
  dir: string;
  /** The .tgz to write, or a folder for `<name>-<version>.tgz` (default: `cwd`). */
  out?: string;
  /**
   * The pack's problems, once it is packed and before the .tgz is written (which can still
   * fail): the problems are worth seeing either way.
   */
  onPacked?: (diagnostics: Diagnostic[]) => void;
}

/** What `mcp pack pack --json` prints. */
export interface PackedFolder {
  name: string;
  version: string;
  /** The .tgz written, relative to `cwd`. */
  file: string;
  integrity: string;
  size: number;
  unpackedSize: number;
  files: string[];
  tools: string[];
}

export interface PackFolderResult {
  /** Undefined when the pack has an error (see `onPacked`): no tarball is written then. */
  packed?: PackedFolder & { description: string };
}

/** Makes a reproducible .tgz of a pack folder and writes it. */
export async function packFolder(options: PackFolderOptions): Promise<PackFolderResult> {
  const { cwd } = options;
  const { diagnostics, built } = await buildPack(path.resolve(cwd, options.dir));
  options.onPacked?.(diagnostics);
  if (built === undefined) return {};
  const { tarball: packed, tools } = built;
  const fileName = `${toFileStem(packed.manifest.name)}-${packed.manifest.version}.tgz`;
  let target = path.resolve(cwd, options.out ?? '.');
  const isDir =
    options.out === undefined ||
    options.out.endsWith('/') ||
    (await stat(target).then(
      (s) => s.isDirectory(),
      () => false,
    ));
  if (isDir) target = path.join(target, fileName);
  await mkdir(path.dirname(target), { recursive: true });
  // Written under a new name and renamed: a link planted at the tarball's name (by a pack
  // granted that folder) is replaced, never written through.
  const temporary = `${target}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
  await writeFile(temporary, packed.tarball, { flag: 'wx' });
  await rename(temporary, target);
  return {
    packed: {
      name: packed.manifest.name,
      version: packed.manifest.version,
      file: displayPath(target, cwd),
      integrity: packed.integrity,
      size: packed.tarball.length,
      unpackedSize: packed.unpackedSize,
      files: packed.files,
      tools,
      description: packed.manifest.description,
    },
  };
}

import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { ToolpackError } from '@toolpack/core';
import type { PackCache } from '../cache/pack-cache.ts';
import { assertIntegrity } from '../integrity/integrity.ts';
import { MANIFEST_FILE, parseManifest } from '../manifest/parse-manifest.ts';
import type { PackManifest } from '../manifest/manifest-schema.ts';
import type { ProgressListener } from '../registry/registry-client.ts';
import type { PackLimits } from '../tarball/limits.ts';
import type { ModulePackage } from '../nuget/nupkg-to-pack.ts';
import type { TarballFile } from '../tarball/read-tarball.ts';
import { readPackArchive } from './read-pack-archive.ts';
import { PACKS_DIR } from './project-files.ts';

/** Lets the caller show progress for one download (the CLI does after a second). */
export type DownloadListener = (info: {
  name: string;
  version: string;
  size?: number;
}) => ProgressListener | undefined;

/**
 * The tarball with `integrity`: from the cache when it holds it, else downloaded and checked
 * against `integrity`. `offline` never downloads. Call `remember` once the tarball has also
 * passed `stagePack`, so the cache only ever holds tarballs that were installed.
 */
export async function fetchVerifiedTarball(options: {
  name: string;
  version: string;
  integrity: string;
  size?: number;
  cache?: PackCache;
  offline?: boolean;
  download: (onProgress: ProgressListener | undefined) => Promise<Buffer>;
  onDownload?: DownloadListener;
}): Promise<{ bytes: Buffer; fromCache: boolean; remember: () => Promise<void> }> {
  const label = `${options.name}@${options.version}`;
  const cached = await options.cache?.read(options.integrity);
  if (cached !== undefined)
    return { bytes: cached, fromCache: true, remember: async () => undefined };
  if (options.offline) {
    throw new ToolpackError(
      'E_OFFLINE',
      `${label} is not in the pack cache${options.cache ? ` (${options.cache.dir})` : ''}, and --offline forbids downloading it.`,
      {
        hint: 'Run the same command once without --offline to fill the cache.',
      },
    );
  }
  const onProgress = options.onDownload?.({
    name: options.name,
    version: options.version,
    ...(options.size === undefined ? {} : { size: options.size }),
  });
  const bytes = await options.download(onProgress);
  assertIntegrity(bytes, options.integrity, `The tarball of ${label}`);
  return {
    bytes,
    fromCache: false,
    remember: async () => {
      await options.cache?.write(options.integrity, bytes);
    },
  };
}

export interface StagedPack {
  /** A fresh folder under `.toolpack/packs/` holding the unpacked pack. */
  dir: string;
  manifest: PackManifest;
  fileCount: number;
}

/**
 * Checks a verified tarball (or a module's .nupkg) entirely in memory (paths, types, caps, and that its
 * toolpack.yaml is the pack and version asked for), and only then writes it into a fresh
 * temporary folder next to its destination, ready to be renamed into place.
 */
export async function stagePack(options: {
  projectDir: string;
  bytes: Uint8Array;
  name: string;
  version: string;
  /** A module's required modules, checked and installed beside it. */
  modules?: readonly ModulePackage[];
  limits?: Partial<PackLimits>;
}): Promise<StagedPack> {
  const files = await readPackArchive(options.bytes, {
    name: options.name,
    version: options.version,
    ...(options.modules ? { modules: options.modules } : {}),
    ...(options.limits ? { limits: options.limits } : {}),
  });
  const manifest = checkPackedManifest(files, options.name, options.version);
  const parent = path.join(options.projectDir, PACKS_DIR);
  await mkdir(parent, { recursive: true });
  const dir = await mkdtemp(path.join(parent, '.staging-'));
  try {
    await writePackFiles(files, dir);
  } catch (error) {
    await rm(dir, { recursive: true, force: true });
    throw error;
  }
  return { dir, manifest, fileCount: files.length };
}

/**
 * The tarball's toolpack.yaml, which must be a valid pack manifest naming `name@version`:
 * `E_TARBALL_UNSAFE` without one or with an invalid one, `E_TARBALL_MISMATCH` for another pack.
 */
export function checkPackedManifest(
  files: readonly TarballFile[],
  name: string,
  version: string,
): PackManifest {
  const label = `${name}@${version}`;
  const file = files.find((f) => f.path === MANIFEST_FILE);
  if (file === undefined) {
    throw new ToolpackError(
      'E_TARBALL_UNSAFE',
      `The tarball of ${label} has no ${MANIFEST_FILE}; it is not a pack. Nothing was installed.`,
    );
  }
  const parsed = parseManifest(file.data.toString('utf8'), {
    path: `${label}/${MANIFEST_FILE}`,
    kind: 'pack',
  });
  if (parsed.manifest === undefined) {
    const errors = parsed.diagnostics.filter((d) => d.severity === 'error');
    throw new ToolpackError(
      'E_TARBALL_UNSAFE',
      `The ${MANIFEST_FILE} inside the tarball of ${label} is not valid, so nothing was installed:\n${errors.map((d) => `  - ${d.message}`).join('\n')}`,
    );
  }
  if (parsed.manifest.name !== name || parsed.manifest.version !== version) {
    throw new ToolpackError(
      'E_TARBALL_MISMATCH',
      `The tarball for ${label} holds ${parsed.manifest.name}@${parsed.manifest.version}; nothing was installed.`,
      { hint: 'The registry served the wrong tarball; tell its owner.' },
    );
  }
  return parsed.manifest;
}

/** Writes checked files into `dir`, which this process just created (so it holds no links). */
export async function writePackFiles(files: readonly TarballFile[], dir: string): Promise<void> {
  const made = new Set<string>();
  for (const file of files) {
    const target = path.join(dir, ...file.path.split('/'));
    const parent = path.dirname(target);
    if (!made.has(parent)) {
      await mkdir(parent, { recursive: true });
      made.add(parent);
    }
    // `wx`: never follow or replace anything already there.
    await writeFile(target, file.data, { flag: 'wx', mode: 0o644 });
  }
}

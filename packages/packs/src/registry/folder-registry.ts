import { readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { ToolpackError, type Diagnostic } from '@toolpack/core';
import { MANIFEST_FILE, readManifest } from '../manifest/parse-manifest.ts';
import type { PackManifest } from '../manifest/manifest-schema.ts';
import { createPackTarball } from '../tarball/create-tarball.ts';
import type { PackLimits } from '../tarball/limits.ts';
import type { DescribePackTools, DownloadOptions, RegistryClient } from './registry-client.ts';
import type {
  PackDist,
  PackDoc,
  PackToolSummary,
  SearchQuery,
  SearchResponse,
  VersionDoc,
} from './registry-types.ts';
import { searchPacks } from './search-packs.ts';
import { buildPackDoc, buildVersionDoc } from './version-doc.ts';

export interface FolderRegistryOptions {
  /** A folder whose sub-folders with a toolpack.yaml are packs (`registry/packs`). */
  dir: string;
  /** Lists a pack's tools (the CLI passes discovery); without it packs show no tools. */
  describeTools?: DescribePackTools;
  limits?: Partial<PackLimits>;
}

export interface FolderRegistryClient extends RegistryClient {
  readonly kind: 'folder';
  /** Sub-folders that are not valid packs, with why. */
  problems(): Promise<Diagnostic[]>;
}

interface FolderPack {
  dir: string;
  manifest: PackManifest;
}

/**
 * A registry that is a plain folder of pack sources: each sub-folder with a toolpack.yaml is
 * one pack at the version its manifest states. Tarballs are packed on demand (reproducibly,
 * so the integrity recorded in a lockfile still matches the next time).
 */
export function createFolderRegistry(options: FolderRegistryOptions): FolderRegistryClient {
  const root = path.resolve(options.dir);
  let scanned: Promise<{ packs: Map<string, FolderPack>; problems: Diagnostic[] }> | undefined;
  const docs = new Map<string, Promise<VersionDoc>>();
  const tools = new Map<string, Promise<PackToolSummary[]>>();

  const scan = () => {
    scanned ??= (async () => {
      const packs = new Map<string, FolderPack>();
      const problems: Diagnostic[] = [];
      let entries;
      try {
        entries = await readdir(root, { withFileTypes: true });
      } catch {
        throw new ToolpackError(
          'E_REGISTRY_MISSING',
          `The registry folder ${root} does not exist.`,
          {
            hint: 'Point --registry at a folder of packs (each sub-folder has a toolpack.yaml) or at a registry URL.',
          },
        );
      }
      const dirs = entries
        .filter((entry) => entry.isDirectory() && !entry.name.startsWith('.'))
        .map((entry) => entry.name)
        .sort();
      for (const name of dirs) {
        const dir = path.join(root, name);
        const read = await readManifest(dir, { kind: 'pack' });
        if (!read.exists) continue;
        if (read.manifest === undefined) {
          problems.push(...read.diagnostics.filter((d) => d.severity === 'error'));
          continue;
        }
        packs.set(read.manifest.name, { dir, manifest: read.manifest });
      }
      return { packs, problems };
    })();
    return scanned;
  };

  const find = async (name: string): Promise<FolderPack> => {
    const pack = (await scan()).packs.get(name);
    if (pack === undefined) {
      throw new ToolpackError(
        'E_PACK_NOT_FOUND',
        `No pack named ${name} in the registry folder ${root}.`,
        {
          hint: `Each pack is a sub-folder with a ${MANIFEST_FILE} whose name: is the pack's name; list them with mcp pack search --registry ${root}.`,
        },
      );
    }
    return pack;
  };

  const describe = (pack: FolderPack): Promise<PackToolSummary[]> => {
    let listed = tools.get(pack.manifest.name);
    if (listed === undefined) {
      listed = options.describeTools
        ? options.describeTools(pack.dir, pack.manifest)
        : Promise.resolve([]);
      tools.set(pack.manifest.name, listed);
    }
    return listed;
  };

  const versionDoc = (pack: FolderPack): Promise<VersionDoc> => {
    let doc = docs.get(pack.manifest.name);
    if (doc === undefined) {
      doc = (async () => {
        const packed = await packFolder(pack.dir, options.limits);
        return buildVersionDoc({
          manifest: pack.manifest,
          tools: await describe(pack),
          tarball: pathToFileURL(pack.dir).href,
          integrity: packed.integrity,
          size: packed.tarball.length,
          fileCount: packed.files.length,
        });
      })();
      docs.set(pack.manifest.name, doc);
    }
    return doc;
  };

  return {
    kind: 'folder',
    location: root,
    async problems() {
      return (await scan()).problems;
    },
    async search(query: SearchQuery): Promise<SearchResponse> {
      const { packs } = await scan();
      const searchable = await Promise.all(
        [...packs.values()].map(async (pack) => {
          const listed = await describe(pack);
          return {
            name: pack.manifest.name,
            version: pack.manifest.version,
            description: pack.manifest.description,
            tags: pack.manifest.tags,
            toolCount: listed.length,
            tools: listed,
          };
        }),
      );
      return searchPacks(searchable, query);
    },
    async getPack(name: string): Promise<PackDoc> {
      return buildPackDoc([await versionDoc(await find(name))]);
    },
    async getVersion(name: string, version: string): Promise<VersionDoc> {
      const pack = await find(name);
      if (pack.manifest.version !== version) {
        throw new ToolpackError(
          'E_PACK_NOT_FOUND',
          `${name} has no version ${version} in the registry folder ${root} (it holds ${pack.manifest.version}).`,
        );
      }
      return versionDoc(pack);
    },
    async download(dist: PackDist, downloadOptions: DownloadOptions = {}): Promise<Buffer> {
      const bytes = await downloadFolderTarball(dist.tarball, root, options.limits);
      downloadOptions.onProgress?.(bytes.length, bytes.length);
      return bytes;
    },
  };
}

/** Packs `dir` for a folder registry; its problems become one error (the pack is not usable). */
export async function packFolder(
  dir: string,
  limits?: Partial<PackLimits>,
): Promise<{ tarball: Buffer; integrity: string; files: string[] }> {
  const packed = await createPackTarball({ dir, ...(limits === undefined ? {} : { limits }) });
  if (packed.tarball === undefined || packed.integrity === undefined) {
    const errors = packed.diagnostics.filter((d) => d.severity === 'error');
    throw new ToolpackError(
      'E_PACK_INVALID',
      `The pack folder ${dir} cannot be packed:\n${errors.map((d) => `  - ${d.message}`).join('\n')}`,
      { hint: 'Run mcp pack pack in that folder to see every problem.' },
    );
  }
  return { tarball: packed.tarball, integrity: packed.integrity, files: packed.files };
}

/**
 * Packs the folder a `file:` reference names: `file:///abs/dir` or `file:relative/dir`
 * (relative to `baseDir`, as toolpack.lock records folder-registry packs).
 */
export async function downloadFolderTarball(
  reference: string,
  baseDir: string,
  limits?: Partial<PackLimits>,
): Promise<Buffer> {
  const dir = fileReferenceToPath(reference, baseDir);
  const isDir = await stat(dir).then(
    (s) => s.isDirectory(),
    () => false,
  );
  if (!isDir) {
    throw new ToolpackError('E_DOWNLOAD', `The pack folder ${dir} (${reference}) does not exist.`, {
      hint: 'The folder registry moved or the lockfile is stale; run mcp pack update --registry <folder>.',
    });
  }
  return (await packFolder(dir, limits)).tarball;
}

export function fileReferenceToPath(reference: string, baseDir: string): string {
  if (reference.startsWith('file://')) return fileURLToPath(reference);
  return path.resolve(baseDir, reference.replace(/^file:/, ''));
}

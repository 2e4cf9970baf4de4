import { mkdir, mkdtemp, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { loadSemver } from '../lazy-dependencies.ts';
import {
  ToolpackError,
  isToolpackError,
  type Diagnostic,
  type PackPermissions,
  type SourceSpec,
} from '@toolpack/core';
import { createPackCache, defaultCacheDir, type PackCache } from '../cache/pack-cache.ts';
import { integrityToFileName } from '../integrity/integrity.ts';
import type { PackManifest } from '../manifest/manifest-schema.ts';
import { defaultAlias, isValidPackName, isValidRange } from '../names/pack-names.ts';
import { assertDocPermissions } from '../project/check-doc-permissions.ts';
import { listPackSources } from '../project/project-packs.ts';
import { randomSuffix } from '../project/project-files.ts';
import {
  checkPackedManifest,
  fetchVerifiedTarball,
  writePackFiles,
  type DownloadListener,
} from '../project/stage-pack.ts';
import { describeDifferences, findInstalledDifferences } from '../project/verify-installed.ts';
import { RegistryError } from '../registry/registry-error.ts';
import type { RegistryClient } from '../registry/registry-client.ts';
import type { VersionDoc } from '../registry/registry-types.ts';
import { readVersionDoc, selectVersion } from '../resolve/resolve-version.ts';
import type { PackLimits } from '../tarball/limits.ts';
import type { TarballFile } from '../tarball/read-tarball.ts';
import type { ModulePackage } from '../nuget/nupkg-to-pack.ts';
import type { LockedModule } from '../nuget/resolve-required-modules.ts';
import { readPackArchive } from '../project/read-pack-archive.ts';
import { resolvePackModules } from '../project/required-modules.ts';

/** The folder under the cache root that holds unpacked packs served without a project. */
export const SERVED_DIR = 'served';
/** Inside a served version's folder: the unpacked pack, and the record of where it came from. */
const PACK_FOLDER = 'pack';
const RECORD_FILE = 'served.json';

export interface FetchServedPackOptions {
  name: string;
  /** A semver range; absent, the pack's latest version. Resolved as `mcp pack add` does. */
  range?: string;
  registry: RegistryClient;
  /**
   * The tool paths are made relative to this folder, the project root the server runs the
   * tools in (`project` permissions mean it).
   */
  projectDir: string;
  /** The user cache root (default `defaultCacheDir(env)`): tarballs in `packs/`, packs in `served/`. */
  cacheDir?: string;
  env?: NodeJS.ProcessEnv;
  limits?: Partial<PackLimits>;
  onDownload?: DownloadListener;
}

export interface ServedPack {
  name: string;
  version: string;
  /** The pack's short name: its tools are served as `<alias>_<tool>`, as in a project. */
  alias: string;
  integrity: string;
  /** Absolute: the unpacked pack, which its tools may read and never write. */
  dir: string;
  manifest: PackManifest;
  /** What its tools get: what its toolpack.yaml declares (and the registry stated). */
  permissions: PackPermissions;
  /** Discovery sources, relative to `projectDir`, each confined to `permissions`. */
  sources: SourceSpec[];
  /** Sources of the pack that are not served (a path leaving the pack). */
  diagnostics: Diagnostic[];
  /**
   * `download`: fetched and unpacked now; `cache`: an unpacked copy checked again and reused;
   * `offline`: the registry could not be asked (`registryProblem` says why), so the highest
   * cached version matching the range was taken without knowing of newer ones or yanks.
   */
  origin: 'download' | 'cache' | 'offline';
  registryProblem?: string;
  /** The cached copy had changed since it was unpacked (how), so it was unpacked again. */
  replaced?: string;
  deprecated?: string;
  /** Named exactly although yanked (a range never resolves to a yanked version). */
  yanked?: boolean;
}

/** What a served version's folder records beside the pack: enough to check it again offline. */
interface ServedRecord {
  name: string;
  version: string;
  integrity: string;
  /** The registry it came from (another registry may have another pack of the same name). */
  registry: string;
  /**
   * A PowerShell module's RequiredModules from its NuGet feed, unpacked beside it: their
   * packages are in the tarball cache under these integrities, to check the folder again.
   */
  modules?: LockedModule[];
}

/**
 * `mcp serve --pack`: one pack version unpacked into the user cache and checked, without a
 * project. Resolves `range` as `mcp pack add` does, downloads the tarball (or takes it from
 * the tarball cache), verifies its integrity, the tarball's safety and that its toolpack.yaml
 * states the permissions the registry shows, then unpacks it into
 * `<cache>/served/<name>/<version>-<digest prefix>/pack`. The folder is built aside and renamed
 * into place, so a half-written one is never served and two servers starting at once both end
 * up with one good copy. A folder already there is reused only after it is compared, file by
 * file, with its verified tarball (a changed one is replaced). When the registry cannot be
 * reached, the highest cached version of the pack from that registry matching `range` is
 * served instead (`origin: 'offline'`). From a NuGet feed (`openNuGetFeed`), the pack is a
 * PowerShell module's `.nupkg`, read as `mcp pack add` reads it, with its RequiredModules
 * resolved from the same feed beside it.
 */
export async function fetchServedPack(options: FetchServedPackOptions): Promise<ServedPack> {
  const { name, range, registry } = options;
  if (!isValidPackName(name)) {
    throw new ToolpackError('E_USAGE', `"${name}" is not a valid pack name.`, {
      hint: 'Pack names are lowercase letters, digits and hyphens, optionally owner/name.',
    });
  }
  if (range !== undefined && !isValidRange(range))
    throw new ToolpackError('E_USAGE', `"${range}" is not a valid semver range.`);
  const root = options.cacheDir ?? defaultCacheDir(options.env);
  const cache = createPackCache({ dir: root });
  const packFolder = path.join(root, SERVED_DIR, ...name.split('/'));

  let doc: VersionDoc;
  try {
    const pack = await registry.getPack(name);
    // An exact version is what a client's configuration pins, like a lockfile: a yank keeps
    // it out of ranges, not away from those already pinned to it.
    const version =
      range !== undefined && pack.versions[range]?.yanked === true
        ? range
        : selectVersion(pack, range);
    doc = await readVersionDoc(registry, pack, version);
  } catch (error) {
    if (!isRegistryDown(error)) throw error;
    return serveOffline({ ...options, root, packFolder, cache, problem: error });
  }

  const expected: ServedRecord = {
    name,
    version: doc.version,
    integrity: doc.dist.integrity,
    registry: registry.location,
  };
  const folderName = versionFolderName(expected);
  if (folderName === undefined) {
    throw new ToolpackError(
      'E_INTEGRITY',
      `The registry gives ${name}@${doc.version} no sha512 integrity, so it cannot be checked and was not served.`,
      { hint: 'The registry must give dist.integrity as "sha512-<base64>".' },
    );
  }
  const folder = path.join(packFolder, folderName);
  const reused = await checkServedFolder(folder, expected, cache, options.limits);
  if (reused.manifest !== undefined) {
    assertDocPermissions(doc, reused.manifest.permissions, reused.manifest.interpreters);
    return describeServedPack(options, expected, folder, reused.manifest, 'cache', doc);
  }

  const { bytes, remember } = await fetchVerifiedTarball({
    name,
    version: doc.version,
    integrity: doc.dist.integrity,
    size: doc.dist.size,
    cache,
    download: (onProgress) =>
      registry.download(doc.dist, {
        ...(onProgress ? { onProgress } : {}),
        ...(options.limits ? { limits: options.limits } : {}),
      }),
    ...(options.onDownload ? { onDownload: options.onDownload } : {}),
  });
  // A module from a NuGet feed brings its RequiredModules from the same feed, as pack add does.
  const modules = await resolvePackModules({
    registry,
    bytes,
    name,
    version: doc.version,
    projectDir: options.projectDir,
    cache,
    ...(options.limits ? { limits: options.limits } : {}),
  });
  const files = await readPackArchive(bytes, {
    name,
    version: doc.version,
    modules: modules.packages,
    ...(options.limits ? { limits: options.limits } : {}),
  });
  const manifest = checkPackedManifest(files, name, doc.version);
  assertDocPermissions(doc, manifest.permissions, manifest.interpreters);
  // Kept before the folder appears: reusing a folder later means checking it against this.
  await remember();
  await modules.remember();
  const record: ServedRecord =
    modules.locked.length === 0 ? expected : { ...expected, modules: modules.locked };
  await placeServedFolder({ folder, files, record, cache, limits: options.limits });
  return {
    ...describeServedPack(options, expected, folder, manifest, 'download', doc),
    ...(reused.differences === undefined
      ? {}
      : { replaced: describeDifferences(reused.differences) }),
  };
}

/**
 * A registry that cannot answer (no connection, a timeout, a 5xx from its proxy) is worked
 * around from the cache; one that answers no (404, a bad range) is not.
 */
function isRegistryDown(error: unknown): boolean {
  if (error instanceof RegistryError) return error.status >= 500;
  return isToolpackError(error) && error.code === 'E_REGISTRY_UNREACHABLE';
}

/**
 * `<version>-<first 16 hex digits of the sha512>`: one folder per published tarball (undefined
 * without a sha512, which `fetchVerifiedTarball` refuses anyway).
 */
function versionFolderName(record: ServedRecord): string | undefined {
  const file = integrityToFileName(record.integrity);
  return file === undefined
    ? undefined
    : `${record.version}-${file.slice('sha512-'.length, 'sha512-'.length + 16)}`;
}

/**
 * The manifest of a served folder that is exactly its recorded tarball (which the tarball
 * cache checks against the integrity); undefined when the folder is missing, records another
 * pack, or differs (`differences` says how), or when its tarball left the cache.
 */
async function checkServedFolder(
  folder: string,
  expected: ServedRecord,
  cache: PackCache,
  limits: Partial<PackLimits> | undefined,
): Promise<{ manifest?: PackManifest; differences?: string[] }> {
  const record = await readRecord(folder);
  if (record === undefined || !isSameRecord(record, expected)) return {};
  const bytes = await cache.read(expected.integrity);
  if (bytes === undefined) return {};
  const modules: ModulePackage[] = [];
  for (const module of record.modules ?? []) {
    const data = await cache.read(module.integrity);
    if (data === undefined) return {};
    modules.push({ id: module.id, version: module.version, bytes: data });
  }
  const files = await readPackArchive(bytes, {
    name: expected.name,
    version: expected.version,
    modules,
    ...(limits ? { limits } : {}),
  });
  const manifest = checkPackedManifest(files, expected.name, expected.version);
  const differences = await findInstalledDifferences(path.join(folder, PACK_FOLDER), files).catch(
    () => ['missing its folder'],
  );
  return differences.length === 0 ? { manifest } : { differences };
}

async function readRecord(folder: string): Promise<ServedRecord | undefined> {
  try {
    const parsed: unknown = JSON.parse(await readFile(path.join(folder, RECORD_FILE), 'utf8'));
    const record = parsed as Partial<ServedRecord>;
    return typeof record.name === 'string' &&
      typeof record.version === 'string' &&
      typeof record.integrity === 'string' &&
      typeof record.registry === 'string' &&
      (record.modules === undefined || isModuleList(record.modules))
      ? (record as ServedRecord)
      : undefined;
  } catch {
    return undefined;
  }
}

function isModuleList(value: unknown): value is LockedModule[] {
  return (
    Array.isArray(value) &&
    value.every((module: Partial<LockedModule> | null) =>
      ['id', 'version', 'integrity'].every(
        (key) => typeof module?.[key as keyof LockedModule] === 'string',
      ),
    )
  );
}

function isSameRecord(a: ServedRecord, b: ServedRecord): boolean {
  return a.name === b.name && a.version === b.version && a.integrity === b.integrity;
}

/**
 * Writes the pack and its record into a fresh folder beside `folder` and renames it into
 * place. When another server put a folder there first, that one is kept if it checks out;
 * a damaged one is moved aside and removed, and ours takes its place.
 */
async function placeServedFolder(options: {
  folder: string;
  files: readonly TarballFile[];
  record: ServedRecord;
  cache: PackCache;
  limits: Partial<PackLimits> | undefined;
}): Promise<void> {
  const { folder, files, record } = options;
  const parent = path.dirname(folder);
  let staging: string;
  try {
    await mkdir(parent, { recursive: true });
    staging = await mkdtemp(path.join(parent, '.staging-'));
  } catch (error) {
    throw new ToolpackError(
      'E_USAGE',
      `Cannot unpack ${record.name}@${record.version} into the pack cache at ${parent}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}.`,
      { hint: 'Point TOOLPACK_CACHE_DIR at a folder you can write.', cause: error },
    );
  }
  try {
    await writePackFiles(files, path.join(staging, PACK_FOLDER));
    await writeFile(path.join(staging, RECORD_FILE), `${JSON.stringify(record, null, 2)}\n`, {
      flag: 'wx',
    });
    for (let attempt = 0; ; attempt++) {
      try {
        await rename(staging, folder);
        return;
      } catch (error) {
        if (!isTakenError(error) || attempt >= 2) throw error;
      }
      const there = await checkServedFolder(folder, record, options.cache, options.limits);
      if (there.manifest !== undefined) return;
      const aside = path.join(parent, `.damaged-${randomSuffix()}`);
      await rename(folder, aside).catch(() => undefined);
      await rm(aside, { recursive: true, force: true });
    }
  } finally {
    await rm(staging, { recursive: true, force: true }).catch(() => undefined);
  }
}

/** rename() onto a folder that exists (another server got there first). */
function isTakenError(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException).code;
  return code === 'ENOTEMPTY' || code === 'EEXIST' || code === 'EPERM' || code === 'EACCES';
}

/** The registry is down: the highest cached version from that registry that fits `range`. */
async function serveOffline(
  options: FetchServedPackOptions & {
    root: string;
    packFolder: string;
    cache: PackCache;
    problem: unknown;
  },
): Promise<ServedPack> {
  const { name, range, registry, root, packFolder, cache, problem } = options;
  const reason = (problem as Error).message;
  const candidates: { folder: string; record: ServedRecord }[] = [];
  const entries = await readdir(packFolder).catch(() => [] as string[]);
  for (const entry of entries) {
    if (entry.startsWith('.')) continue;
    const folder = path.join(packFolder, entry);
    const record = await readRecord(folder);
    if (
      record?.name === name &&
      record.registry === registry.location &&
      loadSemver().valid(record.version) !== null &&
      entry === versionFolderName(record)
    )
      candidates.push({ folder, record });
  }
  const version = loadSemver().maxSatisfying(
    candidates.map((c) => c.record.version),
    range ?? '*',
  );
  const spec = `${name}${range === undefined ? '' : `@${range}`}`;
  const matching = candidates.filter((c) => c.record.version === version);
  for (const candidate of matching) {
    const checked = await checkServedFolder(
      candidate.folder,
      candidate.record,
      cache,
      options.limits,
    );
    if (checked.manifest !== undefined) {
      return {
        ...describeServedPack(
          options,
          candidate.record,
          candidate.folder,
          checked.manifest,
          'offline',
        ),
        registryProblem: reason,
      };
    }
  }
  throw new ToolpackError(
    'E_REGISTRY_UNREACHABLE',
    matching.length === 0
      ? `${reason.replace(/\.$/, '')}, and no copy of ${spec} from it is in the cache (${root}) to serve instead.`
      : `${reason.replace(/\.$/, '')}, and the cached copy of ${name}@${version} changed since it was unpacked (or its tarball left ${root}), so it is not served.`,
    {
      hint: `Start it once while the registry can be reached; after that ${name}@<exact version> (or a range that version matches) starts without it.`,
      cause: problem,
    },
  );
}

function describeServedPack(
  options: FetchServedPackOptions,
  record: ServedRecord,
  folder: string,
  manifest: PackManifest,
  origin: ServedPack['origin'],
  doc?: VersionDoc,
): ServedPack {
  const alias = defaultAlias(record.name);
  const dir = path.join(folder, PACK_FOLDER);
  const own = listPackSources({
    projectDir: options.projectDir,
    alias,
    dir,
    manifest,
    confine: manifest.permissions,
    ...(manifest.interpreters === undefined ? {} : { interpreters: manifest.interpreters }),
  });
  return {
    name: record.name,
    version: record.version,
    alias,
    integrity: record.integrity,
    dir,
    manifest,
    permissions: manifest.permissions,
    sources: own.sources,
    diagnostics: own.diagnostics,
    origin,
    ...(doc?.deprecated === undefined ? {} : { deprecated: doc.deprecated }),
    ...(doc?.yanked === true ? { yanked: true } : {}),
  };
}

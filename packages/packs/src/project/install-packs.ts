import { readdir, rm } from 'node:fs/promises';
import path from 'node:path';
import { ToolpackError, isToolpackError } from '@toolpack/core';
import type { PackCache } from '../cache/pack-cache.ts';
import {
  createEmptyLockfile,
  findLockDrift,
  serializeLockfile,
  type LockEntry,
  type Lockfile,
} from '../lock/lockfile.ts';
import { readManifest } from '../manifest/parse-manifest.ts';
import type { EnvRequirement } from '../manifest/manifest-schema.ts';
import type { PackDependency } from '../names/pack-names.ts';
import { downloadResolved, isHttpUrl } from '../registry/open-registry.ts';
import { openLockedSource, type OpenSource } from './locked-source.ts';
import { fetchLockedModules, resolvePackModules } from './required-modules.ts';
import type { ModulePackage } from '../nuget/nupkg-to-pack.ts';
import type { ProgressListener } from '../registry/registry-client.ts';
import type { RegistryClient } from '../registry/registry-client.ts';
import { readVersionDoc, selectVersion } from '../resolve/resolve-version.ts';
import type { PackLimits } from '../tarball/limits.ts';
import { packageIdEntry, toLockPackageId, toLockResolved } from './add-pack.ts';
import {
  commitProjectChange,
  ensurePacksDir,
  packInstallDir,
  PACKS_DIR,
  readInstalledIdentity,
  readProjectState,
  removeEmptyPacksDirs,
} from './project-files.ts';
import { readPackArchive } from './read-pack-archive.ts';
import { fetchVerifiedTarball, stagePack, type DownloadListener } from './stage-pack.ts';
import { findInstalledDifferences } from './verify-installed.ts';
import { assertDocPermissions } from './check-doc-permissions.ts';
import {
  obtainApprovals,
  reviewPack,
  type ApprovalRequest,
  type ApprovePack,
} from './review-pack.ts';
import type { CheckStagedPacks, StagedPackInfo } from './staged-tools.ts';
import type { VersionDoc } from '../registry/registry-types.ts';

export interface InstallPacksOptions {
  projectDir: string;
  /** Asked only for packs toolpack.lock does not name yet (never under `frozen`). */
  registry?: () => RegistryClient;
  /**
   * Opens the NuGet feed a lock entry's `source` names: its packs are resolved again from it,
   * and downloaded through it (with the feed's login).
   */
  openSource?: OpenSource;
  cache?: PackCache;
  /** Fail when toolpack.yaml and toolpack.lock disagree, instead of resolving the difference. */
  frozen?: boolean;
  /** Only the cache: never download. */
  offline?: boolean;
  onDownload?: DownloadListener;
  env?: NodeJS.ProcessEnv;
  limits?: Partial<PackLimits>;
  fetch?: typeof fetch;
  /**
   * Discovers the packs to be installed (staged or already in place) so their tools are
   * compared with toolpack.lock's pins. Without it, tools are neither pinned nor compared.
   */
  checkTools?: CheckStagedPacks;
  /**
   * Asked, before anything is put in place, for each pack that asks for more than
   * toolpack.lock approved, whose tools are new or changed, or whose lock entry predates
   * approval; never under `frozen` (any such drift is E_PERMISSION_DRIFT). Without it, such
   * an install is E_APPROVAL_REQUIRED.
   */
  approve?: ApprovePack;
}

export interface InstallPacksReport {
  installed: { alias: string; name: string; version: string; fromCache: boolean }[];
  upToDate: { alias: string; name: string; version: string }[];
  /**
   * Installed packs whose files differed from their locked tarball (edited, added, removed),
   * reinstalled from it; they are in `installed` too.
   */
  repaired: { alias: string; differences: string[] }[];
  /** Installed packs that could not be compared with their tarball (offline, not cached). */
  unverified: { alias: string; reason: string }[];
  /** Aliases whose folders were removed (no longer in toolpack.yaml). */
  removed: string[];
  lockChanged: boolean;
  /** Packs whose permissions or tools differ from what toolpack.lock approved (asked or not). */
  reviewed: { review: ApprovalRequest; asked: boolean }[];
  missingEnv: { alias: string; env: EnvRequirement }[];
}

/**
 * `mcp pack install`: makes `.toolpack/packs/` hold exactly what toolpack.lock names, with
 * each tarball's integrity checked (from the cache when it has it). Without `frozen`, packs
 * added to toolpack.yaml by hand are resolved and locked, and removed ones unlocked; with it,
 * any such drift is an error. All or nothing, like `addPack`. An installed pack of the locked
 * name and version counts as up to date only when its files are exactly those of the locked
 * tarball (from the cache, else downloaded): tampered files are put back.
 */
export async function installPacks(options: InstallPacksOptions): Promise<InstallPacksReport> {
  const { projectDir } = options;
  const state = await readProjectState(projectDir);
  const dependencies = state.manifest.manifest?.dependencies ?? [];
  const drift = findLockDrift(dependencies, state.lock.lock);
  if (options.frozen && drift.length > 0) {
    throw new ToolpackError(
      'E_LOCK_DRIFT',
      `toolpack.lock does not match toolpack.yaml (--frozen):\n${drift.map((d) => `  - ${d.message}`).join('\n')}`,
      {
        hint: 'Run mcp pack install without --frozen (or mcp pack add) and commit the updated toolpack.lock.',
      },
    );
  }

  const before = state.lock.lock ?? createEmptyLockfile();
  const target: Lockfile = createEmptyLockfile();
  const drifted = new Set(drift.map((d) => d.alias));
  const toResolve: PackDependency[] = [];
  const docs = new Map<string, VersionDoc>();
  for (const dependency of dependencies) {
    const entry = before.packs[dependency.alias];
    if (entry !== undefined && !drifted.has(dependency.alias))
      target.packs[dependency.alias] = entry;
    else toResolve.push(dependency);
  }
  if (toResolve.length > 0) {
    if (options.offline) {
      throw new ToolpackError(
        'E_OFFLINE',
        `${toResolve.map((d) => `${d.alias} (${d.name}@${d.range})`).join(', ')} ${toResolve.length === 1 ? 'is' : 'are'} not locked, and --offline cannot ask the registry.`,
        { hint: 'Run mcp pack install once without --offline.' },
      );
    }
    if (options.registry === undefined)
      throw new ToolpackError(
        'E_USAGE',
        'Packs that toolpack.lock does not name need a registry to resolve them.',
      );
    let registry: RegistryClient | undefined;
    for (const dependency of toResolve) {
      const earlier = before.packs[dependency.alias];
      const source = earlier?.name === dependency.name ? earlier.source : undefined;
      const from =
        openLockedSource(source, options.openSource) ?? (registry ??= options.registry());
      const pack = await from.getPack(dependency.name);
      const version = selectVersion(pack, dependency.range);
      const doc = await readVersionDoc(from, pack, version);
      docs.set(dependency.alias, doc);
      target.packs[dependency.alias] = {
        name: dependency.name,
        version,
        resolved: toLockResolved(from, doc.dist, projectDir),
        integrity: doc.dist.integrity,
        ...(source === undefined ? {} : { source }),
        ...packageIdEntry(toLockPackageId(from, dependency.name)),
      };
    }
  }

  const report: InstallPacksReport = {
    installed: [],
    upToDate: [],
    repaired: [],
    unverified: [],
    removed: [],
    lockChanged: false,
    reviewed: [],
    missingEnv: [],
  };
  const created = await ensurePacksDir(projectDir);
  const staged: { alias: string; from: string }[] = [];
  const toReview: StagedPackInfo[] = [];
  try {
    for (const [alias, entry] of Object.entries(target.packs).sort(([a], [b]) =>
      a < b ? -1 : 1,
    )) {
      const dir = packInstallDir(projectDir, alias);
      const installed = await readInstalledIdentity(dir);
      let fetched: Awaited<ReturnType<typeof fetchTarball>> | undefined;
      if (installed?.name === entry.name && installed.version === entry.version) {
        // The same name and version is not the same content: compare with the tarball.
        fetched = await fetchTarball(entry, options, docs.has(alias)).catch((error: unknown) => {
          if (options.frozen || !isToolpackError(error)) throw error;
          report.unverified.push({ alias, reason: error.message });
          return undefined;
        });
        if (fetched === undefined) {
          report.upToDate.push({ alias, name: entry.name, version: entry.version });
          await addInstalled(toReview, { alias, entry, dir });
          continue;
        }
        const differences = await findInstalledDifferences(
          dir,
          await readPackArchive(fetched.bytes, {
            name: entry.name,
            version: entry.version,
            modules: fetched.modules,
            ...(options.limits ? { limits: options.limits } : {}),
          }),
        );
        if (differences.length === 0) {
          await fetched.remember();
          report.upToDate.push({ alias, name: entry.name, version: entry.version });
          await addInstalled(toReview, { alias, entry, dir });
          continue;
        }
        report.repaired.push({ alias, differences });
      }
      const { bytes, modules, fromCache, remember } =
        fetched ?? (await fetchTarball(entry, options, docs.has(alias)));
      const pack = await stagePack({
        projectDir,
        bytes,
        name: entry.name,
        version: entry.version,
        modules,
        ...(options.limits ? { limits: options.limits } : {}),
      });
      const doc = docs.get(alias);
      if (doc !== undefined)
        assertDocPermissions(doc, pack.manifest.permissions, pack.manifest.interpreters);
      staged.push({ alias, from: pack.dir });
      toReview.push({
        alias,
        name: entry.name,
        version: entry.version,
        dir: pack.dir,
        manifest: pack.manifest,
      });
      await remember();
      report.installed.push({ alias, name: entry.name, version: entry.version, fromCache });
    }
    const check =
      options.checkTools !== undefined && toReview.length > 0
        ? await options.checkTools(toReview)
        : undefined;
    const reviews = toReview.map((pack) => {
      const locked = before.packs[pack.alias];
      return reviewPack({
        alias: pack.alias,
        name: pack.name,
        version: pack.version,
        permissions: pack.manifest.permissions,
        ...(pack.manifest.interpreters === undefined
          ? {}
          : { interpreters: pack.manifest.interpreters }),
        ...(locked === undefined ? {} : { locked }),
        ...(check === undefined ? {} : { check }),
        mode: options.frozen ? 'frozen' : 'install',
      });
    });
    await obtainApprovals(reviews, {
      approve: options.approve,
      ...(options.frozen ? { frozen: true } : {}),
    });
    for (const review of reviews) {
      const alias = review.request.alias;
      target.packs[alias] = { ...target.packs[alias]!, ...review.grant };
      if (review.drifted)
        report.reviewed.push({ review: review.request, asked: review.needsApproval });
    }
    const stale = (await listInstalledAliases(projectDir)).filter(
      (alias) => target.packs[alias] === undefined,
    );
    report.removed = stale;
    const lockText = serializeLockfile(target);
    const keepNoLock = !state.lock.exists && Object.keys(target.packs).length === 0;
    report.lockChanged = !keepNoLock && lockText !== state.lock.text;
    await commitProjectChange(projectDir, {
      packs: [...staged, ...stale.map((alias) => ({ alias }))],
      ...(report.lockChanged ? { lock: lockText } : {}),
    });
  } catch (error) {
    for (const { from } of staged)
      await rm(from, { recursive: true, force: true }).catch(() => undefined);
    if (created !== undefined)
      await rm(created, { recursive: true, force: true }).catch(() => undefined);
    throw error;
  }
  await removeEmptyPacksDirs(projectDir);
  const env = options.env ?? process.env;
  for (const alias of Object.keys(target.packs)) {
    const read = await readManifest(packInstallDir(projectDir, alias), { kind: 'pack' });
    for (const requirement of read.manifest?.env ?? []) {
      if (requirement.required && !env[requirement.name])
        report.missingEnv.push({ alias, env: requirement });
    }
  }
  return report;
}

/**
 * The locked package and its locked required modules, each checked against its integrity.
 * A pack resolved just now from a NuGet feed (`resolve`) has its required modules resolved
 * from the feed instead, and recorded in `entry`.
 */
async function fetchTarball(
  entry: LockEntry,
  options: InstallPacksOptions,
  resolve = false,
): Promise<{
  bytes: Buffer;
  modules: ModulePackage[];
  fromCache: boolean;
  remember: () => Promise<void>;
}> {
  const main = await fetchMainTarball(entry, options);
  const feed = openLockedSource(entry.source, options.openSource);
  if (resolve && feed !== undefined) {
    const resolved = await resolvePackModules({
      registry: feed,
      bytes: main.bytes,
      name: entry.name,
      version: entry.version,
      projectDir: options.projectDir,
      ...(options.cache ? { cache: options.cache } : {}),
      ...(options.limits ? { limits: options.limits } : {}),
    });
    if (resolved.locked.length > 0) entry.modules = resolved.locked;
    return {
      ...main,
      modules: resolved.packages,
      remember: async () => {
        await main.remember();
        await resolved.remember();
      },
    };
  }
  const modules = await fetchLockedModules(entry, {
    ...(options.cache ? { cache: options.cache } : {}),
    ...(options.offline ? { offline: true } : {}),
    download: (module, onProgress) =>
      downloadLocked(module.resolved, module.integrity, entry, options, onProgress),
  });
  return {
    ...main,
    modules: modules.packages,
    remember: async () => {
      await main.remember();
      await modules.remember();
    },
  };
}

/** A locked package: through its feed when it has one (a private feed's login), else as resolved. */
function downloadLocked(
  resolved: string,
  integrity: string,
  entry: LockEntry,
  options: InstallPacksOptions,
  onProgress: ProgressListener | undefined,
): Promise<Buffer> {
  const downloadOptions = {
    ...(onProgress ? { onProgress } : {}),
    ...(options.limits ? { limits: options.limits } : {}),
  };
  const feed = isHttpUrl(resolved) ? openLockedSource(entry.source, options.openSource) : undefined;
  return feed !== undefined
    ? feed.download({ tarball: resolved, integrity, size: 0, fileCount: 0 }, downloadOptions)
    : downloadResolved(resolved, {
        projectDir: options.projectDir,
        ...downloadOptions,
        ...(options.fetch ? { fetch: options.fetch } : {}),
      });
}

function fetchMainTarball(entry: LockEntry, options: InstallPacksOptions) {
  return fetchVerifiedTarball({
    name: entry.name,
    version: entry.version,
    integrity: entry.integrity,
    ...(options.cache ? { cache: options.cache } : {}),
    ...(options.offline ? { offline: true } : {}),
    ...(options.onDownload ? { onDownload: options.onDownload } : {}),
    download: (onProgress) =>
      downloadLocked(entry.resolved, entry.integrity, entry, options, onProgress),
  });
}

/** An installed pack (already its locked version) to review with the staged ones. */
async function addInstalled(
  list: StagedPackInfo[],
  pack: { alias: string; entry: LockEntry; dir: string },
): Promise<void> {
  const read = await readManifest(pack.dir, { kind: 'pack' });
  if (read.manifest === undefined) return;
  list.push({
    alias: pack.alias,
    name: pack.entry.name,
    version: pack.entry.version,
    dir: pack.dir,
    manifest: read.manifest,
  });
}

/** The pack folders under `.toolpack/packs/` (staging and set-aside folders start with a dot). */
export async function listInstalledAliases(projectDir: string): Promise<string[]> {
  try {
    const entries = await readdir(path.join(projectDir, PACKS_DIR), { withFileTypes: true });
    return entries
      .filter((e) => e.isDirectory() && !e.name.startsWith('.'))
      .map((e) => e.name)
      .sort();
  } catch {
    return [];
  }
}

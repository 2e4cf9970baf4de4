import { rm } from 'node:fs/promises';
import path from 'node:path';
import { LEAST_PERMISSIONS, ToolpackError, type PackPermissions } from '@toolpack/core';
import type { PackCache } from '../cache/pack-cache.ts';
import { createEmptyLockfile, serializeLockfile, type LockEntry } from '../lock/lockfile.ts';
import { setManifestPack } from '../manifest/edit-manifest.ts';
import type { EnvRequirement, PackManifest } from '../manifest/manifest-schema.ts';
import { readManifest } from '../manifest/parse-manifest.ts';
import {
  defaultAlias,
  isValidAlias,
  isValidPackName,
  isValidRange,
  toServedToolName,
  writePackDependency,
} from '../names/pack-names.ts';
import { fileReferenceToPath } from '../registry/folder-registry.ts';
import type { HttpRegistryClient } from '../registry/http-registry.ts';
import type { NuGetFeedClient } from '../nuget/nuget-feed.ts';
import type { RegistryClient } from '../registry/registry-client.ts';
import type { PackDist } from '../registry/registry-types.ts';
import { readVersionDoc, selectVersion } from '../resolve/resolve-version.ts';
import type { PackLimits } from '../tarball/limits.ts';
import {
  commitProjectChange,
  ensurePacksDir,
  packInstallDir,
  readInstalledIdentity,
  readProjectState,
} from './project-files.ts';
import { fetchVerifiedTarball, stagePack, type DownloadListener } from './stage-pack.ts';
import { assertDocPermissions } from './check-doc-permissions.ts';
import { resolvePackModules } from './required-modules.ts';
import { obtainApprovals, reviewPack, type ApprovePack } from './review-pack.ts';
import { assertNoCollisions, type CheckStagedPacks, type StagedToolCheck } from './staged-tools.ts';

export interface AddPackOptions {
  projectDir: string;
  name: string;
  /** A semver range; absent: the latest version, recorded as `^<version>`. */
  range?: string;
  /** Serve the pack's tools as `<alias>_<tool>` (default: the pack's name without its owner). */
  alias?: string;
  registry: RegistryClient;
  /**
   * Recorded in toolpack.lock as the pack's `source` when `registry` is a NuGet feed
   * (`resolveFeed`'s `source`): the feed update and install ask again.
   */
  source?: string;
  cache?: PackCache;
  /**
   * Discovers the unpacked pack next to the project's tools: a name collision refuses the
   * add, and `tools` reports what it found. Without it nothing is checked and `tools` is the
   * registry's word (its VersionDoc), which its publisher controls.
   */
  checkTools?: CheckStagedPacks;
  /**
   * Asked once the pack is unpacked and checked, before anything is put in place: adding a
   * pack is a first approval of what its toolpack.yaml asks for (and of its tools), so it is
   * asked unless toolpack.lock already approved exactly that. Without it, E_APPROVAL_REQUIRED.
   */
  approve?: ApprovePack;
  onDownload?: DownloadListener;
  /** Checked for the pack's required `env` entries (default: process.env). */
  env?: NodeJS.ProcessEnv;
  limits?: Partial<PackLimits>;
}

export interface InstalledPackReport {
  alias: string;
  name: string;
  version: string;
  range: string;
  resolved: string;
  integrity: string;
  /** `.toolpack/packs/<alias>`. */
  dir: string;
  /** The names its tools are served under. */
  tools: string[];
  /** What its tools may touch, as approved and recorded in toolpack.lock. */
  permissions: PackPermissions;
  /** The version installed before, when this replaced one. */
  previousVersion?: string;
  /** Nothing had to be downloaded or unpacked. */
  unchanged: boolean;
  fromCache: boolean;
  /** Required `env` entries that are not set. */
  missingEnv: EnvRequirement[];
  deprecated?: string;
}

/**
 * `mcp pack add`: resolves `range`, refuses an alias collision, downloads (or takes from the
 * cache), verifies the integrity, unpacks safely into a staging folder, refuses a tool-name
 * collision found in the unpacked content (`checkTools`), and only then moves it to
 * `.toolpack/packs/<alias>` and records the range in toolpack.yaml and the exact version in
 * toolpack.lock. All or nothing: on any failure the manifest, the lockfile and `.toolpack/`
 * are left as they were.
 */
export async function addPack(options: AddPackOptions): Promise<InstalledPackReport> {
  const { projectDir, registry, name } = options;
  if (!isValidPackName(name)) {
    throw new ToolpackError('E_USAGE', `"${name}" is not a valid pack name.`, {
      hint: 'Pack names are lowercase letters, digits and hyphens, optionally owner/name.',
    });
  }
  if (options.range !== undefined && !isValidRange(options.range))
    throw new ToolpackError('E_USAGE', `"${options.range}" is not a valid semver range.`);
  const alias = options.alias ?? defaultAlias(name);
  if (!isValidAlias(alias)) {
    throw new ToolpackError('E_USAGE', `"${alias}" is not a valid alias.`, {
      hint: 'An alias is lowercase letters, digits and hyphens (at most 64), e.g. --as tracker.',
    });
  }
  const state = await readProjectState(projectDir);
  const dependencies = state.manifest.manifest?.dependencies ?? [];
  const current = dependencies.find((d) => d.alias === alias);
  if (current !== undefined && current.name !== name) {
    throw new ToolpackError(
      'E_ALIAS_TAKEN',
      `The alias ${alias} is already used by the pack ${current.name}, so ${name} cannot be served as ${alias}_*.`,
      {
        hint: `Pick another alias: mcp pack add ${name} --as <alias>.`,
      },
    );
  }

  const pack = await registry.getPack(name);
  const version = selectVersion(pack, options.range);
  const doc = await readVersionDoc(registry, pack, version);
  const range = options.range ?? `^${version}`;
  const tools = doc.tools.map((tool) => toServedToolName(alias, tool.name));
  const checkTools = async (
    dir: string,
    manifest: PackManifest,
  ): Promise<StagedToolCheck | undefined> => {
    if (options.checkTools === undefined) return undefined;
    const check = await options.checkTools([{ alias, name, version, dir, manifest }]);
    assertNoCollisions(
      check,
      `${name}@${version}${alias === defaultAlias(name) ? '' : ` as ${alias}`}`,
      `Serve the pack under another alias (mcp pack add ${name} --as <alias>), or rename or exclude the other tool.`,
    );
    return check;
  };
  const servedNames = (check: StagedToolCheck | undefined) =>
    check === undefined ? tools : (check.tools[alias] ?? []).map((tool) => tool.name);
  /** Asks, when needed, and returns the lock entry with what was approved. */
  const approveEntry = async (
    base: LockEntry,
    manifest: PackManifest,
    check: StagedToolCheck | undefined,
  ): Promise<{ entry: LockEntry; changed: boolean }> => {
    const review = reviewPack({
      alias,
      name,
      version,
      permissions: manifest.permissions,
      ...(manifest.interpreters === undefined ? {} : { interpreters: manifest.interpreters }),
      ...(locked === undefined ? {} : { locked }),
      ...(check === undefined ? {} : { check }),
      mode: 'add',
    });
    await obtainApprovals([review], { approve: options.approve });
    return { entry: { ...base, ...review.grant }, changed: review.drifted };
  };

  const lock = structuredClone(state.lock.lock ?? createEmptyLockfile());
  const locked = lock.packs[alias];
  const dir = packInstallDir(projectDir, alias);
  const installed = await readInstalledIdentity(dir);
  const resolved = toLockResolved(registry, doc.dist, projectDir);
  const entry: LockEntry = {
    name,
    version,
    resolved,
    integrity: doc.dist.integrity,
    ...(options.source === undefined ? {} : { source: options.source }),
    ...packageIdEntry(toLockPackageId(registry, name)),
  };
  const manifestText = setManifestPack(
    state.manifest.text,
    { alias, name, range },
    current ? { replaceKey: writePackDependency(current).key } : {},
  );
  const report: Omit<InstalledPackReport, 'unchanged' | 'fromCache' | 'permissions'> = {
    alias,
    name,
    version,
    range,
    resolved,
    integrity: doc.dist.integrity,
    dir,
    tools,
    missingEnv: doc.env.filter((env) => env.required && !(options.env ?? process.env)[env.name]),
    ...(installed !== undefined && installed.version !== version
      ? { previousVersion: installed.version }
      : {}),
    ...(doc.deprecated === undefined ? {} : { deprecated: doc.deprecated }),
  };

  const alreadyThere =
    locked?.name === name &&
    locked.version === version &&
    locked.integrity === entry.integrity &&
    installed?.name === name &&
    installed.version === version;
  if (alreadyThere) {
    const installedManifest = (await readManifest(dir, { kind: 'pack' })).manifest;
    let permissions = locked.permissions ?? doc.permissions;
    let served = tools;
    let lockText: string | undefined;
    if (installedManifest !== undefined) {
      assertDocPermissions(doc, installedManifest.permissions, installedManifest.interpreters);
      const check = await checkTools(dir, installedManifest);
      served = servedNames(check);
      const approved = await approveEntry(locked, installedManifest, check);
      permissions = approved.entry.permissions;
      if (approved.changed) {
        lock.packs[alias] = approved.entry;
        lockText = serializeLockfile(lock);
      }
    }
    await commitProjectChange(projectDir, {
      ...(manifestText === state.manifest.text ? {} : { manifest: manifestText }),
      ...(lockText === undefined ? {} : { lock: lockText }),
    });
    return {
      ...report,
      tools: served,
      permissions: permissions ?? LEAST_PERMISSIONS,
      resolved: locked.resolved,
      unchanged: true,
      fromCache: false,
    };
  }

  const created = await ensurePacksDir(projectDir);
  let stagedDir: string | undefined;
  try {
    const { bytes, fromCache, remember } = await fetchVerifiedTarball({
      name,
      version,
      integrity: doc.dist.integrity,
      size: doc.dist.size,
      ...(options.cache ? { cache: options.cache } : {}),
      download: (onProgress) =>
        registry.download(doc.dist, {
          ...(onProgress ? { onProgress } : {}),
          ...(options.limits ? { limits: options.limits } : {}),
        }),
      ...(options.onDownload ? { onDownload: options.onDownload } : {}),
    });
    const modules = await resolvePackModules({
      registry,
      bytes,
      name,
      version,
      projectDir,
      ...(options.cache ? { cache: options.cache } : {}),
      ...(options.limits ? { limits: options.limits } : {}),
    });
    const staged = await stagePack({
      projectDir,
      bytes,
      name,
      version,
      modules: modules.packages,
      ...(options.limits ? { limits: options.limits } : {}),
    });
    stagedDir = staged.dir;
    assertDocPermissions(doc, staged.manifest.permissions, staged.manifest.interpreters);
    const check = await checkTools(staged.dir, staged.manifest);
    const approved = await approveEntry(
      modules.locked.length === 0 ? entry : { ...entry, modules: modules.locked },
      staged.manifest,
      check,
    );
    await remember();
    await modules.remember();
    lock.packs[alias] = approved.entry;
    await commitProjectChange(projectDir, {
      packs: [{ alias, from: staged.dir }],
      manifest: manifestText,
      lock: serializeLockfile(lock),
    });
    return {
      ...report,
      tools: servedNames(check),
      permissions: staged.manifest.permissions,
      missingEnv: staged.manifest.env.filter(
        (env) => env.required && !(options.env ?? process.env)[env.name],
      ),
      unchanged: false,
      fromCache,
    };
  } catch (error) {
    if (stagedDir !== undefined)
      await rm(stagedDir, { recursive: true, force: true }).catch(() => undefined);
    if (created !== undefined)
      await rm(created, { recursive: true, force: true }).catch(() => undefined);
    throw error;
  }
}

/**
 * What the lockfile records as `resolved`: the tarball's absolute URL, or for a folder
 * registry `file:` and the pack folder relative to the project (so the project can move); for
 * a NuGet feed the package's URL, or `file:` the .nupkg in a folder feed.
 * An HTTP registry's `dist.tarball` must be on its own origin (or an allowed one): a hostile
 * registry could otherwise send the client to any host, or record a `data:` or `file:` URL
 * in toolpack.lock. Every add, update and install passes here before anything is written.
 */
export function toLockResolved(
  registry: RegistryClient,
  dist: PackDist,
  projectDir: string,
): string {
  if (registry.kind === 'http') return (registry as HttpRegistryClient).resolveTarball(dist);
  if (registry.kind === 'nuget')
    return (registry as NuGetFeedClient).resolveDownload(dist, projectDir);
  const relative = path.relative(projectDir, fileReferenceToPath(dist.tarball, registry.location));
  return `file:${relative.split(path.sep).join('/') || '.'}`;
}

/** What the lockfile records as `id`: a NuGet feed's own spelling of the module's id. */
export function toLockPackageId(registry: RegistryClient, name: string): string | undefined {
  return registry.kind === 'nuget' ? (registry as NuGetFeedClient).packageIdOf(name) : undefined;
}

/** The lock entry's `id` field, when there is one. */
export function packageIdEntry(id: string | undefined): { id?: string } {
  return id === undefined ? {} : { id };
}

import { rm } from 'node:fs/promises';
import { ToolpackError, type PackPermissions } from '@toolpack/core';
import type { PackCache } from '../cache/pack-cache.ts';
import { createEmptyLockfile, serializeLockfile, type LockEntry } from '../lock/lockfile.ts';
import type { RegistryClient } from '../registry/registry-client.ts';
import { openLockedSource, type OpenSource } from './locked-source.ts';
import { resolvePackModules } from './required-modules.ts';
import { readVersionDoc, selectVersion } from '../resolve/resolve-version.ts';
import type { PackLimits } from '../tarball/limits.ts';
import { packageIdEntry, toLockPackageId, toLockResolved } from './add-pack.ts';
import { commitProjectChange, ensurePacksDir, readProjectState } from './project-files.ts';
import { fetchVerifiedTarball, stagePack, type DownloadListener } from './stage-pack.ts';
import { assertDocPermissions } from './check-doc-permissions.ts';
import {
  obtainApprovals,
  reviewPack,
  type ApprovalRequest,
  type ApprovePack,
} from './review-pack.ts';
import {
  assertNoCollisions,
  type CheckStagedPacks,
  type StagedPackInfo,
  type StagedToolCheck,
} from './staged-tools.ts';

export interface UpdatePacksOptions {
  projectDir: string;
  /** Aliases or pack names; all packs when absent or empty. */
  only?: readonly string[];
  registry: RegistryClient;
  /** Opens the NuGet feed a lock entry's `source` names; those packs are updated from it. */
  openSource?: OpenSource;
  cache?: PackCache;
  onDownload?: DownloadListener;
  limits?: Partial<PackLimits>;
  /**
   * Discovers the unpacked new versions next to the project's tools: a name collision refuses
   * the whole update. Without it nothing is checked.
   */
  checkTools?: CheckStagedPacks;
  /**
   * Asked, before anything is put in place, for each new version that asks for more than
   * toolpack.lock approved or whose tools are new or changed (narrower permissions are
   * recorded without asking). Without it, such an update is E_APPROVAL_REQUIRED.
   */
  approve?: ApprovePack;
}

export interface UpdatePacksReport {
  updated: {
    alias: string;
    name: string;
    from?: string;
    to: string;
    deprecated?: string;
    /** How the new version compares with what was approved (asked or not). */
    review: ApprovalRequest;
    /** Whether `approve` was asked. */
    asked: boolean;
  }[];
  current: { alias: string; name: string; version: string }[];
}

/**
 * `mcp pack update`: moves each pack to the highest version its toolpack.yaml range allows
 * (the range itself is not changed), in one all-or-nothing step. A new version is a new
 * publisher's word: its unpacked tools are checked for name collisions (`checkTools`)
 * exactly as `addPack` checks a new pack.
 */
export async function updatePacks(options: UpdatePacksOptions): Promise<UpdatePacksReport> {
  const { projectDir, registry } = options;
  const state = await readProjectState(projectDir);
  const dependencies = state.manifest.manifest?.dependencies ?? [];
  const only = options.only ?? [];
  for (const wanted of only) {
    if (!dependencies.some((d) => d.alias === wanted || d.name === wanted)) {
      throw new ToolpackError('E_PACK_NOT_INSTALLED', `No pack ${wanted} is in toolpack.yaml.`, {
        hint: `Add it first: mcp pack add ${wanted}`,
      });
    }
  }
  const selected =
    only.length === 0
      ? dependencies
      : dependencies.filter((d) => only.includes(d.alias) || only.includes(d.name));
  const lock = structuredClone(state.lock.lock ?? createEmptyLockfile());
  const report: UpdatePacksReport = { updated: [], current: [] };
  const created = await ensurePacksDir(projectDir);
  const staged: { alias: string; from: string }[] = [];
  const stagedInfo: StagedPackInfo[] = [];
  const previous = new Map<string, LockEntry | undefined>();
  const updated: (Omit<UpdatePacksReport['updated'][number], 'review' | 'asked'> & {
    permissions: PackPermissions;
    interpreters?: Record<string, string[]>;
  })[] = [];
  const remembers: (() => Promise<void>)[] = [];
  try {
    for (const dependency of selected) {
      const locked = lock.packs[dependency.alias];
      const source = locked?.name === dependency.name ? locked.source : undefined;
      const from = openLockedSource(source, options.openSource) ?? registry;
      const pack = await from.getPack(dependency.name);
      const version = selectVersion(pack, dependency.range);
      if (locked?.name === dependency.name && locked.version === version) {
        report.current.push({ alias: dependency.alias, name: dependency.name, version });
        continue;
      }
      const doc = await readVersionDoc(from, pack, version);
      const { bytes, remember } = await fetchVerifiedTarball({
        name: dependency.name,
        version,
        integrity: doc.dist.integrity,
        size: doc.dist.size,
        ...(options.cache ? { cache: options.cache } : {}),
        ...(options.onDownload ? { onDownload: options.onDownload } : {}),
        download: (onProgress) =>
          from.download(doc.dist, {
            ...(onProgress ? { onProgress } : {}),
            ...(options.limits ? { limits: options.limits } : {}),
          }),
      });
      const modules = await resolvePackModules({
        registry: from,
        bytes,
        name: dependency.name,
        version,
        projectDir,
        ...(options.cache ? { cache: options.cache } : {}),
        ...(options.limits ? { limits: options.limits } : {}),
      });
      const stagedPack = await stagePack({
        projectDir,
        bytes,
        name: dependency.name,
        version,
        modules: modules.packages,
        ...(options.limits ? { limits: options.limits } : {}),
      });
      assertDocPermissions(doc, stagedPack.manifest.permissions, stagedPack.manifest.interpreters);
      previous.set(dependency.alias, locked);
      staged.push({ alias: dependency.alias, from: stagedPack.dir });
      stagedInfo.push({
        alias: dependency.alias,
        name: dependency.name,
        version,
        dir: stagedPack.dir,
        manifest: stagedPack.manifest,
      });
      remembers.push(remember, modules.remember);
      lock.packs[dependency.alias] = {
        name: dependency.name,
        version,
        resolved: toLockResolved(from, doc.dist, projectDir),
        integrity: doc.dist.integrity,
        ...(source === undefined ? {} : { source }),
        ...packageIdEntry(toLockPackageId(from, dependency.name)),
        ...(modules.locked.length === 0 ? {} : { modules: modules.locked }),
      };
      updated.push({
        alias: dependency.alias,
        name: dependency.name,
        ...(locked === undefined ? {} : { from: locked.version }),
        to: version,
        ...(doc.deprecated === undefined ? {} : { deprecated: doc.deprecated }),
        permissions: stagedPack.manifest.permissions,
        ...(stagedPack.manifest.interpreters === undefined
          ? {}
          : { interpreters: stagedPack.manifest.interpreters }),
      });
    }
    let check: StagedToolCheck | undefined;
    if (options.checkTools !== undefined && stagedInfo.length > 0) {
      check = await options.checkTools(stagedInfo);
      assertNoCollisions(
        check,
        stagedInfo.map((p) => `${p.alias} ${p.version}`).join(', '),
        'Serve the pack under another alias in toolpack.yaml (packs: <alias>: <pack>@<range>), keep the version it has (narrow its range), or rename or exclude the other tool.',
      );
    }
    const reviews = updated.map(({ permissions, interpreters, ...update }) => {
      const locked = previous.get(update.alias);
      return {
        update,
        review: reviewPack({
          alias: update.alias,
          name: update.name,
          version: update.to,
          permissions,
          ...(interpreters === undefined ? {} : { interpreters }),
          ...(locked === undefined ? {} : { locked }),
          ...(check === undefined ? {} : { check }),
          mode: 'update',
        }),
      };
    });
    await obtainApprovals(
      reviews.map((r) => r.review),
      { approve: options.approve },
    );
    for (const { update, review } of reviews) {
      lock.packs[update.alias] = { ...lock.packs[update.alias]!, ...review.grant };
      report.updated.push({ ...update, review: review.request, asked: review.needsApproval });
    }
    for (const remember of remembers) await remember();
    if (staged.length > 0)
      await commitProjectChange(projectDir, { packs: staged, lock: serializeLockfile(lock) });
    else if (created !== undefined) await rm(created, { recursive: true, force: true });
  } catch (error) {
    for (const { from } of staged)
      await rm(from, { recursive: true, force: true }).catch(() => undefined);
    if (created !== undefined)
      await rm(created, { recursive: true, force: true }).catch(() => undefined);
    throw error;
  }
  return report;
}

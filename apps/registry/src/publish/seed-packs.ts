import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { createDiagnostic, type Diagnostic } from '@toolpack/core';
import { MANIFEST_FILE, createPackTarball } from '@toolpack/packs';
import { publishPack, type PublishContext } from './publish-pack.ts';

/** Official packs (bare names) belong to this owner; a token for it can publish their next versions. */
export const OFFICIAL_OWNER = 'toolpack';

export interface SeedReport {
  /** `name@version` of each pack published now. */
  published: string[];
  /** `name@version` already in the registry with the same bytes. */
  unchanged: string[];
  /** Packs that could not be published, and packs changed without a new version. */
  problems: Diagnostic[];
}

/** The `MetadataStore.withLock` name seeding runs under. */
export const SEED_LOCK = 'seed';

/**
 * Publishes every sub-folder of `dir` that has a toolpack.yaml, packed as `mcp pack publish`
 * packs it and published through `publishPack`, the same path as an upload. Versions
 * already present are left alone, so this runs on every start and only adds what is new.
 * It runs under the store's `seed` lock: replicas starting together on one database seed one
 * after the other, and all but the first find every version there (`unchanged`).
 */
export function seedPacks(context: PublishContext, dir: string): Promise<SeedReport> {
  return context.store.withLock(SEED_LOCK, () => seedUnlocked(context, dir));
}

async function seedUnlocked(context: PublishContext, dir: string): Promise<SeedReport> {
  const report: SeedReport = { published: [], unchanged: [], problems: [] };
  const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
  const folders = entries
    .filter((entry) => entry.isDirectory() && !entry.name.startsWith('.'))
    .map((entry) => path.join(dir, entry.name))
    .sort();
  for (const folder of folders) {
    const packed = await createPackTarball({ dir: folder, limits: context.limits });
    const errors = packed.diagnostics.filter((d) => d.severity === 'error');
    if (errors.some((d) => d.code === 'E_PACK_NO_MANIFEST')) continue;
    if (
      packed.tarball === undefined ||
      packed.manifest === undefined ||
      packed.integrity === undefined
    ) {
      report.problems.push(...errors);
      continue;
    }
    const { name, version } = packed.manifest;
    if (await reportExisting(context, report, folder, packed.integrity, name, version)) continue;
    // The seed folder is the admin's: `owner/name` packs there are seeded for their owner.
    const scope = name.includes('/') ? name.slice(0, name.indexOf('/')) : undefined;
    const outcome = await publishPack(context, {
      bytes: packed.tarball,
      owner: scope ?? OFFICIAL_OWNER,
      publishedBy: 'seed',
    });
    if (outcome.status === 201) {
      report.published.push(`${name}@${version}`);
      continue;
    }
    // Published meanwhile by a registry that seeds without the lock (or a publisher with the
    // official token): the same as finding it there.
    if (
      outcome.status === 409 &&
      (await reportExisting(context, report, folder, packed.integrity, name, version))
    )
      continue;
    const where = { path: path.join(folder, MANIFEST_FILE) };
    report.problems.push(
      createDiagnostic(
        'error',
        outcome.code,
        `${name}@${version} was not seeded: ${outcome.message}`,
        where,
      ),
      ...outcome.problems.map((problem) => ({
        ...problem,
        path: problem.path === 'The tarball' ? folder : path.join(folder, problem.path),
      })),
    );
  }
  return report;
}

/**
 * When `name@version` is already published, reports it (unchanged, or changed since) and
 * returns true.
 */
async function reportExisting(
  context: PublishContext,
  report: SeedReport,
  folder: string,
  integrity: string,
  name: string,
  version: string,
): Promise<boolean> {
  const existing = await context.store.getVersion(name, version);
  if (existing === undefined) return false;
  if (existing.doc.dist.integrity === integrity) {
    report.unchanged.push(`${name}@${version}`);
  } else {
    report.problems.push(
      createDiagnostic(
        'warning',
        'W_SEED_CHANGED',
        `${name}@${version} changed since it was published; the registry keeps serving the published tarball.`,
        { path: path.join(folder, MANIFEST_FILE) },
        'Raise version: in toolpack.yaml to publish the change.',
      ),
    );
  }
  return true;
}

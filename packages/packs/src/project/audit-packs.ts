import {
  LEAST_PERMISSIONS,
  findPermissionWidening,
  type Diagnostic,
  type PackPermissions,
} from '@toolpack/core';
import {
  areInterpretersEqual,
  findInterpreterWidening,
  normalizeInterpreters,
  type InterpreterMap,
} from '../interpreters/pack-interpreters.ts';
import { readLockfile } from '../lock/lockfile.ts';
import { readManifest } from '../manifest/parse-manifest.ts';
import { packInstallDir } from './project-files.ts';
import { arePermissionsEqual } from './review-pack.ts';

/** What one pack of the project may do, and whether what is installed still says so. */
export interface PackAudit {
  alias: string;
  name: string;
  /** The locked version; absent when toolpack.lock does not name the pack. */
  version?: string;
  /** What its tools get: toolpack.lock's approved grant (the least when none is recorded). */
  permissions: PackPermissions;
  /** The interpreters toolpack.lock approved for its own tools (`{}`: none). */
  interpreters: InterpreterMap;
  /** False when the lock records no approval (written before approval, or not locked). */
  approved: boolean;
  /** What the installed toolpack.yaml asks for; absent when the pack is not installed. */
  installedPermissions?: PackPermissions;
  /**
   * - `matches`: the installed pack asks for exactly what was approved;
   * - `asks-more`: for more (only the approved grant is given; `beyond` says what);
   * - `asks-less`: for less (the next install records it);
   * - `not-installed`: there is nothing in `.toolpack/packs/<alias>` to compare.
   */
  status: 'matches' | 'asks-more' | 'asks-less' | 'not-installed';
  /** What the installed pack asks for beyond the approved grant (new or changed interpreters included). */
  beyond: string[];
  /** Served tool name -> pinned definition hash; empty when nothing is pinned. */
  tools: Record<string, string>;
}

/**
 * `mcp pack audit`: for every `packs:` entry, what toolpack.lock approved, whether the
 * installed pack still asks for exactly that, and its tool pins. Reads only; never throws for
 * a broken file (its problems come back as diagnostics).
 */
export async function auditPacks(
  projectDir: string,
): Promise<{ packs: PackAudit[]; diagnostics: Diagnostic[] }> {
  const [manifest, lock] = await Promise.all([readManifest(projectDir), readLockfile(projectDir)]);
  const diagnostics = [...manifest.diagnostics, ...lock.diagnostics].filter(
    (d) => d.severity === 'error',
  );
  const packs: PackAudit[] = [];
  for (const dependency of manifest.manifest?.dependencies ?? []) {
    const locked = lock.lock?.packs[dependency.alias];
    const entry = locked?.name === dependency.name ? locked : undefined;
    const permissions = entry?.permissions ?? LEAST_PERMISSIONS;
    const installed = (
      await readManifest(packInstallDir(projectDir, dependency.alias), { kind: 'pack' })
    ).manifest;
    const asked = installed?.name === dependency.name ? installed.permissions : undefined;
    const interpreters = normalizeInterpreters(entry?.interpreters);
    const askedInterpreters = installed?.name === dependency.name ? installed.interpreters : {};
    const beyond =
      asked === undefined
        ? []
        : [
            ...findPermissionWidening(permissions, asked),
            ...findInterpreterWidening(interpreters, askedInterpreters),
          ];
    packs.push({
      alias: dependency.alias,
      name: dependency.name,
      ...(entry === undefined ? {} : { version: entry.version }),
      permissions,
      interpreters,
      approved: entry?.permissions !== undefined,
      ...(asked === undefined ? {} : { installedPermissions: asked }),
      status:
        asked === undefined
          ? 'not-installed'
          : beyond.length > 0
            ? 'asks-more'
            : arePermissionsEqual(asked, permissions) &&
                areInterpretersEqual(askedInterpreters, interpreters)
              ? 'matches'
              : 'asks-less',
      beyond,
      tools: { ...(entry?.tools ?? {}) },
    });
  }
  return { packs, diagnostics };
}

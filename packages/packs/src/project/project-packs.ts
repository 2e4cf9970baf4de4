import path from 'node:path';
import {
  LEAST_PERMISSIONS,
  createDiagnostic,
  findPermissionWidening,
  getSourceLocation,
  type Diagnostic,
  type PackPermissions,
  type SourceLocationKey,
  type SourceOptions,
  type SourceSpec,
  type ToolPolicy,
} from '@toolpack/core';
import {
  findInterpreterWidening,
  normalizeInterpreters,
  type InterpreterMap,
} from '../interpreters/pack-interpreters.ts';
import { readLockfile } from '../lock/lockfile.ts';
import { MANIFEST_FILE, findPackPathProblem, readManifest } from '../manifest/parse-manifest.ts';
import type { EnvRequirement, Manifest, PackManifest } from '../manifest/manifest-schema.ts';
import { packInstallDir, PACKS_DIR } from './project-files.ts';

export type ProjectPackStatus = 'installed' | 'not-installed' | 'other-version' | 'not-locked';

export interface ProjectPack {
  alias: string;
  name: string;
  range: string;
  /** The locked version. */
  version?: string;
  /** The version in `.toolpack/packs/<alias>`, when there is one. */
  installedVersion?: string;
  status: ProjectPackStatus;
  dir: string;
}

/** `mcp pack list`: every `packs:` entry with its locked and installed version. */
export async function listProjectPacks(
  projectDir: string,
): Promise<{ packs: ProjectPack[]; diagnostics: Diagnostic[] }> {
  const [manifest, lock] = await Promise.all([readManifest(projectDir), readLockfile(projectDir)]);
  const diagnostics = [...manifest.diagnostics, ...lock.diagnostics];
  const packs: ProjectPack[] = [];
  for (const dependency of manifest.manifest?.dependencies ?? []) {
    const dir = packInstallDir(projectDir, dependency.alias);
    const entry = lock.lock?.packs[dependency.alias];
    const installed = (await readManifest(dir, { kind: 'pack' })).manifest;
    const status: ProjectPackStatus =
      entry === undefined
        ? 'not-locked'
        : installed === undefined
          ? 'not-installed'
          : installed.name !== entry.name || installed.version !== entry.version
            ? 'other-version'
            : 'installed';
    packs.push({
      alias: dependency.alias,
      name: dependency.name,
      range: dependency.range,
      ...(entry === undefined ? {} : { version: entry.version }),
      ...(installed === undefined ? {} : { installedVersion: installed.version }),
      status,
      dir,
    });
  }
  return { packs, diagnostics };
}

/**
 * The discovery sources of one pack folder (installed or staged), paths relative to the
 * project, each with `pack: <alias>`; a source that would leave the pack is an error instead.
 */
export function listPackSources(options: {
  projectDir: string;
  alias: string;
  dir: string;
  manifest: PackManifest;
  /**
   * Confine the tools to these permissions (toolpack.lock's approved grant), with the whole
   * pack folder as the root they may always read: `loadProject` passes it for every
   * installed pack.
   */
  confine?: PackPermissions;
  /**
   * The pack's interpreters its tools run with (the lock's approved ones for an installed
   * pack; none when absent): set on every source, so neither the project's nor another pack's
   * interpreters reach them, nor theirs the others'.
   */
  interpreters?: InterpreterMap;
}): { sources: SourceSpec[]; diagnostics: Diagnostic[] } {
  const { projectDir, alias, dir, manifest, confine } = options;
  const interpreters = normalizeInterpreters(options.interpreters);
  const sources: SourceSpec[] = [];
  const diagnostics: Diagnostic[] = [];
  const relativeDir = path.relative(projectDir, dir).split(path.sep).join('/');
  // A pack outside the project (mcp serve --pack, from the cache) is rooted at its absolute
  // folder: relative to wherever a client started the server, describe_tool showed
  // `../../../home/ada/.cache/...`; absolute, the server shows it from ~ as it does the paths.
  const sandboxRoot = relativeDir.startsWith('../') || relativeDir === '..' ? dir : relativeDir;
  manifest.sources.forEach((source, index) => {
    const { key, location } = getSourceLocation(source);
    const problem = findPackPathProblem(location, key === 'module');
    if (problem !== undefined) {
      diagnostics.push(
        createDiagnostic(
          'error',
          'E_PACK_SOURCE_PATH',
          `sources.${index}.${key}: ${JSON.stringify(location)} ${problem}; the source is not served.`,
          { path: path.join(dir, MANIFEST_FILE) },
        ),
      );
      return;
    }
    sources.push(
      createSourceSpec(key, path.posix.join(relativeDir, location), {
        pack: alias,
        interpreters,
        ...(source.include === undefined ? {} : { include: source.include }),
        ...(source.exclude === undefined ? {} : { exclude: source.exclude }),
        // The pack's own credentials: entries, which read only the env it declares; their
        // origin names the pack's toolpack.yaml, not the project's.
        ...(manifest.credentials?.length
          ? {
              credentials: manifest.credentials.map((binding) => ({
                ...binding,
                origin: path.posix.join(relativeDir, binding.origin ?? MANIFEST_FILE),
              })),
            }
          : {}),
        ...(confine === undefined ? {} : { sandbox: true, permissions: confine, sandboxRoot }),
      }),
    );
  });
  return { sources, diagnostics };
}

function createSourceSpec(
  key: SourceLocationKey,
  location: string,
  options: SourceOptions,
): SourceSpec {
  switch (key) {
    case 'tools':
      return { tools: location, ...options };
    case 'scripts':
      return { scripts: location, ...options };
    case 'module':
      return { module: location, ...options };
    case 'workflows':
      return { workflows: location, ...options };
  }
}

export interface InstalledPack {
  alias: string;
  name: string;
  version: string;
  /** Absolute. */
  dir: string;
  /** What the pack declares it needs; a server should let these names through to its tools. */
  env: EnvRequirement[];
  /**
   * Its own interpreters as toolpack.lock approved them (never what its installed
   * toolpack.yaml says beyond that): they apply to its tools only.
   */
  interpreters?: Record<string, string[]>;
  policy?: ToolPolicy;
  /**
   * What its tools get: toolpack.lock's approved grant (the least when the lock approved
   * nothing), never more, whatever its installed toolpack.yaml asks for.
   */
  permissions: PackPermissions;
}

export interface InstalledPacks {
  /**
   * Discovery sources of every installed pack, paths relative to the project folder, each
   * with `pack: <alias>` so its tools are served as `<alias>_<tool>` with `source.pack` set.
   */
  sources: SourceSpec[];
  packs: InstalledPack[];
  /** Packs in toolpack.yaml that are missing, stale or broken (warnings), and bad pack sources. */
  diagnostics: Diagnostic[];
}

/**
 * The project's installed packs, following each pack's own toolpack.yaml `sources:`. A pack
 * that is not installed is a warning (run `mcp pack install`), never an error: the project's
 * own tools still load.
 */
export async function readInstalledPacks(options: {
  projectDir: string;
  /** The project's manifest, already read: `loadProject` reads it once. */
  manifest: Manifest;
  manifestFile: string;
}): Promise<InstalledPacks> {
  const { projectDir, manifest, manifestFile } = options;
  const result: InstalledPacks = { sources: [], packs: [], diagnostics: [] };
  if (manifest.dependencies.length === 0) return result;
  const lock = await readLockfile(projectDir);
  for (const dependency of manifest.dependencies) {
    const dir = packInstallDir(projectDir, dependency.alias);
    const read = await readManifest(dir, { kind: 'pack' });
    const lockEntry = lock.lock?.packs[dependency.alias];
    if (!read.exists || read.manifest === undefined) {
      result.diagnostics.push(
        createDiagnostic(
          'warning',
          'W_PACK_NOT_INSTALLED',
          read.exists
            ? `The pack ${dependency.alias} (${dependency.name}) in ${PACKS_DIR} is damaged: ${read.diagnostics.find((d) => d.severity === 'error')?.message ?? 'invalid toolpack.yaml'}; its tools are not served.`
            : `The pack ${dependency.alias} (${dependency.name}@${dependency.range}) is in toolpack.yaml but not installed; its tools are not served.`,
          { path: manifestFile },
          'Run mcp pack install.',
        ),
      );
      continue;
    }
    const packManifest = read.manifest;
    if (
      packManifest.name !== dependency.name ||
      (lockEntry !== undefined && lockEntry.version !== packManifest.version)
    ) {
      result.diagnostics.push(
        createDiagnostic(
          'warning',
          'W_PACK_STALE',
          `${PACKS_DIR}/${dependency.alias} holds ${packManifest.name}@${packManifest.version}, but the project asks for ${dependency.name}@${lockEntry?.version ?? dependency.range}.`,
          { path: read.file },
          'Run mcp pack install.',
        ),
      );
    }
    const approved =
      (lockEntry?.name === packManifest.name ? lockEntry.permissions : undefined) ??
      LEAST_PERMISSIONS;
    const approvedInterpreters =
      lockEntry?.name === packManifest.name ? normalizeInterpreters(lockEntry.interpreters) : {};
    const beyond = [
      ...findPermissionWidening(approved, packManifest.permissions),
      ...findInterpreterWidening(approvedInterpreters, packManifest.interpreters),
    ];
    if (beyond.length > 0) {
      result.diagnostics.push(
        createDiagnostic(
          'warning',
          'W_PACK_NOT_APPROVED',
          `${PACKS_DIR}/${dependency.alias} asks for more than toolpack.lock approved (${beyond.join(', ')}); its tools get only what was approved.`,
          { path: read.file },
          'Run mcp pack install to review and approve what it asks for.',
        ),
      );
    }
    const own = listPackSources({
      projectDir,
      alias: dependency.alias,
      dir,
      manifest: packManifest,
      confine: approved,
      interpreters: approvedInterpreters,
    });
    result.sources.push(...own.sources);
    result.diagnostics.push(...own.diagnostics);
    result.packs.push({
      alias: dependency.alias,
      name: packManifest.name,
      version: packManifest.version,
      dir,
      env: packManifest.env,
      permissions: approved,
      ...(Object.keys(approvedInterpreters).length === 0
        ? {}
        : { interpreters: approvedInterpreters }),
      ...(packManifest.policy === undefined ? {} : { policy: packManifest.policy }),
    });
  }
  return result;
}

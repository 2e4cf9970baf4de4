import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { loadSemver } from '../lazy-dependencies.ts';
import { z } from 'zod';
import {
  createDiagnostic,
  createIssueDiagnostics,
  normalizePermissions,
  packPermissionsSchema,
  type Diagnostic,
  type PackPermissions,
} from '@toolpack/core';
import { isValidIntegrity } from '../integrity/integrity.ts';
import { isToolHash } from '../pins/tool-hash.ts';
import type { LockedModule } from '../nuget/resolve-required-modules.ts';
import {
  isValidAlias,
  isValidPackName,
  isValidVersion,
  type PackDependency,
} from '../names/pack-names.ts';

const LOCK_FILE = 'toolpack.lock';
export const LOCKFILE_VERSION = 1;

/** What `mcp pack install` reproduces exactly: one installed pack. */
export interface LockEntry {
  name: string;
  version: string;
  /** Where the tarball came from: an http(s) URL, or `file:<folder>` relative to the project. */
  resolved: string;
  /** `sha512-<base64>` of the tarball. */
  integrity: string;
  /**
   * The permissions the user approved for this pack (normalised). Absent in entries written
   * before permissions existed: those count as `LEAST_PERMISSIONS` approved, so the next
   * install or update asks once.
   */
  permissions?: PackPermissions;
  /**
   * Served tool name -> `hashToolDefinition` of its definition, as approved. Absent: the
   * tools are not pinned yet (the next install or update pins them, asking once).
   */
  tools?: Record<string, string>;
  /**
   * The pack's own `interpreters:` as approved (extension -> argv). Absent: none approved, so
   * a pack that declares some runs its tools with the defaults until an install asks.
   */
  interpreters?: Record<string, string[]>;
  /**
   * The NuGet feed a PowerShell module came from (`mcp pack add <id> --source <feed>`): the
   * name of a `feeds:` entry of toolpack.yaml, a feed URL, or a folder relative to the
   * project. Absent for a pack from a Toolpack registry. Update and install ask this feed.
   */
  source?: string;
  /**
   * The module's NuGet id as its `source` feed spells it (`Az.Accounts` of the pack
   * `az--accounts`): the pack name keeps neither its case nor its dots.
   */
  id?: string;
  /**
   * A module's RequiredModules, resolved from its `source` feed and installed beside it, each
   * with its own package's hash. Absent when it requires none.
   */
  modules?: LockedModule[];
}

/**
 * `toolpack.lock` is JSON: `{ "lockfileVersion": 1, "packs": { "<alias>": LockEntry } }`,
 * aliases sorted, so it diffs and merges line by line.
 */
export interface Lockfile {
  lockfileVersion: number;
  packs: Record<string, LockEntry>;
}

const lockSchema = z.object({
  lockfileVersion: z.literal(LOCKFILE_VERSION, {
    error: (issue) =>
      `lockfileVersion ${JSON.stringify(issue.input)} is not supported (this version of Toolpack reads ${LOCKFILE_VERSION})`,
  }),
  packs: z.record(
    z.string().refine(isValidAlias, {
      error: (issue) => `${JSON.stringify(issue.input)} is not a valid alias`,
    }),
    z.object({
      name: z.string().refine(isValidPackName, { error: 'not a valid pack name' }),
      version: z.string().refine(isValidVersion, { error: 'not a valid semver version' }),
      resolved: z.string().min(1),
      integrity: z
        .string()
        .refine(isValidIntegrity, { error: 'not a sha512 integrity (sha512-<base64>)' }),
      permissions: packPermissionsSchema.optional(),
      tools: z
        .record(
          z.string().min(1),
          z.string().refine(isToolHash, { error: 'not a tool hash (sha256-<base64>)' }),
        )
        .optional(),
      interpreters: z
        .record(z.string().regex(/^\.[A-Za-z0-9]{1,16}$/), z.array(z.string().min(1)).min(1))
        .optional(),
      source: z.string().min(1).optional(),
      id: z.string().min(1).max(100).optional(),
      modules: z
        .array(
          z.object({
            id: z.string().min(1),
            version: z.string().refine(isValidVersion, { error: 'not a valid semver version' }),
            resolved: z.string().min(1),
            integrity: z
              .string()
              .refine(isValidIntegrity, { error: 'not a sha512 integrity (sha512-<base64>)' }),
          }),
        )
        .optional(),
    }),
  ),
});

export function createEmptyLockfile(): Lockfile {
  return { lockfileVersion: LOCKFILE_VERSION, packs: createPackTable() };
}

/**
 * `packs` is looked up by alias, and `constructor` is a valid alias: a plain object would
 * answer `Object` for it, so the table has no prototype.
 */
function createPackTable(entries: Record<string, LockEntry> = {}): Record<string, LockEntry> {
  return Object.assign(Object.create(null) as Record<string, LockEntry>, entries);
}

export function parseLockfile(
  text: string,
  file: string,
): { lock?: Lockfile; diagnostics: Diagnostic[] } {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    return {
      diagnostics: [
        createDiagnostic(
          'error',
          'E_LOCKFILE',
          `${LOCK_FILE} is not valid JSON: ${(error as Error).message}.`,
          { path: file },
          'Delete it and run mcp pack install to write it again.',
        ),
      ],
    };
  }
  const parsed = lockSchema.safeParse(json);
  if (!parsed.success) {
    return {
      diagnostics: createIssueDiagnostics(parsed.error.issues, {
        code: 'E_LOCKFILE',
        locate: () => ({ path: file }),
        hint: () => 'Delete toolpack.lock and run mcp pack install to write it again.',
      }),
    };
  }
  return { lock: { ...parsed.data, packs: createPackTable(parsed.data.packs) }, diagnostics: [] };
}

export interface ReadLockfileResult {
  file: string;
  exists: boolean;
  lock?: Lockfile;
  text?: string;
  diagnostics: Diagnostic[];
}

export async function readLockfile(dir: string): Promise<ReadLockfileResult> {
  const file = path.join(dir, LOCK_FILE);
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT')
      return { file, exists: false, diagnostics: [] };
    return {
      file,
      exists: true,
      diagnostics: [
        createDiagnostic(
          'error',
          'E_LOCKFILE',
          `Cannot read ${LOCK_FILE}: ${(error as Error).message}`,
          { path: file },
        ),
      ],
    };
  }
  return { file, exists: true, text, ...parseLockfile(text, file) };
}

export function serializeLockfile(lock: Lockfile): string {
  const packs: Record<string, LockEntry> = {};
  for (const alias of Object.keys(lock.packs).sort()) {
    const entry = lock.packs[alias]!;
    packs[alias] = {
      name: entry.name,
      version: entry.version,
      resolved: entry.resolved,
      integrity: entry.integrity,
      ...(entry.permissions === undefined
        ? {}
        : { permissions: normalizePermissions(entry.permissions) }),
      ...(entry.tools === undefined ? {} : { tools: sortByKey(entry.tools) }),
      ...(entry.interpreters === undefined || Object.keys(entry.interpreters).length === 0
        ? {}
        : { interpreters: sortByKey(entry.interpreters) }),
      ...(entry.source === undefined ? {} : { source: entry.source }),
      ...(entry.id === undefined ? {} : { id: entry.id }),
      ...(entry.modules === undefined || entry.modules.length === 0
        ? {}
        : {
            modules: entry.modules.map((m) => ({
              id: m.id,
              version: m.version,
              resolved: m.resolved,
              integrity: m.integrity,
            })),
          }),
    };
  }
  return `${JSON.stringify({ lockfileVersion: LOCKFILE_VERSION, packs }, null, 2)}\n`;
}

function sortByKey<T>(record: Record<string, T>): Record<string, T> {
  const sorted: Record<string, T> = {};
  for (const key of Object.keys(record).sort()) sorted[key] = record[key]!;
  return sorted;
}

/** One difference between toolpack.yaml's `packs:` and toolpack.lock. */
export interface LockDrift {
  alias: string;
  kind: 'not-locked' | 'not-in-manifest' | 'other-pack' | 'out-of-range';
  message: string;
}

/** What `--frozen` refuses: the lockfile no longer says what the manifest asks for. */
export function findLockDrift(
  dependencies: readonly PackDependency[],
  lock: Lockfile | undefined,
): LockDrift[] {
  const drift: LockDrift[] = [];
  const locked = lock?.packs ?? {};
  for (const dependency of dependencies) {
    const entry = Object.hasOwn(locked, dependency.alias) ? locked[dependency.alias] : undefined;
    if (entry === undefined) {
      drift.push({
        alias: dependency.alias,
        kind: 'not-locked',
        message: `${dependency.alias} (${dependency.name}@${dependency.range}) is in toolpack.yaml but not in toolpack.lock`,
      });
    } else if (entry.name !== dependency.name) {
      drift.push({
        alias: dependency.alias,
        kind: 'other-pack',
        message: `${dependency.alias} is ${dependency.name} in toolpack.yaml but ${entry.name} in toolpack.lock`,
      });
    } else if (
      !loadSemver().satisfies(entry.version, dependency.range, { includePrerelease: true })
    ) {
      drift.push({
        alias: dependency.alias,
        kind: 'out-of-range',
        message: `${dependency.alias} is locked at ${entry.version}, outside ${dependency.range} in toolpack.yaml`,
      });
    }
  }
  const wanted = new Set(dependencies.map((d) => d.alias));
  for (const alias of Object.keys(locked)) {
    if (!wanted.has(alias))
      drift.push({
        alias,
        kind: 'not-in-manifest',
        message: `${alias} is in toolpack.lock but not in toolpack.yaml`,
      });
  }
  return drift;
}

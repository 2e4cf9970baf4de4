import { randomBytes } from 'node:crypto';
import {
  lstat,
  mkdir,
  readFile,
  readdir,
  rename,
  rm,
  rmdir,
  unlink,
  writeFile,
} from 'node:fs/promises';
import path from 'node:path';
import { formatDiagnostic, ToolpackError } from '@toolpack/core';
import { readLockfile, type ReadLockfileResult } from '../lock/lockfile.ts';
import { readManifest, type ReadManifestResult } from '../manifest/parse-manifest.ts';

/** Installed packs live in `<project>/.toolpack/packs/<alias>/`. */
export const PACKS_DIR = path.join('.toolpack', 'packs');

export function packInstallDir(projectDir: string, alias: string): string {
  return path.join(projectDir, PACKS_DIR, alias);
}

export interface ProjectState {
  manifest: ReadManifestResult;
  lock: ReadLockfileResult;
}

/** Reads toolpack.yaml and toolpack.lock; throws (with every problem) when either is broken. */
export async function readProjectState(projectDir: string): Promise<ProjectState> {
  const [manifest, lock] = await Promise.all([readManifest(projectDir), readLockfile(projectDir)]);
  for (const [read, code] of [
    [manifest, 'E_MANIFEST'],
    [lock, 'E_LOCKFILE'],
  ] as const) {
    const errors = read.diagnostics.filter((d) => d.severity === 'error');
    if (errors.length > 0) {
      throw new ToolpackError(
        code,
        `${path.basename(read.file)} has problems, so nothing was changed:\n${errors.map((d) => `  ${formatDiagnostic({ ...d, path: path.basename(d.path) })}`).join('\n')}`,
        {
          path: read.file,
          hint:
            code === 'E_MANIFEST'
              ? 'Fix toolpack.yaml (mcp check shows each problem), then run the command again.'
              : 'Delete toolpack.lock and run mcp pack install to write it again.',
        },
      );
    }
  }
  return { manifest, lock };
}

/** The name and version a pack folder holds, read from its toolpack.yaml. */
export async function readInstalledIdentity(
  dir: string,
): Promise<{ name: string; version: string } | undefined> {
  try {
    const stats = await lstat(dir);
    if (!stats.isDirectory()) return undefined;
  } catch {
    return undefined;
  }
  const read = await readManifest(dir, { kind: 'pack' });
  return read.manifest === undefined
    ? undefined
    : { name: read.manifest.name, version: read.manifest.version };
}

export function randomSuffix(): string {
  return randomBytes(6).toString('hex');
}

/** Writes beside `file` then renames over it: a reader sees the old or the new text, never half. */
export async function writeFileAtomically(file: string, text: string): Promise<void> {
  const temporary = `${file}.${randomSuffix()}.tmp`;
  try {
    await writeFile(temporary, text, { flag: 'wx' });
    await rename(temporary, file);
  } catch (error) {
    await rm(temporary, { force: true }).catch(() => undefined);
    throw error;
  }
}

async function readTextIfAny(file: string): Promise<string | undefined> {
  try {
    return await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

async function exists(file: string): Promise<boolean> {
  return lstat(file).then(
    () => true,
    () => false,
  );
}

/**
 * Makes `.toolpack/packs` exist and returns the top folder it had to create (undefined when
 * it existed), so a failed command can remove what it made and leave the project as it was.
 */
export async function ensurePacksDir(projectDir: string): Promise<string | undefined> {
  return mkdir(path.join(projectDir, PACKS_DIR), { recursive: true });
}

/** Removes `.toolpack/packs` and `.toolpack` when they are empty. */
export async function removeEmptyPacksDirs(projectDir: string): Promise<void> {
  for (const dir of [path.join(projectDir, PACKS_DIR), path.join(projectDir, '.toolpack')]) {
    try {
      if ((await readdir(dir)).length > 0) return;
      await rmdir(dir);
    } catch {
      return;
    }
  }
}

export interface ProjectChange {
  /** Folders to put in place (`from`: a staged folder) or remove (`from` undefined) under `.toolpack/packs/`. */
  packs?: { alias: string; from?: string }[];
  /** New toolpack.yaml text; null deletes the file; absent leaves it. */
  manifest?: string | null;
  /** New toolpack.lock text; null deletes the file; absent leaves it. */
  lock?: string | null;
}

/**
 * Applies a change to a project all or nothing: pack folders are swapped by renames (the old
 * one set aside until the end), the files are written atomically, and any failure undoes
 * every step already taken, so the project is left exactly as it was.
 */
export async function commitProjectChange(
  projectDir: string,
  change: ProjectChange,
): Promise<void> {
  const undo: (() => Promise<unknown>)[] = [];
  const setAside: string[] = [];
  try {
    for (const { alias, from } of change.packs ?? []) {
      const dest = packInstallDir(projectDir, alias);
      if (await exists(dest)) {
        const aside = path.join(projectDir, PACKS_DIR, `.old-${alias}-${randomSuffix()}`);
        await rename(dest, aside);
        undo.push(() => rename(aside, dest));
        setAside.push(aside);
      }
      if (from !== undefined) {
        await rename(from, dest);
        undo.push(() => rename(dest, from));
      }
    }
    for (const [file, text] of [
      ['toolpack.yaml', change.manifest],
      ['toolpack.lock', change.lock],
    ] as const) {
      if (text === undefined) continue;
      const target = path.join(projectDir, file);
      const before = await readTextIfAny(target);
      if (text === null) {
        if (before === undefined) continue;
        await unlink(target);
      } else {
        await writeFileAtomically(target, text);
      }
      undo.push(() =>
        before === undefined ? rm(target, { force: true }) : writeFileAtomically(target, before),
      );
    }
  } catch (error) {
    for (const step of undo.reverse()) await step().catch(() => undefined);
    throw error;
  }
  for (const aside of setAside)
    await rm(aside, { recursive: true, force: true }).catch(() => undefined);
}

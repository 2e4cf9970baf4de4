import { createHash, randomBytes } from 'node:crypto';
import { lstatSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { ToolpackError } from '@toolpack/core';
import {
  COMPILE_CACHE_FOLDER,
  prepareRuntimeFolder,
  type RuntimeFolderAnswer,
} from './prepare-runtime-folder.ts';

let checked: RuntimeFolderAnswer | undefined;
let runFolder: string | undefined;
const tempFolders = new Map<string, string>();

/**
 * The private runtime folder (`prepareRuntimeFolder`), checked once per process. Throws
 * `E_RUNTIME_FOLDER` when it cannot be trusted.
 */
export function openRuntimeFolder(): string {
  checked ??= prepareRuntimeFolder(process.env);
  if ('problem' in checked) {
    throw new ToolpackError(
      'E_RUNTIME_FOLDER',
      `Toolpack's runtime folder ${checked.folder} cannot be used: ${checked.problem}.`,
      {
        hint: `Remove ${checked.folder} if it is not yours (or make it yours with mode 700), or set XDG_RUNTIME_DIR to a folder only you can use.`,
      },
    );
  }
  return checked.folder;
}

/** Node's compile cache for the children Toolpack starts unconfined, or undefined where the runtime folder cannot be used. */
export function findCompileCacheFolder(): string | undefined {
  try {
    return path.join(openRuntimeFolder(), COMPILE_CACHE_FOLDER);
  } catch {
    return undefined;
  }
}

/**
 * `NODE_COMPILE_CACHE` for a Node child started unconfined (a project's own JS module), so
 * that its `module.enableCompileCache()` keeps V8's code in the private runtime folder, not in
 * `<tmpdir>/node-compile-cache`. A confined child gets none: its temp folder is its own.
 */
export function buildCompileCacheEnvironment(): Record<string, string> {
  const folder = findCompileCacheFolder();
  return folder === undefined ? {} : { NODE_COMPILE_CACHE: folder };
}

/**
 * This process's own folder in the runtime folder (`run-<pid>-<random>`, 0700), removed when
 * the process exits. Folders of runs whose process is gone (killed) are removed as a new one
 * is made.
 */
export function openRunFolder(): string {
  if (runFolder !== undefined) return runFolder;
  const runtime = openRuntimeFolder();
  removeAbandonedRunFolders(runtime);
  const folder = path.join(runtime, `run-${process.pid}-${randomBytes(4).toString('hex')}`);
  mkdirSync(folder, { mode: 0o700 });
  runFolder = folder;
  process.once('exit', () => rmSync(folder, { recursive: true, force: true }));
  return folder;
}

/**
 * A confined tool's private temp folder (what `temp` grants), one per own folder (a pack) and
 * server run: bound as the sandbox's /tmp, never the machine's temp folder, so nothing of the
 * server or of another pack is there to read, replace or connect to.
 */
export function createSandboxTempFolder(ownFolder: string): string {
  let folder = tempFolders.get(ownFolder);
  if (folder === undefined) {
    const name = createHash('sha256').update(ownFolder).digest('hex').slice(0, 16);
    folder = path.join(openRunFolder(), `temp-${name}`);
    mkdirSync(folder, { recursive: true, mode: 0o700 });
    tempFolders.set(ownFolder, folder);
  }
  return folder;
}

/**
 * A 0700 folder of the runtime folder that outlives the run (`name`: one per kind of cache),
 * for what Toolpack makes once and reuses: never bound writable into a sandbox, so no pack
 * can plant what a later run reads. Throws `E_RUNTIME_FOLDER` when the runtime folder cannot
 * be used, or `name` is there but not a real folder of this user.
 */
export function openCacheFolder(name: string): string {
  const folder = path.join(openRuntimeFolder(), name);
  try {
    mkdirSync(folder, { mode: 0o700 });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  const stats = lstatSync(folder);
  const uid = process.getuid?.();
  if (!stats.isDirectory() || (uid !== undefined && stats.uid !== uid)) {
    throw new ToolpackError(
      'E_RUNTIME_FOLDER',
      `Toolpack's cache folder ${folder} is not a folder of yours.`,
      { hint: `Remove ${folder}; Toolpack makes it again.` },
    );
  }
  return folder;
}

/** A fresh 0700 folder for one channel socket (a PowerShell host's), inside this run's folder. */
export function createChannelFolder(): string {
  return mkdtempSync(path.join(openRunFolder(), 'host-'));
}

function removeAbandonedRunFolders(runtime: string): void {
  let names: string[];
  try {
    names = readdirSync(runtime);
  } catch {
    return;
  }
  for (const name of names) {
    const pid = /^run-(\d+)-[0-9a-f]+$/.exec(name)?.[1];
    if (pid === undefined || isAlive(Number(pid))) continue;
    rmSync(path.join(runtime, name), { recursive: true, force: true });
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

// Self-contained (node: built-ins only) and exported on its own (`@toolpack/containment/runtime-folder`):
// the CLI's bin.ts needs the folder before anything else loads, to point Node's compile cache there.
import { lstatSync, mkdirSync, statSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import path from 'node:path';

/** The private runtime folder, or why it may not be used. */
export type RuntimeFolderAnswer = { folder: string } | { folder: string; problem: string };

/** The sub-folder of the runtime folder that holds Node's compile cache. */
export const COMPILE_CACHE_FOLDER = 'node-compile-cache';

/**
 * Where Toolpack keeps its own sockets, caches and runtime files: `$XDG_RUNTIME_DIR/toolpack`
 * (a per-user tmpfs on systemd machines), else `<tmpdir>/toolpack-<uid>`. Never the temp
 * folder itself: there another user, or a sandboxed pack granted it, could plant a file
 * that an unconfined Toolpack reads, runs or connects to.
 */
export function locateRuntimeFolder(env: Readonly<NodeJS.ProcessEnv> = process.env): string {
  const xdg = env.XDG_RUNTIME_DIR;
  if (xdg !== undefined && path.isAbsolute(xdg)) return path.join(xdg, 'toolpack');
  const who = process.getuid?.() ?? userInfo().username;
  return path.join(tmpdir(), `toolpack-${who}`);
}

/**
 * Creates the runtime folder (0700) if it is missing and checks that it can be trusted: a
 * real folder (not a symlink), owned by this user, that nobody else may write or enter, in
 * a parent that nobody else may rename it in (owned by this user or root, and sticky when
 * others may write it). Another user who made the folder first (in a shared /tmp) could
 * otherwise read the sockets' tokens or plant compile-cache entries.
 */
export function prepareRuntimeFolder(
  env: Readonly<NodeJS.ProcessEnv> = process.env,
): RuntimeFolderAnswer {
  const folder = locateRuntimeFolder(env);
  try {
    mkdirSync(folder, { mode: 0o700 });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST')
      return { folder, problem: `it cannot be created: ${(error as Error).message}` };
  }
  if (process.platform === 'win32') return { folder };
  const uid = process.getuid?.();
  try {
    const parent = statSync(path.dirname(folder));
    if (uid !== undefined && parent.uid !== uid && parent.uid !== 0)
      return { folder, problem: `its parent folder belongs to user ${parent.uid}` };
    if ((parent.mode & 0o022) !== 0 && (parent.mode & 0o1000) === 0)
      return {
        folder,
        problem: `its parent folder may be written by others and is not sticky (mode ${formatMode(parent.mode)})`,
      };
    const stats = lstatSync(folder);
    if (!stats.isDirectory())
      return { folder, problem: 'it is not a folder (a symlink or a file)' };
    if (uid !== undefined && stats.uid !== uid)
      return { folder, problem: `it belongs to user ${stats.uid}, not to you (${uid})` };
    if ((stats.mode & 0o077) !== 0)
      return {
        folder,
        problem: `others may use it (mode ${formatMode(stats.mode)}; it must be 700)`,
      };
  } catch (error) {
    return { folder, problem: `it cannot be checked: ${(error as Error).message}` };
  }
  return { folder };
}

function formatMode(mode: number): string {
  return (mode & 0o7777).toString(8).padStart(3, '0');
}

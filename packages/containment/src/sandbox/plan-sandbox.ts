import { lstatSync, readdirSync, realpathSync } from 'node:fs';
import path from 'node:path';
import { ToolpackError, type ToolSandbox } from '@toolpack/core';
import { createSandboxTempFolder } from '../runtime-folder/run-folder.ts';

/**
 * What a confined child may touch, as absolute real paths, each bound inside the sandbox at
 * the same path (so script paths and `TOOLPACK_PROJECT_ROOT` stay valid there). Plain data:
 * `planSandbox` makes it, `spawnContained({ sandbox })` runs a child confined to it.
 */
export interface SandboxPlan {
  /** The tool's own folder (the installed pack, the source's folder): always read-only. */
  ownFolder: string;
  /**
   * Bound read-only: the own folder, the granted read roots that are not writable, the
   * runner's `runtimePaths`. The system's programs and libraries (/usr, a selection of /etc)
   * come on top, from the sandbox itself.
   */
  read: string[];
  /**
   * Bound read-write: the granted write roots (split around what must stay read-only in
   * them: see `planSandbox`), `writableRuntimePaths`.
   */
  write: string[];
  /** True for `network: any`: the child shares the host's network; else it gets loopback only. */
  network: boolean;
  /** Where the child starts: the project root when it may read it, else its own folder. */
  cwd: string;
  /**
   * The pack's own temp folder when `temp` was granted for writing, bound as the child's
   * `/tmp` (its `TMPDIR`): one per own folder and server run, made 0700 in Toolpack's private
   * runtime folder, never the machine's temp folder. Absent, the child gets a private, empty
   * `/tmp` that ends with it.
   */
  temp?: string;
  /**
   * Files bound read-only into the private HOME, which stays a writable tmpfs around them:
   * `source` is an absolute path outside the sandbox, `target` a path relative to HOME. Only
   * for files Toolpack itself made where no sandbox can write (a startup profile in its
   * private runtime folder), never a file of the user's own HOME or cache.
   */
  homeFiles?: readonly SandboxHomeFile[];
}

/** A file bound read-only into a sandbox's private HOME (`SandboxPlan.homeFiles`). */
export interface SandboxHomeFile {
  source: string;
  target: string;
}

/** What `planSandbox` resolves: the tool's grants, and what its runner needs besides. */
export interface PlanSandboxOptions {
  /** The tool's `source.sandbox`: its own folder and its permissions. */
  sandbox: ToolSandbox;
  /** The project root the `project` roots and a relative `sandbox.root` are resolved against. */
  projectRoot: string;
  /**
   * Absolute paths the runner knows the tool needs read-only to start: an interpreter's
   * install folder, node's, the runners' own child entry or PowerShell host script folder.
   * Paths that do not exist are left out (a runtime that is not installed has nothing to bind).
   * Never a path the confined code chose itself (a pack's own interpreter's argv): bound
   * here, it would be a grant nobody approved, such as the user's home folder.
   */
  runtimePaths?: readonly string[];
  /**
   * Absolute paths the runner itself needs writable inside the sandbox, never a grant of the
   * tool: the folder of the runner's channel socket, say. Create them before planning: paths
   * that do not exist are left out.
   */
  writableRuntimePaths?: readonly string[];
  /**
   * The folder to bind as `/tmp` when `temp` is granted; by default the own folder's temp
   * folder of this run (`createSandboxTempFolder`).
   */
  tempFolder?: string;
  /**
   * Files the runner binds read-only into the private HOME (`SandboxPlan.homeFiles`). Sources
   * that do not exist are left out.
   */
  homeFiles?: readonly SandboxHomeFile[];
}

/**
 * What stays read-only inside a writable project, because something outside the sandbox
 * reads or runs it: Toolpack's own state (the installed packs' code, the approved permissions
 * in `toolpack.lock`, the sources in `toolpack.yaml`; the names `@toolpack/packs` uses) and
 * the whole of git's `.git` (hooks, config with `core.fsmonitor`, and anything else git
 * reads as the user types `git status`). The sandbox's `protect` adds the project's own
 * sources.
 */
const PROTECTED_PROJECT_PATHS = ['.git', '.toolpack', 'toolpack.yaml', 'toolpack.lock'];

/**
 * Turns a tool's sandbox (its folder and approved permissions) into a `SandboxPlan`. Plan
 * again for every start: a tool that may write the project may have changed what its paths
 * resolve to, which only planning checks.
 *
 * - the own folder (`sandbox.root`, resolved against the project root) read-only;
 * - `project` and `project/<folder>` resolved under the project root (a granted folder that
 *   does not exist is left out: create it before the call if the tool should write there);
 * - `temp` (written): the pack's own temp folder of this run, bound as `/tmp`; read only, it
 *   grants nothing (that folder is empty to anyone else);
 * - a writable root that holds something run or read outside the sandbox (`.git`,
 *   `.toolpack`, `toolpack.yaml`, `toolpack.lock`, `sandbox.protect`) is bound read-only,
 *   and each entry in it writable except those and the folders leading to them. A read-only
 *   bind of a protected folder alone would not do: renaming its writable parent (`mv .git
 *   .git-old`, then a new `.git`) replaces it, and a read-only parent makes that impossible.
 *   Entries made after the plan are not writable until the next plan.
 *
 * Throws `E_SANDBOX_PATH` when the own folder is missing, or it (when in the project) or a
 * `project/<folder>` leads out of the project through a symlink (refused, never followed);
 * `E_SANDBOX_ARGUMENTS` for a relative runtime path (a runner's bug).
 */
export function planSandbox(options: PlanSandboxOptions): SandboxPlan {
  const { permissions } = options.sandbox;
  const projectRoot = readRealPath(path.resolve(options.projectRoot));
  const ownRoot = path.resolve(options.projectRoot, options.sandbox.root);
  const ownFolder = readRealPath(ownRoot);
  if (ownFolder === undefined) {
    throw new ToolpackError(
      'E_SANDBOX_PATH',
      `The folder of a confined tool, ${ownRoot}, does not exist.`,
      { hint: 'Install the pack again (mcp pack install), or fix the source path.' },
    );
  }
  // A tool that may write the project could swap its own folder for a link to ~/.ssh, to be
  // bound read-only at its next start: an own folder in the project must stay in it.
  if (
    projectRoot !== undefined &&
    isWithin(ownRoot, path.resolve(options.projectRoot)) &&
    !isWithin(ownFolder, projectRoot)
  ) {
    throw new ToolpackError(
      'E_SANDBOX_PATH',
      `The folder of a confined tool, ${ownRoot}, leads out of the project to ${ownFolder} through a symlink.`,
      { hint: 'Install the pack again (mcp pack install): its folder must be a real folder.' },
    );
  }
  const resolveRoot = (root: string): string | undefined => {
    if (projectRoot === undefined || root === 'temp') return undefined;
    if (root === 'project') return projectRoot;
    return resolveProjectFolder(projectRoot, root.slice('project/'.length));
  };
  const temp = permissions.filesystem.write.includes('temp')
    ? (options.tempFolder ?? createSandboxTempFolder(ownFolder))
    : undefined;
  const guarded =
    projectRoot === undefined
      ? []
      : findProtectedPaths(projectRoot, [
          ...PROTECTED_PROJECT_PATHS,
          ...(options.sandbox.protect ?? []),
        ]);
  const write = new Set<string>();
  const read = new Set<string>([ownFolder]);
  for (const root of permissions.filesystem.write) {
    const resolved = resolveRoot(root);
    if (resolved !== undefined) splitWritableRoot(resolved, guarded, read, write);
  }
  for (const runtimePath of readRuntimePaths(options.writableRuntimePaths)) write.add(runtimePath);
  // The own folder stays what was installed and checked, even inside a writable project.
  write.delete(ownFolder);
  for (const root of permissions.filesystem.read) {
    const resolved = resolveRoot(root);
    if (resolved !== undefined && !write.has(resolved)) read.add(resolved);
  }
  for (const runtimePath of readRuntimePaths(options.runtimePaths))
    if (!write.has(runtimePath)) read.add(runtimePath);
  const homeFiles = readHomeFiles(options.homeFiles);
  const visible = [...read, ...write];
  const cwd =
    projectRoot !== undefined && visible.some((folder) => isWithin(projectRoot, folder))
      ? projectRoot
      : ownFolder;
  return {
    ownFolder,
    read: [...read].sort(),
    write: [...write].sort(),
    network: permissions.network.access === 'any',
    cwd,
    ...(temp === undefined ? {} : { temp }),
    ...(homeFiles.length === 0 ? {} : { homeFiles }),
  };
}

/**
 * The home files whose source exists. A target must stay inside HOME: bound elsewhere, a
 * runner's file could hide a path the plan grants.
 */
function readHomeFiles(files: readonly SandboxHomeFile[] | undefined): SandboxHomeFile[] {
  const found: SandboxHomeFile[] = [];
  for (const { source, target } of files ?? []) {
    const segments = target.split(/[\\/]/u);
    if (
      !path.isAbsolute(source) ||
      path.isAbsolute(target) ||
      segments.some((segment) => segment === '' || segment === '.' || segment === '..')
    ) {
      throw new ToolpackError(
        'E_SANDBOX_ARGUMENTS',
        `A sandbox home file needs an absolute source and a plain path inside HOME; got ${JSON.stringify(source)} -> ${JSON.stringify(target)}.`,
        { hint: 'Give the target relative to HOME, without "." or ".." segments.' },
      );
    }
    if (readRealPath(source) !== undefined) found.push({ source, target });
  }
  return found;
}

/**
 * The protected paths that exist, by the path they are found at and, when that is a symlink
 * into the project, by where it leads too.
 */
function findProtectedPaths(projectRoot: string, names: readonly string[]): string[] {
  const found = new Set<string>();
  for (const name of names) {
    const lexical = path.resolve(projectRoot, name);
    if (!isWithin(lexical, projectRoot)) continue;
    found.add(lexical);
    const real = readRealPath(lexical);
    if (real !== undefined && isWithin(real, projectRoot)) found.add(real);
  }
  return [...found];
}

/**
 * Adds a granted writable folder to the plan: writable whole when nothing protected is in it,
 * read-only when it is itself in something protected, and else read-only with each entry
 * writable but the protected ones and those leading to them (which are split the same way).
 */
function splitWritableRoot(
  folder: string,
  guarded: readonly string[],
  read: Set<string>,
  write: Set<string>,
): void {
  if (guarded.some((protectedPath) => isWithin(folder, protectedPath))) {
    read.add(folder);
    return;
  }
  if (!guarded.some((protectedPath) => isWithin(protectedPath, folder))) {
    write.add(folder);
    return;
  }
  read.add(folder);
  let names: string[];
  try {
    names = readdirSync(folder);
  } catch {
    return;
  }
  for (const name of names) {
    const entry = path.join(folder, name);
    let kind: ReturnType<typeof lstatSync>;
    try {
      kind = lstatSync(entry);
    } catch {
      continue;
    }
    // A symlink stays as it is in the read-only folder: what it leads to is not bound by it.
    // Sockets and pipes are not files a tool writes.
    if (!kind.isDirectory() && !kind.isFile()) continue;
    splitWritableRoot(entry, guarded, read, write);
  }
}

/** True when `candidate` is `folder` or inside it (both absolute, normalised). */
export function isWithin(candidate: string, folder: string): boolean {
  if (candidate === folder) return true;
  const prefix = folder.endsWith(path.sep) ? folder : folder + path.sep;
  return candidate.startsWith(prefix);
}

function resolveProjectFolder(projectRoot: string, folder: string): string | undefined {
  const lexical = path.resolve(projectRoot, folder);
  const real = readRealPath(lexical);
  if (real === undefined) return undefined;
  if (!isWithin(real, projectRoot)) {
    throw new ToolpackError(
      'E_SANDBOX_PATH',
      `The granted folder project/${folder} is ${lexical}, which leads out of the project to ${real} through a symlink.`,
      {
        hint: 'A pack may only be granted folders inside the project: replace the symlink with a real folder, or grant nothing there.',
      },
    );
  }
  return real;
}

function readRuntimePaths(paths: readonly string[] | undefined): string[] {
  const found: string[] = [];
  for (const runtimePath of paths ?? []) {
    if (!path.isAbsolute(runtimePath)) {
      throw new ToolpackError(
        'E_SANDBOX_ARGUMENTS',
        `A sandbox runtime path must be absolute; got ${JSON.stringify(runtimePath)}.`,
        { hint: 'Resolve it against the folder it is relative to before planning the sandbox.' },
      );
    }
    const real = readRealPath(runtimePath);
    if (real !== undefined) found.push(real);
  }
  return found;
}

function readRealPath(target: string): string | undefined {
  try {
    return realpathSync(target);
  } catch {
    return undefined;
  }
}

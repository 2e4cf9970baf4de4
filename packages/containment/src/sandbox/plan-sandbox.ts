import { realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ToolpackError, type ToolSandbox } from '@toolpack/core';

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
  /** Bound read-write: the granted write roots, the real temp folder when `temp` was granted, `writableRuntimePaths`. */
  write: string[];
  /** True for `network: any`: the child shares the host's network; else it gets loopback only. */
  network: boolean;
  /** Where the child starts: the project root when it may read it, else its own folder. */
  cwd: string;
  /**
   * The real temp folder when `temp` was granted (the child's `TMPDIR`); absent, the child
   * gets a private, empty `/tmp` that ends with it.
   */
  temp?: string;
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
   */
  runtimePaths?: readonly string[];
  /**
   * Absolute paths the runner itself needs writable inside the sandbox, never a grant of the
   * tool: the folder of the runner's channel socket, say. Create them before planning: paths
   * that do not exist are left out.
   */
  writableRuntimePaths?: readonly string[];
}

/**
 * What stays read-only inside a writable project, because writing it reaches beyond the
 * sandbox: Toolpack's own state (the installed packs' code, the approved permissions in
 * `toolpack.lock`, the sources in `toolpack.yaml`; the names `@toolpack/packs` uses) and git's
 * hooks and configuration (code git runs, unconfined, at the user's next commit).
 */
const PROTECTED_PROJECT_PATHS = [
  '.toolpack',
  'toolpack.yaml',
  'toolpack.lock',
  path.join('.git', 'hooks'),
  path.join('.git', 'config'),
];

/**
 * Turns a tool's sandbox (its folder and approved permissions) into a `SandboxPlan`. Plan
 * again for every start: a tool that may write the project may have changed what its paths
 * resolve to, which only planning checks.
 *
 * - the own folder (`sandbox.root`, resolved against the project root) read-only;
 * - `project` and `project/<folder>` resolved under the project root (a granted folder that
 *   does not exist is left out: create it before the call if the tool should write there);
 * - `temp`: the real path of `os.tmpdir()`, writable;
 * - inside a writable project, Toolpack's own files (`.toolpack`, `toolpack.yaml`,
 *   `toolpack.lock`) and `.git/hooks`, `.git/config` read-only.
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
  let temp: string | undefined;
  const resolveRoot = (root: string): string | undefined => {
    if (root === 'temp') {
      temp ??= readRealPath(tmpdir());
      return temp;
    }
    if (projectRoot === undefined) return undefined;
    if (root === 'project') return projectRoot;
    return resolveProjectFolder(projectRoot, root.slice('project/'.length));
  };
  const write = new Set<string>();
  for (const root of permissions.filesystem.write) {
    const resolved = resolveRoot(root);
    if (resolved !== undefined) write.add(resolved);
  }
  for (const runtimePath of readRuntimePaths(options.writableRuntimePaths)) write.add(runtimePath);
  // The own folder stays what was installed and checked, even inside a writable project.
  write.delete(ownFolder);
  const read = new Set<string>([ownFolder]);
  if (projectRoot !== undefined) {
    for (const name of PROTECTED_PROJECT_PATHS) {
      const real = readRealPath(path.join(projectRoot, name));
      if (real === undefined || !isWithin(real, projectRoot)) continue;
      if ([...write].some((folder) => isWithin(real, folder))) {
        write.delete(real);
        read.add(real);
      }
    }
  }
  for (const root of permissions.filesystem.read) {
    const resolved = resolveRoot(root);
    if (resolved !== undefined && !write.has(resolved)) read.add(resolved);
  }
  for (const runtimePath of readRuntimePaths(options.runtimePaths))
    if (!write.has(runtimePath)) read.add(runtimePath);
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
    ...(temp === undefined || !write.has(temp) ? {} : { temp }),
  };
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

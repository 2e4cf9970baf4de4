import { spawn, type ChildProcess, type StdioOptions } from 'node:child_process';
import { accessSync, constants as fsConstants, realpathSync, statSync } from 'node:fs';
import { constants } from 'node:os';
import path from 'node:path';
import { ToolpackError } from '@toolpack/core';
import {
  MAX_NAMESPACE_FD,
  resolveContainment,
  type ContainmentMode,
  type ContainmentRequest,
} from './containment-mode.ts';
import { getGroupWatchdog } from './group-watchdog.ts';
import { killProcessTree } from './kill-process-tree.ts';
import {
  buildSandboxArgv,
  buildSandboxEnvironmentValues,
  SANDBOX_SYSTEM_ROOTS,
} from './sandbox/build-sandbox-argv.ts';
import { openPlanPaths, type OpenedPlanPaths } from './sandbox/open-plan-paths.ts';
import { isWithin, type SandboxPlan } from './sandbox/plan-sandbox.ts';
import { resolveSandbox } from './sandbox/probe-sandbox.ts';

export interface SpawnContainedOptions {
  command: string;
  args?: readonly string[];
  cwd?: string;
  /**
   * The child's whole environment. Required, so that no child inherits the server's by
   * accident: build it with `buildToolEnvironment`.
   */
  env: Readonly<Record<string, string>>;
  /** As for `child_process.spawn`; an `'ipc'` entry works in every mode. Default: three pipes. */
  stdio?: StdioOptions;
  /** Overrides `TOOLPACK_CONTAINMENT` for this child (tests; a caller that knows better). */
  mode?: ContainmentRequest;
  /**
   * Confines the child to this plan (`planSandbox`) under bubblewrap when the sandbox can be
   * had here (`describeSandbox`), instead of the containment mode's namespaces: it sees only
   * the plan's paths and the system's programs, a private HOME and /tmp, no network unless
   * `plan.network`; HOME and TMPDIR are set to the private ones. `cwd`, when given, must be
   * a folder the plan shows (else the child starts in `plan.cwd`). Where the sandbox cannot
   * be had the child runs as without a plan: check `ContainedProcess.sandboxed`, or refuse
   * beforehand with `describeSandbox`.
   */
  sandbox?: SandboxPlan;
}

export interface ContainedProcess {
  /** The started process. In namespace mode its pid is the outer launcher's, not the command's. */
  readonly child: ChildProcess;
  /** `namespace` when sandboxed: bwrap's namespaces give the same promises. */
  readonly mode: ContainmentMode;
  /** True when the child runs under the OS sandbox, confined to the plan it was given. */
  readonly sandboxed: boolean;
  /**
   * Kills the child and everything it started (SIGKILL; contained children are not asked
   * politely: ask through the child's own channel first if it should clean up).
   */
  kill(): void;
}

/** A PATH that finds nothing: an unset PATH would make spawn search a built-in default. */
const NO_PATH = '/nonexistent/toolpack-no-path';

const liveGroups = new Set<number>();
let exitHookInstalled = false;

/**
 * Starts a child for tool or pack code that cannot outlive its owner: see `ContainmentMode`,
 * and confined to a `SandboxPlan` when given one and the sandbox can be had.
 * Throws `E_CONTAINMENT_UNAVAILABLE` when namespace mode is forced and cannot be had,
 * `E_CONTAINMENT_MODE` for a wrong `TOOLPACK_CONTAINMENT` or `TOOLPACK_SANDBOX`, and
 * `E_SANDBOX_ARGUMENTS` when the command of a sandboxed child is outside its plan.
 * Call it from the main thread: in namespace mode the child dies with the thread that spawned it.
 */
export function spawnContained(options: SpawnContainedOptions): ContainedProcess {
  const probe = options.sandbox === undefined ? undefined : resolveSandbox();
  const bwrap = probe?.available === true ? probe.bwrap : undefined;
  const plan = bwrap === undefined ? undefined : options.sandbox;
  const sandboxed = plan !== undefined;
  const resolved: ResolvedMode = sandboxed
    ? { mode: 'namespace', reportsSignalsAsStatus: true }
    : resolveContainmentMode(options.mode);
  const windows = process.platform === 'win32';
  const args = options.args ?? [];
  let command = options.command;
  let argv: string[] = [...args];
  let env: Record<string, string> = { ...options.env };
  let stdio: StdioOptions = options.stdio ?? ['pipe', 'pipe', 'pipe'];
  let opened: OpenedPlanPaths | undefined;
  if (plan !== undefined && bwrap !== undefined) {
    // What the PATH search inside would find: the first candidate the sandbox shows.
    const executable = findExecutable(options.command, options.env, options.cwd, (candidate) =>
      isVisibleInSandbox(candidate, plan),
    );
    const outside =
      executable === undefined
        ? findExecutable(options.command, options.env, options.cwd)
        : undefined;
    if (outside !== undefined) {
      throw new ToolpackError(
        'E_SANDBOX_ARGUMENTS',
        `${outside} would run confined, but it is outside the sandbox: the plan shows only the system's programs and ${[...plan.read, ...plan.write].join(', ')}.`,
        { hint: "Pass the program's install folder in planSandbox's runtimePaths." },
      );
    }
    if (executable !== undefined) {
      const cwd =
        options.cwd !== undefined && isVisibleInSandbox(options.cwd, plan)
          ? realpathSync(options.cwd)
          : plan.cwd;
      // The plan's paths go to bwrap as fds after the caller's stdio entries (bwrap closes them).
      opened = openPlanPaths(plan);
      const entries = typeof stdio === 'string' ? [stdio, stdio, stdio] : [...stdio];
      const boundFds = new Map<string, number | null>();
      for (const [planned, fd] of opened.fds) {
        boundFds.set(planned, fd === null ? null : entries.length);
        if (fd !== null) entries.push(fd);
      }
      stdio = entries;
      command = bwrap;
      argv = buildSandboxArgv({ plan: { ...plan, cwd }, boundFds, command: executable, args });
      env = { ...env, ...buildSandboxEnvironmentValues() };
    } else {
      env = { ...env, PATH: options.env.PATH || NO_PATH };
    }
  } else if (resolved.prefix !== undefined) {
    if (Array.isArray(stdio) && stdio.length > MAX_NAMESPACE_FD + 1) {
      throw new ToolpackError(
        'E_CONTAINMENT_STDIO',
        `A contained child may be given fds 0-${MAX_NAMESPACE_FD}; this one asks for ${stdio.length}.`,
        {
          hint: 'Pass fewer stdio entries (multiplex over one socket), or set mode: "process-group".',
        },
      );
    }
    const executable = findExecutable(options.command, options.env, options.cwd);
    if (executable !== undefined) {
      const [launcher = '', ...prefix] = resolved.prefix;
      command = launcher;
      argv = [...prefix, executable, ...args];
    } else {
      // A missing or non-executable command is left to spawn itself, so the caller sees the
      // same ENOENT/EACCES 'error' event as without containment. It searches the same PATH
      // (never a built-in default), so it cannot find and run uncontained what was not found.
      env = { ...env, PATH: options.env.PATH || NO_PATH };
    }
  }
  // Started before the child, not after: an owner killed between the two would otherwise
  // leave a child nothing supervises. What remains is the instant between spawn returning and
  // the registration below, both synchronous.
  const watchdog = resolved.mode === 'process-group' && !windows ? getGroupWatchdog() : undefined;
  let child: ChildProcess;
  try {
    child = spawn(command, argv, {
      ...(options.cwd === undefined ? {} : { cwd: options.cwd }),
      env,
      stdio,
      // Its own process group (POSIX): one signal reaches all it started. On Windows `detached` opens a console.
      detached: !windows,
      windowsHide: true,
    });
  } finally {
    // The child has its copies once spawn returns.
    opened?.close();
  }
  if (resolved.reportsSignalsAsStatus) reportSignalDeaths(child);
  const pid = child.pid;
  if (pid !== undefined) {
    watchdog?.register(pid);
    if (!windows) trackGroup(pid);
    child.once('exit', () => {
      // Sweep what the child left in its group (a background `sleep &`): its processes end with it.
      if (!windows) {
        killProcessTree(pid);
        liveGroups.delete(pid);
      }
      watchdog?.unregister(pid);
    });
  }
  return {
    child,
    mode: resolved.mode,
    sandboxed,
    kill() {
      if (pid !== undefined && child.exitCode === null && child.signalCode === null)
        killProcessTree(pid);
    },
  };
}

interface ResolvedMode {
  mode: ContainmentMode;
  /** For `namespace`: the argv prefix. */
  prefix?: readonly string[];
  /** The launcher exits with 128 + N when the command dies of signal N (an init `sh`, bwrap). */
  reportsSignalsAsStatus: boolean;
}

function resolveContainmentMode(request: ContainmentRequest | undefined): ResolvedMode {
  const resolved = resolveContainment(request);
  return {
    mode: resolved.mode,
    ...(resolved.prefix === undefined ? {} : { prefix: resolved.prefix }),
    reportsSignalsAsStatus: resolved.mode === 'namespace',
  };
}

/** Whether `target` (its real path) is bound inside a sandbox confined to `plan`. */
function isVisibleInSandbox(target: string, plan: SandboxPlan): boolean {
  let real: string;
  try {
    real = realpathSync(target);
  } catch {
    return false;
  }
  return [...SANDBOX_SYSTEM_ROOTS, ...plan.read, ...plan.write].some((folder) =>
    isWithin(real, folder),
  );
}

/**
 * In a namespace the command runs below an init `sh` (or bwrap), which can only pass a death
 * by signal N on as exit status 128 + N. Turned back into the signal for 'exit' and 'close' listeners, as
 * a shell reports it (a command that exits with 130 on its own reads as SIGINT too).
 */
function reportSignalDeaths(child: ChildProcess): void {
  const emit = child.emit.bind(child);
  child.emit = ((event: string | symbol, ...args: unknown[]) => {
    if ((event === 'exit' || event === 'close') && args[1] === null) {
      const signal = readSignalOfStatus(args[0]);
      if (signal !== undefined) return emit(event, null, signal, ...args.slice(2));
    }
    return emit(event, ...args);
  }) as ChildProcess['emit'];
}

function readSignalOfStatus(status: unknown): NodeJS.Signals | undefined {
  if (typeof status !== 'number' || status <= 128) return undefined;
  const number = status - 128;
  return (Object.keys(constants.signals) as NodeJS.Signals[]).find(
    (name) => constants.signals[name] === number,
  );
}

/** A normal exit of the server still kills what it started, in every mode. */
function trackGroup(pid: number): void {
  liveGroups.add(pid);
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.once('exit', () => {
    for (const group of liveGroups) killProcessTree(group);
  });
}

/**
 * What `spawn` would run: a path (relative to cwd) as is, a bare name on the child's PATH;
 * only candidates `accept` takes (those a sandbox shows).
 */
function findExecutable(
  command: string,
  env: Readonly<Record<string, string>>,
  cwd: string | undefined,
  accept: (candidate: string) => boolean = () => true,
): string | undefined {
  const candidates = command.includes('/')
    ? [path.resolve(cwd ?? process.cwd(), command)]
    : env.PATH === undefined || env.PATH === ''
      ? []
      : env.PATH.split(path.delimiter)
          // An empty entry means the working folder, as for execvp.
          .map((dir) => path.resolve(cwd ?? process.cwd(), dir, command));
  for (const candidate of candidates) {
    try {
      accessSync(candidate, fsConstants.X_OK);
      if (statSync(candidate).isFile() && accept(candidate)) return candidate;
    } catch {
      // Not here.
    }
  }
  return undefined;
}

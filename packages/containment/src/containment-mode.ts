import { spawnSync } from 'node:child_process';
import { ToolpackError } from '@toolpack/core';
import { findSystemTool } from './find-system-tool.ts';

/**
 * - `namespace`: Linux, the child runs in its own user + PID + mount namespace with a fresh
 *   /proc; it dies with its owner and sees no process outside its namespace.
 * - `process-group`: the child leads its own process group, and a small `sh` watchdog that
 *   outlives the server kills the registered groups when the server is gone.
 * - `off`: the child leads its own process group (killed with its call), nothing more.
 */
export type ContainmentMode = 'namespace' | 'process-group' | 'off';

/** What `TOOLPACK_CONTAINMENT` (or the `mode` option) may ask for; `auto` picks the strongest that works. */
export type ContainmentRequest = ContainmentMode | 'auto';

export interface ContainmentDescription {
  mode: ContainmentMode;
  /** One sentence: why this mode (the probe's failure, the variable that forced it, the platform). */
  reason: string;
  /** False when the requested mode cannot be had: children will not start until it is fixed. */
  usable: boolean;
}

export const CONTAINMENT_ENV_VARIABLE = 'TOOLPACK_CONTAINMENT';

const REQUESTS: readonly ContainmentRequest[] = ['auto', 'namespace', 'process-group', 'off'];

interface NamespaceProbe {
  /** The argv that goes before the child's command, when namespaces work. */
  prefix?: readonly string[];
  reason: string;
}

let probed: NamespaceProbe | undefined;

/** Reads the request from `TOOLPACK_CONTAINMENT`; a wrong value is an error, never a silent downgrade. */
export function readContainmentRequest(
  environment: NodeJS.ProcessEnv = process.env,
): ContainmentRequest {
  const raw = environment[CONTAINMENT_ENV_VARIABLE]?.trim().toLowerCase();
  if (raw === undefined || raw === '') return 'auto';
  if ((REQUESTS as readonly string[]).includes(raw)) return raw as ContainmentRequest;
  throw new ToolpackError(
    'E_CONTAINMENT_MODE',
    `${CONTAINMENT_ENV_VARIABLE}=${environment[CONTAINMENT_ENV_VARIABLE]} is not a containment mode.`,
    { hint: `Use one of ${REQUESTS.join(', ')} (or leave it unset for auto).` },
  );
}

/**
 * The argv prefix that starts a command in fresh namespaces (the command follows it):
 * - `setpriv --pdeathsig KILL`: the outer process dies when the thread that spawned it does,
 *   even by SIGKILL, where no exit hook runs;
 * - `unshare --user --map-current-user --pid --fork --kill-child --mount-proc`: the command is
 *   the init of a new PID namespace (everything in it dies when it exits, and when unshare dies)
 *   and sees a /proc of that namespace only;
 * - as root, `setpriv --bounding-set -all --inh-caps -all` inside: root in the new user
 *   namespace could otherwise unmount the fresh /proc and read the host's again. Other users
 *   lose their capabilities at exec anyway.
 */
export function buildNamespacePrefix(setpriv: string, unshare: string, sh: string): string[] {
  const prefix = [
    setpriv,
    '--pdeathsig',
    'KILL',
    unshare,
    '--user',
    '--map-current-user',
    '--pid',
    '--fork',
    '--kill-child',
    '--mount-proc',
    '--',
  ];
  if (process.getuid?.() === 0)
    prefix.push(setpriv, '--bounding-set', '-all', '--inh-caps', '-all', '--');
  prefix.push(sh, '-c', NAMESPACE_INIT_SCRIPT, 'toolpack-init');
  return prefix;
}

/**
 * The same promises as `buildNamespacePrefix` from one program instead of four (setpriv,
 * unshare, setpriv as root, the init `sh`), where bubblewrap is installed: about 1.3 ms less
 * per process start (2.7 ms against 4.0 ms for `/bin/true`, sequential, 2 cores):
 * - `--die-with-parent`: bwrap and the namespace's init get SIGKILL when the thread that
 *   spawned bwrap dies, as `setpriv --pdeathsig KILL` gives;
 * - `--unshare-user --unshare-pid` with bwrap's own init as PID 1 and the command as PID 2
 *   (so `kill $$` works as usual); everything in the namespace dies when the command exits;
 *   bwrap exits with the command's status, 128 + N for a death by signal N, as the init `sh`;
 * - `--dev-bind / /` then `--proc /proc`: the same files as before and a /proc of the
 *   namespace only;
 * - `--cap-drop ALL`: no capability inside, root included, so the fresh /proc cannot be
 *   unmounted to find the host's again.
 */
function buildBubblewrapPrefix(bwrap: string): string[] {
  return [
    bwrap,
    '--unshare-user',
    '--unshare-pid',
    '--die-with-parent',
    '--dev-bind',
    '/',
    '/',
    '--proc',
    '/proc',
    '--cap-drop',
    'ALL',
    '--',
  ];
}

/**
 * PID 1 of the namespace, so that the command is not: the kernel drops every signal PID 1
 * sends itself (or gets from its namespace) without a handler, so a tool running `kill $$`,
 * `process.kill(process.pid)` or `kill -SEGV $$` as PID 1 would not die. This `sh` runs the
 * command in a subshell (PID 2, which execs it) and exits with its status, 128 + N for a
 * death by signal N (which `spawnContained` reports as that signal again). The shell's own
 * stderr goes to /dev/null, so that its "Segmentation fault" or "Terminated" never mixes into
 * the command's; fd 9 carries the real one across (so a child may get at most fds 0-8).
 */
const NAMESPACE_INIT_SCRIPT = 'exec 9>&2 2>/dev/null; ("$@" 2>&9 9>&-); exit $?';

/** The highest fd a child may be given in namespace mode: the init `sh` borrows fd 9. */
export const MAX_NAMESPACE_FD = 8;

/** Tries the namespace prefix once per process (a few milliseconds) and remembers the answer. */
function probeNamespaces(): NamespaceProbe {
  if (probed !== undefined) return probed;
  probed = runNamespaceProbe();
  return probed;
}

function runNamespaceProbe(): NamespaceProbe {
  if (process.platform !== 'linux')
    return { reason: `namespaces are Linux-only (this is ${process.platform})` };
  const sh = findSystemTool('sh');
  // bwrap only from the system folders, as for the sandbox: one on a PATH could be anything.
  const bwrap = findSystemTool('bwrap', '');
  if (bwrap !== undefined && sh !== undefined) {
    const prefix = buildBubblewrapPrefix(bwrap);
    if (tryPrefix(prefix, [sh, '-c', 'exit 0']).ok)
      return {
        prefix,
        reason: 'unprivileged user, PID and mount namespaces work here (through bubblewrap)',
      };
  }
  const setpriv = findSystemTool('setpriv');
  const unshare = findSystemTool('unshare');
  if (setpriv === undefined || unshare === undefined || sh === undefined)
    return { reason: 'setpriv and unshare (util-linux) or sh were not found' };
  const prefix = buildNamespacePrefix(setpriv, unshare, sh);
  const check = tryPrefix(prefix, [setpriv, '--dump']);
  if (check.error !== undefined)
    return { reason: `the namespace probe could not run: ${check.error}` };
  if (!check.ok) {
    return {
      reason: `unprivileged user namespaces are refused here (${check.why}); AppArmor's userns restriction or an old util-linux can cause this`,
    };
  }
  return { prefix, reason: 'unprivileged user, PID and mount namespaces work here' };
}

/** Runs `command` below `prefix` once: did it start and exit 0? */
function tryPrefix(
  prefix: readonly string[],
  command: readonly string[],
): { ok: boolean; error?: string; why?: string } {
  const [launcher = '', ...args] = prefix;
  const check = spawnSync(launcher, [...args, ...command], {
    encoding: 'utf8',
    timeout: 5_000,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  if (check.error !== undefined) return { ok: false, error: check.error.message };
  if (check.status === 0) return { ok: true };
  const why = check.stderr.trim().split('\n').slice(-1)[0] ?? '';
  return { ok: false, why: why || `exit ${check.status}` };
}

export interface ResolvedContainment extends ContainmentDescription {
  /** For `namespace`: the argv prefix. */
  prefix?: readonly string[];
}

/** The mode a child gets, given the request (option, else `TOOLPACK_CONTAINMENT`, else auto). */
export function resolveContainment(request?: ContainmentRequest): ResolvedContainment {
  return request === undefined
    ? resolveRequest(readContainmentRequest(), CONTAINMENT_ENV_VARIABLE)
    : resolveRequest(request, 'the mode option');
}

function resolveRequest(requested: ContainmentRequest, source: string): ResolvedContainment {
  // Windows has no namespaces: a forced `namespace` falls through to the probe's refusal below.
  if (process.platform === 'win32' && requested !== 'namespace') {
    return {
      mode: requested === 'off' ? 'off' : 'process-group',
      reason:
        'Windows: a call’s process tree is killed with taskkill /T; nothing kills it if the server itself is killed',
      usable: true,
    };
  }
  if (requested === 'off') return { mode: 'off', reason: `${source} asks for off`, usable: true };
  if (requested === 'process-group') {
    return {
      mode: 'process-group',
      reason: `${source} asks for process-group (a watchdog kills the groups when the server dies)`,
      usable: true,
    };
  }
  const probe = probeNamespaces();
  if (probe.prefix !== undefined)
    return { mode: 'namespace', reason: probe.reason, prefix: probe.prefix, usable: true };
  if (requested === 'namespace') {
    throw new ToolpackError(
      'E_CONTAINMENT_UNAVAILABLE',
      `${source} asks for namespace containment, but ${probe.reason}.`,
      {
        hint: `Allow unprivileged user namespaces, or set ${CONTAINMENT_ENV_VARIABLE}=process-group.`,
      },
    );
  }
  return {
    mode: 'process-group',
    reason: `${probe.reason}; falling back to process groups and a watchdog`,
    usable: true,
  };
}

/**
 * What `mcp doctor` reports: the mode children of a process with this environment get, and
 * why. Never throws: a wrong or unavailable request is `usable: false` with the reason.
 */
export function describeContainment(
  environment: NodeJS.ProcessEnv = process.env,
): ContainmentDescription {
  let requested: ContainmentRequest = 'auto';
  try {
    requested = readContainmentRequest(environment);
    const { mode, reason, usable } = resolveRequest(requested, CONTAINMENT_ENV_VARIABLE);
    return { mode, reason, usable };
  } catch (error) {
    return {
      mode: requested === 'auto' ? 'namespace' : requested,
      reason: error instanceof Error ? error.message : String(error),
      usable: false,
    };
  }
}

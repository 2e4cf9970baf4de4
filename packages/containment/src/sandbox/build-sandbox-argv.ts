import { lstatSync, readlinkSync } from 'node:fs';
import path from 'node:path';
import type { SandboxPlan } from './plan-sandbox.ts';

/** The confined child's HOME: an empty, writable tmpfs that ends with it. */
export const SANDBOX_HOME = '/home/toolpack';

/** The confined child's private temp folder when `temp` was not granted. */
const PRIVATE_TMP = '/tmp';

/**
 * The top-level folders of the system's programs and libraries. Merged-/usr systems have
 * /bin, /lib... as symlinks into /usr: they are recreated as the same symlinks inside.
 */
const SYSTEM_FOLDERS = ['/bin', '/sbin', '/lib', '/lib32', '/lib64', '/libx32'];

/**
 * What of /etc a program needs to start, find its user and group names and tell the time.
 * Never /etc wholesale: shadow, ssh host keys and TLS keys live there (and a tool run by root
 * is root inside too, the owner of those files). Each file is a mount (about 0.13 ms).
 */
const ETC_FILES = [
  '/etc/ld.so.cache',
  '/etc/ld.so.conf',
  '/etc/ld.so.conf.d',
  '/etc/passwd',
  '/etc/group',
  '/etc/nsswitch.conf',
  '/etc/hosts',
  '/etc/localtime',
  '/etc/timezone',
  '/etc/locale.alias',
  '/etc/locale.conf',
  '/etc/alternatives',
  '/etc/os-release',
  '/etc/mime.types',
];

/** What resolving names and checking certificates needs: bound only for `network: any`. */
const NETWORK_ETC_FILES = [
  '/etc/host.conf',
  '/etc/resolv.conf',
  '/etc/gai.conf',
  '/etc/services',
  '/etc/protocols',
  // Certificates and OpenSSL's configuration, not /etc/ssl/private (TLS keys).
  '/etc/ssl/certs',
  '/etc/ssl/openssl.cnf',
  '/etc/pki/ca-trust',
  '/etc/pki/tls/certs',
  '/etc/pki/tls/cert.pem',
  '/etc/pki/tls/openssl.cnf',
  '/etc/ca-certificates',
  '/etc/ca-certificates.conf',
  '/etc/crypto-policies',
];

/** What every sandbox shows of the system, besides /proc, /dev and its private folders. */
export const SANDBOX_SYSTEM_ROOTS: readonly string[] = ['/usr', ...SYSTEM_FOLDERS, ...ETC_FILES];

export interface BuildSandboxArgvOptions {
  plan: Pick<SandboxPlan, 'read' | 'write' | 'network' | 'cwd' | 'temp' | 'homeFiles'>;
  /**
   * The child's fd of each plan path opened beforehand (`openPlanPaths`), bound by fd; null
   * leaves a path out. A path without an entry is bound by name (`--bind-try`).
   */
  boundFds?: ReadonlyMap<string, number | null>;
  /** The absolute path of the program to run inside. */
  command: string;
  args: readonly string[];
}

/**
 * bwrap's arguments (after `bwrap` itself) for running `command` confined to `plan`:
 * - every namespace bwrap can make (`--unshare-all`: user, PID, mount, IPC, UTS, cgroup, net),
 *   the host's network only for `plan.network`; bwrap is the PID namespace's init, so the
 *   command is not PID 1 (signals it sends itself work) and nothing it starts outlives it;
 * - the user namespace required (not just tried) so that `--disable-userns` can stop the
 *   child making namespaces of its own, where it would hold every capability again (a
 *   kernel's favourite attack surface);
 * - `--die-with-parent`, `--new-session` (no TIOCSTI into the owner's terminal) and
 *   `--cap-drop ALL`: run as root, bwrap keeps every capability inside its user namespace,
 *   enough to remount a read-only bind writable;
 * - the system read-only (/usr, the /bin, /lib... symlinks or binds, a selection of /etc,
 *   with name resolution and certificates only for `plan.network`), a
 *   fresh /proc and a minimal /dev, a private HOME (tmpfs) and /tmp (tmpfs, or the pack's
 *   own temp folder, `plan.temp`, when `temp` was granted: never the machine's), with
 *   `plan.homeFiles` bound read-only in that HOME;
 * - the plan's paths at their own paths, parents before children, so a writable folder inside
 *   a read-only project stays writable and a read-only own folder inside a writable project
 *   stays read-only.
 */
export function buildSandboxArgv(options: BuildSandboxArgvOptions): string[] {
  const { plan } = options;
  const argv = ['--unshare-all', '--unshare-user', '--disable-userns'];
  if (plan.network) argv.push('--share-net');
  argv.push('--die-with-parent', '--new-session', '--cap-drop', 'ALL');
  argv.push('--ro-bind', '/usr', '/usr');
  for (const folder of SYSTEM_FOLDERS) {
    const target = readSymlinkTarget(folder);
    if (target === undefined) argv.push('--ro-bind-try', folder, folder);
    else argv.push('--symlink', target, folder);
  }
  for (const file of plan.network ? [...ETC_FILES, ...NETWORK_ETC_FILES] : ETC_FILES)
    argv.push('--ro-bind-try', file, file);
  argv.push('--proc', '/proc', '--dev', '/dev');
  // Before the plan's paths: a project that lives under /tmp is bound over it, not hidden.
  if (plan.temp === undefined) argv.push('--tmpfs', PRIVATE_TMP);
  else argv.push('--bind', plan.temp, PRIVATE_TMP);
  argv.push('--tmpfs', SANDBOX_HOME);
  // Read-only inside the writable HOME: a bind's mount point cannot be written, replaced,
  // renamed or removed, so no run can leave another a file it reads.
  for (const { source, target } of plan.homeFiles ?? [])
    argv.push('--ro-bind-try', source, path.posix.join(SANDBOX_HOME, target));
  const binds = [
    ...plan.read.map((folder) => ({ folder, writable: false })),
    ...plan.write.map((folder) => ({ folder, writable: true })),
  ].sort((a, b) => countSegments(a.folder) - countSegments(b.folder));
  for (const { folder, writable } of binds) {
    const fd = options.boundFds?.get(folder);
    if (fd === null) continue;
    if (fd === undefined)
      // -try: a granted folder removed since the plan was made is left out, not a failed start.
      argv.push(writable ? '--bind-try' : '--ro-bind-try', folder, folder);
    else argv.push(writable ? '--bind-fd' : '--ro-bind-fd', String(fd), folder);
  }
  argv.push('--chdir', plan.cwd, '--', options.command, ...options.args);
  return argv;
}

/** HOME and TMPDIR for the confined child: its private ones (its /tmp is its pack's own temp folder when granted). */
export function buildSandboxEnvironmentValues(): Record<string, string> {
  return { HOME: SANDBOX_HOME, TMPDIR: PRIVATE_TMP };
}

function countSegments(folder: string): number {
  return folder.split(path.sep).filter(Boolean).length;
}

const symlinkTargets = new Map<string, string | undefined>();

function readSymlinkTarget(file: string): string | undefined {
  if (!symlinkTargets.has(file)) {
    let target: string | undefined;
    try {
      if (lstatSync(file).isSymbolicLink()) target = readlinkSync(file);
    } catch {
      // Missing: bound with --ro-bind-try, which skips it.
    }
    symlinkTargets.set(file, target);
  }
  return symlinkTargets.get(file);
}

import { lstatSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  SANDBOX_HOME,
  buildSandboxArgv,
  buildSandboxEnvironmentValues,
} from './build-sandbox-argv.ts';

const plan = {
  read: ['/work/project', '/work/project/.toolpack/packs/jira', '/opt/node'],
  write: ['/work/project/out'],
  network: false,
  cwd: '/work/project',
};

/** The argv as its options: each flag with the arguments it takes. */
function readMounts(argv: readonly string[]): string[][] {
  const takes: Record<string, number> = {
    '--ro-bind': 2,
    '--ro-bind-try': 2,
    '--bind': 2,
    '--bind-try': 2,
    '--ro-bind-fd': 2,
    '--bind-fd': 2,
    '--symlink': 2,
    '--proc': 1,
    '--dev': 1,
    '--tmpfs': 1,
    '--chdir': 1,
    '--cap-drop': 1,
  };
  const mounts: string[][] = [];
  for (let index = 0; index < argv.length; index += 1) {
    const flag = argv[index] ?? '';
    if (flag === '--') break;
    const count = takes[flag] ?? 0;
    mounts.push(argv.slice(index, index + 1 + count));
    index += count;
  }
  return mounts;
}

describe('buildSandboxArgv', () => {
  const argv = buildSandboxArgv({ plan, command: '/usr/bin/sh', args: ['-c', 'echo hi'] });
  const mounts = readMounts(argv);
  const indexOf = (...entry: string[]) =>
    mounts.findIndex((mount) => mount.join('\0') === entry.join('\0'));

  it('unshares every namespace, keeps no capability, dies with its parent in a new session', () => {
    expect(argv.slice(0, 3)).toEqual(['--unshare-all', '--unshare-user', '--disable-userns']);
    expect(argv).not.toContain('--share-net');
    for (const entry of [['--die-with-parent'], ['--new-session'], ['--cap-drop', 'ALL']])
      expect(indexOf(...entry)).toBeGreaterThanOrEqual(0);
    // bwrap is the namespace's init: the command must not be PID 1.
    expect(argv).not.toContain('--as-pid-1');
  });

  it('shares the network only when the plan has it', () => {
    const networked = buildSandboxArgv({
      plan: { ...plan, network: true },
      command: '/x',
      args: [],
    });
    expect(networked.slice(0, 4)).toEqual([
      '--unshare-all',
      '--unshare-user',
      '--disable-userns',
      '--share-net',
    ]);
  });

  it('ends with --chdir to the plan cwd and the command after --', () => {
    expect(argv.slice(-6)).toEqual([
      '--chdir',
      '/work/project',
      '--',
      '/usr/bin/sh',
      '-c',
      'echo hi',
    ]);
  });

  it('shows the system read-only and some /etc files, never /etc itself or its secrets', () => {
    expect(indexOf('--ro-bind', '/usr', '/usr')).toBeGreaterThanOrEqual(0);
    expect(mounts.some((mount) => mount[1] === '/etc')).toBe(false);
    for (const file of ['/etc/ld.so.cache', '/etc/passwd', '/etc/localtime'])
      expect(indexOf('--ro-bind-try', file, file)).toBeGreaterThanOrEqual(0);
    const etc = mounts.filter((mount) => mount[1]?.startsWith('/etc'));
    expect(etc.every((mount) => mount[0] === '--ro-bind-try')).toBe(true);
    for (const secret of ['/etc/shadow', '/etc/ssh', '/etc/ssl/private', '/etc/sudoers'])
      expect(etc.some((mount) => secret.startsWith(mount[1] ?? ''))).toBe(false);
  });

  it('shows name resolution and certificates only with the network', () => {
    const networked = readMounts(
      buildSandboxArgv({ plan: { ...plan, network: true }, command: '/x', args: [] }),
    );
    for (const file of ['/etc/resolv.conf', '/etc/ssl/certs']) {
      expect(indexOf('--ro-bind-try', file, file)).toBe(-1);
      expect(networked).toContainEqual(['--ro-bind-try', file, file]);
    }
    expect(networked.some((mount) => mount[1] === '/etc/ssl')).toBe(false);
  });

  it('recreates /bin and friends as the symlinks they are on the host, else binds them', () => {
    let binIsLink = false;
    try {
      binIsLink = lstatSync('/bin').isSymbolicLink();
    } catch {
      // No /bin: bound with --ro-bind-try, which skips it.
    }
    const bin = mounts.find((mount) => mount.at(-1) === '/bin');
    expect(bin?.[0]).toBe(binIsLink ? '--symlink' : '--ro-bind-try');
  });

  it('gives a fresh /proc, a minimal /dev, a private /tmp and HOME before the plan binds', () => {
    const firstPlanBind = indexOf('--ro-bind-try', '/work/project', '/work/project');
    for (const entry of [
      ['--proc', '/proc'],
      ['--dev', '/dev'],
      ['--tmpfs', '/tmp'],
      ['--tmpfs', SANDBOX_HOME],
    ]) {
      const at = indexOf(...entry);
      expect(at).toBeGreaterThanOrEqual(0);
      expect(at).toBeLessThan(firstPlanBind);
    }
  });

  it('binds read paths read-only and write paths writable, parents before children', () => {
    const project = indexOf('--ro-bind-try', '/work/project', '/work/project');
    const out = indexOf('--bind-try', '/work/project/out', '/work/project/out');
    const own = indexOf(
      '--ro-bind-try',
      '/work/project/.toolpack/packs/jira',
      '/work/project/.toolpack/packs/jira',
    );
    expect(indexOf('--ro-bind-try', '/opt/node', '/opt/node')).toBeGreaterThanOrEqual(0);
    expect(project).toBeGreaterThanOrEqual(0);
    expect(out).toBeGreaterThan(project);
    expect(own).toBeGreaterThan(project);
  });

  it('binds paths opened beforehand by fd, and leaves out the removed ones', () => {
    const bound = readMounts(
      buildSandboxArgv({
        plan,
        boundFds: new Map([
          ['/work/project', 3],
          ['/work/project/out', 4],
          ['/opt/node', null],
        ]),
        command: '/x',
        args: [],
      }),
    );
    expect(bound).toContainEqual(['--ro-bind-fd', '3', '/work/project']);
    expect(bound).toContainEqual(['--bind-fd', '4', '/work/project/out']);
    expect(bound.some((mount) => mount.at(-1) === '/opt/node')).toBe(false);
    expect(bound).toContainEqual([
      '--ro-bind-try',
      '/work/project/.toolpack/packs/jira',
      '/work/project/.toolpack/packs/jira',
    ]);
  });

  it('keeps a read-only folder inside a writable one read-only', () => {
    const nested = readMounts(
      buildSandboxArgv({
        plan: { read: ['/p/.toolpack/packs/a'], write: ['/p'], network: false, cwd: '/p' },
        command: '/x',
        args: [],
      }),
    ).filter((mount) => mount[0]?.includes('bind') && mount[1]?.startsWith('/p'));
    expect(nested).toEqual([
      ['--bind-try', '/p', '/p'],
      ['--ro-bind-try', '/p/.toolpack/packs/a', '/p/.toolpack/packs/a'],
    ]);
  });
});

describe('buildSandboxEnvironmentValues', () => {
  it('points HOME at the private home and TMPDIR at the private /tmp', () => {
    expect(buildSandboxEnvironmentValues()).toEqual({ HOME: SANDBOX_HOME, TMPDIR: '/tmp' });
  });
});

describe('the sandbox’s /tmp', () => {
  it('is a tmpfs, or the pack’s own temp folder bound there when granted, before the plan’s paths', () => {
    const plan = { read: ['/tmp/project'], write: [], network: false, cwd: '/tmp/project' };
    const fresh = buildSandboxArgv({ plan, command: '/x', args: [] });
    expect(fresh.join(' ')).toContain('--tmpfs /tmp');
    const own = '/run/user/1000/toolpack/run-1-ab/temp-0123';
    const granted = buildSandboxArgv({ plan: { ...plan, temp: own }, command: '/x', args: [] });
    expect(granted.join(' ')).not.toContain('--tmpfs /tmp');
    const at = granted.findIndex((arg, i) => arg === '--bind' && granted[i + 1] === own);
    expect(granted.slice(at, at + 3)).toEqual(['--bind', own, '/tmp']);
    // A project under /tmp is bound over it, not hidden by it.
    expect(at).toBeLessThan(granted.indexOf('/tmp/project'));
  });
});

describe('the sandbox’s HOME', () => {
  it('is a tmpfs with the plan’s home files bound read-only in it, before the plan’s paths', () => {
    const profile = '/run/user/1000/toolpack/pwsh-startup-profiles/0a1b.profile';
    const argv = buildSandboxArgv({
      plan: {
        ...plan,
        homeFiles: [
          { source: profile, target: '.cache/powershell/StartupProfileData-NonInteractive' },
        ],
      },
      command: '/x',
      args: [],
    });
    const mounts = readMounts(argv);
    const home = mounts.findIndex((mount) => mount.join(' ') === `--tmpfs ${SANDBOX_HOME}`);
    expect(mounts[home + 1]).toEqual([
      '--ro-bind-try',
      profile,
      `${SANDBOX_HOME}/.cache/powershell/StartupProfileData-NonInteractive`,
    ]);
    expect(home).toBeLessThan(mounts.findIndex((mount) => mount.includes('/work/project')));
    expect(argv.filter((arg) => arg === profile)).toHaveLength(1);
  });
});

import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { LEAST_PERMISSIONS, type PackPermissions } from '@toolpack/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { planSandbox } from './plan-sandbox.ts';

let scratch: string;
let projectRoot: string;
let ownFolder: string;
const ownRoot = '.toolpack/packs/jira';

beforeAll(() => {
  scratch = realpathSync(mkdtempSync(path.join(tmpdir(), 'toolpack-plan-')));
  projectRoot = path.join(scratch, 'project');
  ownFolder = path.join(projectRoot, ownRoot);
  mkdirSync(ownFolder, { recursive: true });
  mkdirSync(path.join(projectRoot, 'docs'));
  mkdirSync(path.join(projectRoot, '.git', 'hooks'), { recursive: true });
  mkdirSync(path.join(projectRoot, 'out'));
  mkdirSync(path.join(scratch, 'elsewhere'));
  symlinkSync(path.join(scratch, 'elsewhere'), path.join(projectRoot, 'escape'));
  symlinkSync(path.join(projectRoot, 'docs'), path.join(projectRoot, 'docs-link'));
});
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

function grant(
  filesystem: PackPermissions['filesystem'],
  network: PackPermissions['network']['access'] = 'none',
): PackPermissions {
  return { ...LEAST_PERMISSIONS, filesystem, network: { access: network, hosts: [] } };
}

describe('planSandbox', () => {
  it('gives the least: its own folder read-only, where it starts, nothing else', () => {
    expect(
      planSandbox({ sandbox: { root: ownRoot, permissions: LEAST_PERMISSIONS }, projectRoot }),
    ).toEqual({ ownFolder, read: [ownFolder], write: [], network: false, cwd: ownFolder });
  });

  it('resolves project roots, keeps writable ones out of read, and starts in the project', () => {
    const plan = planSandbox({
      sandbox: {
        root: ownRoot,
        permissions: grant({ read: ['project', 'project/out'], write: ['project/out'] }, 'any'),
      },
      projectRoot,
    });
    expect(plan).toEqual({
      ownFolder,
      read: [projectRoot, ownFolder].sort(),
      write: [path.join(projectRoot, 'out')],
      network: true,
      cwd: projectRoot,
    });
  });

  it('keeps the project root, .git, Toolpack’s files and the own folder read-only in a writable project, each other entry writable', () => {
    const plan = planSandbox({
      sandbox: { root: ownRoot, permissions: grant({ read: ['project'], write: ['project'] }) },
      projectRoot,
    });
    // The root itself read-only: `mv .git .git-old` (then a new .git) is impossible. The
    // symlinks at the root stay links in it, bound by nothing.
    expect(plan.write).toEqual([path.join(projectRoot, 'docs'), path.join(projectRoot, 'out')]);
    expect(plan.read).toEqual(
      [
        projectRoot,
        ownFolder,
        path.join(projectRoot, '.toolpack'),
        path.join(projectRoot, '.git'),
      ].sort(),
    );
  });

  it('keeps what the project runs unconfined (sandbox.protect) read-only, and the folders leading to it', () => {
    mkdirSync(path.join(projectRoot, 'systems', 'mcp', 'tools'), { recursive: true });
    mkdirSync(path.join(projectRoot, 'systems', 'other'), { recursive: true });
    try {
      const plan = planSandbox({
        sandbox: {
          root: ownRoot,
          permissions: grant({ read: [], write: ['project/systems'] }),
          protect: ['systems/mcp/tools', '../outside'],
        },
        projectRoot,
      });
      const systems = path.join(projectRoot, 'systems');
      expect(plan.write).toEqual([path.join(systems, 'other')]);
      expect(plan.read).toEqual(
        [ownFolder, systems, path.join(systems, 'mcp'), path.join(systems, 'mcp', 'tools')].sort(),
      );
      // A grant inside what is protected is read-only whole.
      const inside = planSandbox({
        sandbox: {
          root: ownRoot,
          permissions: grant({ read: [], write: ['project/.git'] }),
        },
        projectRoot,
      });
      expect(inside).toMatchObject({
        write: [],
        read: [path.join(projectRoot, '.git'), ownFolder],
      });
    } finally {
      rmSync(path.join(projectRoot, 'systems'), { recursive: true });
    }
  });

  it('keeps a write grant of Toolpack’s own folder read-only', () => {
    const plan = planSandbox({
      sandbox: {
        root: ownRoot,
        permissions: grant({ read: ['project/.toolpack'], write: ['project/.toolpack'] }),
      },
      projectRoot,
    });
    expect(plan).toMatchObject({
      write: [],
      read: [path.join(projectRoot, '.toolpack'), ownFolder],
    });
  });

  it('grants temp as the pack’s own temp folder, never the machine’s; read only, it grants nothing', () => {
    const own = path.join(scratch, 'own-temp');
    const plan = planSandbox({
      sandbox: { root: ownRoot, permissions: grant({ read: ['temp'], write: ['temp'] }) },
      projectRoot,
      tempFolder: own,
    });
    expect(plan).toMatchObject({ write: [], read: [ownFolder], temp: own });
    expect([...plan.read, ...plan.write]).not.toContain(realpathSync(tmpdir()));
    const readOnly = planSandbox({
      sandbox: { root: ownRoot, permissions: grant({ read: ['temp'], write: [] }) },
      projectRoot,
    });
    expect(readOnly.temp).toBeUndefined();
    expect(readOnly.read).toEqual([ownFolder]);
  });

  it('follows a symlink that stays inside the project, to its real path', () => {
    const plan = planSandbox({
      sandbox: { root: ownRoot, permissions: grant({ read: ['project/docs-link'], write: [] }) },
      projectRoot,
    });
    expect(plan.read).toContain(path.join(projectRoot, 'docs'));
    expect(plan.cwd).toBe(ownFolder);
  });

  it('refuses a project folder that leads out of the project through a symlink', () => {
    expect(() =>
      planSandbox({
        sandbox: { root: ownRoot, permissions: grant({ read: ['project/escape'], write: [] }) },
        projectRoot,
      }),
    ).toThrow(
      expect.objectContaining({
        code: 'E_SANDBOX_PATH',
        message: expect.stringContaining('project/escape'),
      }),
    );
  });

  it('refuses an own folder that leads out of the project through a symlink', () => {
    // What a tool that may write the project could do to its folder before its next start.
    const packs = path.join(projectRoot, '.toolpack', 'packs');
    symlinkSync(path.join(scratch, 'elsewhere'), path.join(packs, 'swapped'));
    expect(() =>
      planSandbox({
        sandbox: { root: '.toolpack/packs/swapped', permissions: LEAST_PERMISSIONS },
        projectRoot,
      }),
    ).toThrow(
      expect.objectContaining({
        code: 'E_SANDBOX_PATH',
        message: expect.stringContaining('leads out of the project'),
      }),
    );
  });

  it('leaves out a granted folder that does not exist', () => {
    const plan = planSandbox({
      sandbox: { root: ownRoot, permissions: grant({ read: ['project/missing'], write: [] }) },
      projectRoot,
    });
    expect(plan.read).toEqual([ownFolder]);
  });

  it('refuses a missing own folder', () => {
    expect(() =>
      planSandbox({
        sandbox: { root: '.toolpack/packs/gone', permissions: LEAST_PERMISSIONS },
        projectRoot,
      }),
    ).toThrow(expect.objectContaining({ code: 'E_SANDBOX_PATH' }));
  });

  it('adds the runner’s runtime paths, read-only and writable, leaving out missing ones', () => {
    const runtime = path.join(scratch, 'elsewhere');
    const socketFolder = path.join(scratch, 'socket');
    mkdirSync(socketFolder);
    const plan = planSandbox({
      sandbox: { root: ownRoot, permissions: LEAST_PERMISSIONS },
      projectRoot,
      runtimePaths: [runtime, path.join(scratch, 'not-installed')],
      writableRuntimePaths: [socketFolder],
    });
    expect(plan.read).toEqual([ownFolder, runtime].sort());
    expect(plan.write).toEqual([socketFolder]);
  });

  it('refuses a relative runtime path (a runner bug)', () => {
    expect(() =>
      planSandbox({
        sandbox: { root: ownRoot, permissions: LEAST_PERMISSIONS },
        projectRoot,
        runtimePaths: ['node_modules/.bin'],
      }),
    ).toThrow(expect.objectContaining({ code: 'E_SANDBOX_ARGUMENTS' }));
  });

  it('accepts an own folder outside the project, named so', () => {
    const outside = path.join(scratch, 'elsewhere');
    expect(
      planSandbox({
        sandbox: { root: '../elsewhere', permissions: LEAST_PERMISSIONS },
        projectRoot,
      }),
    ).toMatchObject({ ownFolder: outside, read: [outside] });
  });

  it('accepts an absolute own folder', () => {
    const plan = planSandbox({
      sandbox: { root: ownFolder, permissions: LEAST_PERMISSIONS },
      projectRoot: path.join(scratch, 'no-such-project'),
    });
    expect(plan).toMatchObject({ ownFolder, cwd: ownFolder });
  });

  it('keeps home files whose source exists, and refuses a target that leaves HOME', () => {
    const source = path.join(scratch, 'elsewhere', 'profile');
    writeFileSync(source, 'profile');
    const target = '.cache/powershell/StartupProfileData-NonInteractive';
    const plan = planSandbox({
      sandbox: { root: ownRoot, permissions: LEAST_PERMISSIONS },
      projectRoot,
      homeFiles: [
        { source, target },
        { source: path.join(scratch, 'missing'), target: 'missing' },
      ],
    });
    expect(plan.homeFiles).toEqual([{ source, target }]);
    for (const wrong of [
      { source, target: '../../tmp/x' },
      { source, target: '/etc/passwd' },
      { source, target: '.cache//x' },
      { source: 'relative/profile', target },
    ])
      expect(() =>
        planSandbox({
          sandbox: { root: ownRoot, permissions: LEAST_PERMISSIONS },
          projectRoot,
          homeFiles: [wrong],
        }),
      ).toThrow(expect.objectContaining({ code: 'E_SANDBOX_ARGUMENTS' }));
  });
});

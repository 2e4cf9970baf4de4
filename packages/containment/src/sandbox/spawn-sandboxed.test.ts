import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  renameSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { LEAST_PERMISSIONS, type PackPermissions } from '@toolpack/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnContained } from '../spawn-contained.ts';
import {
  collectOutput,
  hasProc,
  killMarked,
  listProcessesWithArgv,
  waitUntil,
} from '../testing/index.ts';
import { planSandbox, type SandboxPlan } from './plan-sandbox.ts';
import { SANDBOX_HOME, buildSandboxArgv } from './build-sandbox-argv.ts';
import { describeSandbox, resolveSandbox } from './probe-sandbox.ts';

const sandbox = describeSandbox({});
const sourceIndex = path.join(import.meta.dirname, '..', 'index.ts');
const env = { PATH: '/usr/bin:/bin' };

let scratch: string;
let projectRoot: string;
let ownRoot: string;

beforeAll(() => {
  scratch = realpathSync(mkdtempSync(path.join(tmpdir(), 'toolpack-sandboxed-')));
  projectRoot = path.join(scratch, 'project');
  ownRoot = path.join(projectRoot, 'tools');
  mkdirSync(path.join(projectRoot, 'out'), { recursive: true });
  mkdirSync(ownRoot);
  writeFileSync(path.join(projectRoot, 'README.md'), 'the project\n');
});
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

function plan(permissions: Partial<PackPermissions> = {}): SandboxPlan {
  return planSandbox({
    sandbox: { root: 'tools', permissions: { ...LEAST_PERMISSIONS, ...permissions } },
    projectRoot,
    runtimePaths: [process.execPath],
  });
}

const readProject = { filesystem: { read: ['project'], write: [] } };

function uniqueMarker(name: string): string {
  return `${name}${process.pid}${Math.floor(Math.random() * 1e9)}`;
}

describe.skipIf(!sandbox.available || !hasProc)(
  `spawnContained with a sandbox plan [needs bwrap: ${sandbox.reason}]`,
  () => {
    it('passes stdin, stdout, stderr and the exit code through, and starts in plan.cwd', async () => {
      const contained = spawnContained({
        command: 'bash',
        args: ['-c', 'read line; echo "got $line"; pwd; echo oops >&2; exit 7'],
        env,
        sandbox: plan(readProject),
      });
      expect(contained).toMatchObject({ sandboxed: true, mode: 'namespace' });
      expect(await collectOutput(contained, 'hello\n')).toEqual({
        stdout: `got hello\n${projectRoot}\n`,
        stderr: 'oops\n',
        code: 7,
        signal: null,
      });
    });

    it('runs the command below bwrap, not as PID 1, so that it can end itself with a signal', async () => {
      const contained = spawnContained({
        command: 'bash',
        args: ['-c', 'echo $$ $PPID; kill -SEGV $$; echo survived'],
        env,
        sandbox: plan(),
      });
      expect(await collectOutput(contained)).toMatchObject({
        stdout: '2 1\n',
        code: null,
        signal: 'SIGSEGV',
      });
    });

    it('reports kill() as SIGKILL', async () => {
      const contained = spawnContained({ command: 'sleep', args: ['30'], env, sandbox: plan() });
      const closed = collectOutput(contained);
      contained.kill();
      expect((await closed).signal).toBe('SIGKILL');
    });

    it('passes an ipc channel and more than nine fds through', async () => {
      const contained = spawnContained({
        command: process.execPath,
        args: [
          '-e',
          'process.on("message", (m) => { process.send({ back: m }); process.disconnect(); })',
        ],
        env,
        stdio: [
          'ignore',
          'ignore',
          'pipe',
          'ipc',
          ...Array.from({ length: 8 }, () => 'ignore' as const),
        ],
        sandbox: plan(),
      });
      contained.child.send('ping');
      const [message] = (await once(contained.child, 'message')) as [unknown];
      expect(message).toEqual({ back: 'ping' });
      await once(contained.child, 'close');
    });

    it('gives a missing command the usual ENOENT error', async () => {
      const contained = spawnContained({
        command: 'toolpack-no-such-command',
        env,
        sandbox: plan(),
      });
      const [error] = (await once(contained.child, 'error')) as [NodeJS.ErrnoException];
      expect(error.code).toBe('ENOENT');
    });

    it('refuses to start when a planned folder was swapped for a symlink since the plan', () => {
      const swappable = path.join(projectRoot, 'swappable');
      mkdirSync(swappable);
      const swappedPlan = plan({ filesystem: { read: ['project/swappable'], write: [] } });
      rmSync(swappable, { recursive: true });
      symlinkSync(scratch, swappable);
      try {
        expect(() => spawnContained({ command: 'true', env, sandbox: swappedPlan })).toThrow(
          expect.objectContaining({ code: 'E_SANDBOX_PATH' }),
        );
      } finally {
        rmSync(swappable);
      }
    });

    it('gives the command its stdio only: the fds of the plan’s paths end in bwrap', async () => {
      const contained = spawnContained({
        command: 'bash',
        // ls lists the shell's fds; no pipe (whose fds the shell would hold meanwhile), and
        // `; true` so that bash forks ls instead of becoming it.
        args: ['-c', 'ls /proc/$$/fd; true'],
        env,
        stdio: ['ignore', 'pipe', 'pipe'],
        sandbox: plan(readProject),
      });
      const fds = (await collectOutput(contained)).stdout.trim().split('\n').map(Number);
      // 0-2, and whatever this test process itself inherited without close-on-exec.
      expect(fds.slice(0, 3)).toEqual([0, 1, 2]);
      expect(fds.filter((fd) => fd >= 3 && fd < 20)).toEqual([]);
    });

    it('refuses a command outside the plan instead of failing inside', () => {
      const script = path.join(scratch, 'outside.sh');
      writeFileSync(script, '#!/bin/sh\necho hi\n', { mode: 0o755 });
      expect(() => spawnContained({ command: script, env, sandbox: plan() })).toThrow(
        expect.objectContaining({ code: 'E_SANDBOX_ARGUMENTS' }),
      );
    });

    it('finds a bare command on PATH as the search inside would, skipping folders it cannot see', async () => {
      const hiddenBin = path.join(scratch, 'bin');
      mkdirSync(hiddenBin, { recursive: true });
      writeFileSync(path.join(hiddenBin, 'echo'), '#!/bin/sh\necho hidden\n', { mode: 0o755 });
      const contained = spawnContained({
        command: 'echo',
        args: ['system'],
        env: { PATH: `${hiddenBin}:/usr/bin:/bin` },
        sandbox: plan(),
      });
      expect((await collectOutput(contained)).stdout).toBe('system\n');
    });

    it('starts in cwd when the plan shows it, else in plan.cwd', async () => {
      const inside = spawnContained({
        command: 'pwd',
        cwd: path.join(projectRoot, 'out'),
        env,
        sandbox: plan(readProject),
      });
      expect((await collectOutput(inside)).stdout).toBe(`${projectRoot}/out\n`);
      const hidden = spawnContained({ command: 'pwd', cwd: projectRoot, env, sandbox: plan() });
      expect((await collectOutput(hidden)).stdout).toBe(`${ownRoot}\n`);
    });

    it('kills what the child left, also a setsid grandchild, when it exits', async () => {
      const marker = uniqueMarker('sandboxleft');
      try {
        const contained = spawnContained({
          command: 'bash',
          args: [
            '-c',
            `(exec -a ${marker} sleep 300) & setsid bash -c '(exec -a ${marker} sleep 300)' & sleep 0.2; echo started`,
          ],
          env,
          sandbox: plan(),
        });
        expect((await collectOutput(contained)).stdout).toBe('started\n');
        expect(await waitUntil(() => listProcessesWithArgv(marker).length === 0, 5_000)).toBe(true);
      } finally {
        killMarked(marker);
      }
    });

    it('kills the child and its setsid grandchild when their owner is SIGKILLed', async () => {
      const marker = uniqueMarker('sandboxowner');
      const owner = path.join(scratch, `${marker}.mjs`);
      writeFileSync(
        owner,
        `import { planSandbox, spawnContained } from ${JSON.stringify(sourceIndex)};
const plan = planSandbox({ sandbox: { root: 'tools', permissions: ${JSON.stringify(LEAST_PERMISSIONS)} }, projectRoot: ${JSON.stringify(projectRoot)} });
spawnContained({ command: 'bash', args: ['-c', ${JSON.stringify(`setsid bash -c '(exec -a ${marker} sleep 300)' & (exec -a ${marker} sleep 300)`)}], env: ${JSON.stringify(env)}, stdio: 'ignore', sandbox: plan });
setInterval(() => {}, 1000);
`,
      );
      const server = spawn(process.execPath, ['--conditions=@toolpack/source', owner], {
        stdio: 'ignore',
      });
      try {
        expect(await waitUntil(() => listProcessesWithArgv(marker).length === 2, 10_000)).toBe(
          true,
        );
        server.kill('SIGKILL');
        expect(await waitUntil(() => listProcessesWithArgv(marker).length === 0, 5_000)).toBe(true);
      } finally {
        server.kill('SIGKILL');
        killMarked(marker);
      }
    });

    it('gives a private, empty, writable HOME and /tmp that end with the child', async () => {
      const marker = uniqueMarker('privatetmp');
      const contained = spawnContained({
        command: 'bash',
        args: [
          '-c',
          `echo "$HOME $TMPDIR"; ls -A "$HOME" | grep -c . ; touch "$HOME/h" /tmp/${marker} && echo wrote`,
        ],
        env: { ...env, HOME: scratch, TMPDIR: scratch },
        sandbox: plan(),
      });
      const { stdout } = await collectOutput(contained);
      expect(stdout).toBe('/home/toolpack /tmp\n0\nwrote\n');
      expect(existsSync(path.join(scratch, 'h'))).toBe(false);
      expect(existsSync(path.join('/tmp', marker))).toBe(false);
    });

    it('lets the child use what was granted: read, write, network and temp', async () => {
      const listener = createServer((socket) => socket.end('hello from the host\n'));
      listener.listen(0, '127.0.0.1');
      await once(listener, 'listening');
      const { port } = listener.address() as { port: number };
      const marker = uniqueMarker('granted');
      const sharedTempFile = path.join(realpathSync(tmpdir()), `${marker}.txt`);
      const granted = plan({
        filesystem: {
          read: ['project', 'project/out', 'temp'],
          write: ['project/out', 'temp'],
        },
        network: { access: 'any', hosts: [] },
      });
      // Its temp is its own folder, bound as its /tmp: never the machine's temp folder.
      const tempFile = path.join(granted.temp ?? '', `${marker}.txt`);
      try {
        const contained = spawnContained({
          command: process.execPath,
          args: [
            '-e',
            `const fs = require('node:fs');
const net = require('node:net');
console.log(fs.readFileSync('README.md', 'utf8').trim());
fs.writeFileSync('out/${marker}', 'written');
fs.writeFileSync(require('node:path').join(process.env.TMPDIR, '${marker}.txt'), 'temp');
net.connect(${port}, '127.0.0.1').setEncoding('utf8').on('data', (d) => process.stdout.write(d));`,
          ],
          env,
          sandbox: granted,
        });
        const result = await collectOutput(contained);
        expect(result).toMatchObject({
          stdout: 'the project\nhello from the host\n',
          code: 0,
        });
        expect(readFileSync(path.join(projectRoot, 'out', marker), 'utf8')).toBe('written');
        expect(readFileSync(tempFile, 'utf8')).toBe('temp');
        expect(existsSync(sharedTempFile)).toBe(false);
      } finally {
        listener.close();
        rmSync(tempFile, { force: true });
      }
    });

    it('never shows a granted temp the machine’s temp folder, where unconfined processes listen', async () => {
      // A socket as an unconfined PowerShell host's channel was before issue 30.
      const folder = mkdtempSync(path.join(realpathSync(tmpdir()), 'toolpack-listen-'));
      const socketPath = path.join(folder, 'host.sock');
      const listener = createServer((socket) => socket.end('token\n'));
      listener.listen(socketPath);
      await once(listener, 'listening');
      const connect = `require('node:net').connect(${JSON.stringify(socketPath)}).setEncoding('utf8').on('data', (d) => process.stdout.write(d)).on('error', (e) => console.log(e.code));`;
      const run = (sandbox: SandboxPlan) =>
        collectOutput(
          spawnContained({ command: process.execPath, args: ['-e', connect], env, sandbox }),
        );
      try {
        const granted = plan({ filesystem: { read: ['temp'], write: ['temp'] } });
        expect((await run(granted)).stdout).toBe('ENOENT\n');
        // The binds before issue 30: `temp` was the machine's temp folder, writable.
        const machineTemp = realpathSync(tmpdir());
        const oldBinds: SandboxPlan = {
          ...granted,
          write: [...granted.write, machineTemp],
        };
        delete oldBinds.temp;
        expect((await run(oldBinds)).stdout).toBe('token\n');
      } finally {
        listener.close();
        rmSync(folder, { recursive: true, force: true });
      }
    });

    it('keeps Toolpack’s files and git’s hooks read-only in a writable project', async () => {
      mkdirSync(path.join(projectRoot, '.git', 'hooks'), { recursive: true });
      mkdirSync(path.join(projectRoot, '.toolpack', 'packs', 'other'), { recursive: true });
      writeFileSync(path.join(projectRoot, 'toolpack.lock'), 'approved\n');
      const targets = [
        'toolpack.lock',
        '.toolpack/packs/other/index.js',
        '.git/hooks/pre-commit',
        'out/allowed.txt',
      ];
      const tryWrites = (sandboxOff: boolean) => {
        const script = targets
          .map((target) => `echo x > ${target} 2>/dev/null && echo "wrote ${target}"`)
          .join('; ');
        if (sandboxOff) process.env.TOOLPACK_SANDBOX = 'off';
        try {
          return spawnContained({
            command: 'bash',
            args: ['-c', `${script}; true`],
            cwd: projectRoot,
            env,
            sandbox: plan({ filesystem: { read: ['project'], write: ['project'] } }),
          });
        } finally {
          delete process.env.TOOLPACK_SANDBOX;
        }
      };
      expect((await collectOutput(tryWrites(false))).stdout).toBe('wrote out/allowed.txt\n');
      expect(readFileSync(path.join(projectRoot, 'toolpack.lock'), 'utf8')).toBe('approved\n');
      expect((await collectOutput(tryWrites(true))).stdout).toBe(
        targets.map((target) => `wrote ${target}\n`).join(''),
      );
    });

    it('cannot rename .git or the project’s own sources away and put its own in their place', async () => {
      const project = path.join(scratch, 'renames');
      for (const folder of ['.git/hooks', 'tools', 'out', 'src/lib'])
        mkdirSync(path.join(project, folder), { recursive: true });
      mkdirSync(path.join(project, 'tools-pack'));
      writeFileSync(path.join(project, 'src', 'lib', 'own.sh'), 'echo own\n');
      const attempts = [
        'mv .git .git-moved && mkdir .git && echo "swapped .git"',
        'mv src src-moved && mkdir -p src/lib && echo "swapped src"',
        'mv src/lib src/lib-moved && echo "moved src/lib"',
        'echo x > src/lib/own.sh && echo "rewrote src/lib/own.sh"',
        'echo x > new-at-root && echo "made new-at-root"',
        'echo x > out/allowed.txt && echo "wrote out/allowed.txt"',
      ];
      const tryAll = (sandboxOff: boolean) => {
        if (sandboxOff) process.env.TOOLPACK_SANDBOX = 'off';
        try {
          return spawnContained({
            command: 'bash',
            args: ['-c', attempts.map((line) => `(${line}) 2>/dev/null`).join('; ') + '; true'],
            cwd: project,
            env,
            sandbox: planSandbox({
              sandbox: {
                root: 'tools-pack',
                permissions: {
                  ...LEAST_PERMISSIONS,
                  filesystem: { read: ['project'], write: ['project'] },
                },
                protect: ['src/lib'],
              },
              projectRoot: project,
              runtimePaths: [process.execPath],
            }),
          });
        } finally {
          delete process.env.TOOLPACK_SANDBOX;
        }
      };
      expect((await collectOutput(tryAll(false))).stdout).toBe('wrote out/allowed.txt\n');
      expect(existsSync(path.join(project, '.git-moved'))).toBe(false);
      // The binds before issue 30 (the project writable, only .git/hooks read-only inside):
      // in the same sandbox, .git is renamed away with its read-only hooks in it.
      const oldBinds: SandboxPlan = {
        ownFolder: path.join(project, 'tools-pack'),
        read: [path.join(project, 'tools-pack'), path.join(project, '.git', 'hooks')],
        write: [project],
        network: false,
        cwd: project,
      };
      const old = spawnContained({
        command: 'bash',
        args: ['-c', 'mv .git .git-old 2>/dev/null && mkdir .git && echo "swapped .git"; true'],
        cwd: project,
        env,
        sandbox: oldBinds,
      });
      expect((await collectOutput(old)).stdout).toBe('swapped .git\n');
      rmSync(path.join(project, '.git'), { recursive: true });
      renameSync(path.join(project, '.git-old'), path.join(project, '.git'));
      expect(readFileSync(path.join(project, 'src', 'lib', 'own.sh'), 'utf8')).toBe('echo own\n');
      // Unconfined, each rename and write goes through (the src swap first, so the rest acts
      // on the new src/lib).
      expect((await collectOutput(tryAll(true))).stdout).toBe(
        [
          'swapped .git',
          'swapped src',
          'moved src/lib',
          'made new-at-root',
          'wrote out/allowed.txt',
        ]
          .map((line) => `${line}\n`)
          .join(''),
      );
    });

    it.skipIf(process.getuid?.() !== 0)(
      'as root, cannot remount a read-only folder writable',
      async () => {
        const contained = spawnContained({
          command: 'bash',
          args: [
            '-c',
            `mount -o remount,rw,bind ${projectRoot} 2>/dev/null; echo x > README.md 2>/dev/null && echo wrote; grep CapEff /proc/self/status`,
          ],
          env,
          sandbox: plan(readProject),
        });
        const { stdout } = await collectOutput(contained);
        expect(stdout).toBe('CapEff:\t0000000000000000\n');
        expect(readFileSync(path.join(projectRoot, 'README.md'), 'utf8')).toBe('the project\n');
      },
    );

    it('cannot make a user namespace of its own (where it would have every capability)', async () => {
      const contained = spawnContained({
        command: 'bash',
        args: ['-c', 'unshare --user true 2>/dev/null && echo made; echo done'],
        env,
        sandbox: plan(),
      });
      expect((await collectOutput(contained)).stdout).toBe('done\n');
      process.env.TOOLPACK_SANDBOX = 'off';
      try {
        const unconfined = spawnContained({
          command: 'bash',
          args: ['-c', 'unshare --user true 2>/dev/null && echo made; echo done'],
          env,
          sandbox: plan(),
        });
        expect((await collectOutput(unconfined)).stdout).toBe('made\ndone\n');
      } finally {
        delete process.env.TOOLPACK_SANDBOX;
      }
    });

    it('keeps a home file read-only: no run overwrites, appends to, replaces or removes it', async () => {
      const cache = mkdtempSync(path.join(scratch, 'cache-'));
      const source = path.join(cache, 'profile');
      writeFileSync(source, 'recorded by the warm-up\n');
      const target = '.cache/powershell/StartupProfileData-NonInteractive';
      const inside = `${SANDBOX_HOME}/${target}`;
      const attack = [
        `cat ${inside}`,
        `echo forged > ${inside} 2>/dev/null && echo overwrote`,
        `echo forged >> ${inside} 2>/dev/null && echo appended`,
        `echo forged > ${inside}.new && mv -f ${inside}.new ${inside} 2>/dev/null && echo replaced`,
        `rm -f ${inside} 2>/dev/null && echo removed`,
        'true',
      ].join('; ');
      const confined: SandboxPlan = { ...plan(), homeFiles: [{ source, target }] };
      const contained = spawnContained({
        command: 'bash',
        args: ['-c', attack],
        env,
        sandbox: confined,
      });
      expect((await collectOutput(contained)).stdout).toBe('recorded by the warm-up\n');
      expect(readFileSync(source, 'utf8')).toBe('recorded by the warm-up\n');
      // The same file bound at the same path writable: every write reaches the file the next
      // run would read.
      const bwrap = resolveSandbox().bwrap ?? 'bwrap';
      const argv = buildSandboxArgv({ plan: confined, command: '/bin/bash', args: ['-c', attack] });
      const at = argv.indexOf(source) - 1;
      expect(argv[at]).toBe('--ro-bind-try');
      argv[at] = '--bind-try';
      const writable = spawnSync(bwrap, argv, { env, encoding: 'utf8' });
      expect(writable.stdout).toBe('recorded by the warm-up\noverwrote\nappended\n');
      expect(readFileSync(source, 'utf8')).toBe('forged\nforged\n');
      rmSync(cache, { recursive: true, force: true });
    });

    it('runs unconfined, as without a plan, when TOOLPACK_SANDBOX=off', async () => {
      process.env.TOOLPACK_SANDBOX = 'off';
      try {
        const contained = spawnContained({
          command: 'bash',
          args: ['-c', 'echo "$HOME"'],
          env: { ...env, HOME: scratch },
          sandbox: plan(),
        });
        expect(contained.sandboxed).toBe(false);
        expect((await collectOutput(contained)).stdout).toBe(`${scratch}\n`);
      } finally {
        delete process.env.TOOLPACK_SANDBOX;
      }
    });
  },
);

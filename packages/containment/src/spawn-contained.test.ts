import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeContainment, readContainmentRequest } from './containment-mode.ts';
import { spawnContained } from './spawn-contained.ts';
import {
  collectOutput as collect,
  hasProc,
  killMarked,
  listProcessesWithArgv,
  waitUntil,
} from './testing/index.ts';

const namespaces = describeContainment({ TOOLPACK_CONTAINMENT: 'namespace' }).usable;
const posix = process.platform !== 'win32';
const env = { PATH: process.env.PATH ?? '/usr/bin:/bin' };
const sourceIndex = path.join(import.meta.dirname, 'index.ts');

let scratch: string;
beforeAll(() => {
  scratch = mkdtempSync(path.join(tmpdir(), 'toolpack-containment-'));
});
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

function uniqueMarker(name: string): string {
  return `${name}${process.pid}${Math.floor(Math.random() * 1e9)}`;
}

/** A `sleep` whose argv carries `marker` (bash keeps its own argv; `exec -a` names the sleep). */
function markedSleep(marker: string): string {
  return `(exec -a ${marker} sleep 300)`;
}

/**
 * Starts an owner process that spawns `script` (two marked sleeps) contained in `mode`,
 * SIGKILLs the owner once spawnContained has returned there and both sleeps run, and expects
 * both gone: no exit hook of the owner helps. (The sleeps alone are not enough to wait for: on
 * a loaded machine they can run before the owner's spawnContained call returns, and an owner
 * killed inside that call has not promised anything yet.)
 */
async function expectOwnerDeathKills(marker: string, mode: string, script: string): Promise<void> {
  const owner = path.join(scratch, `${marker}.mjs`);
  writeFileSync(
    owner,
    `import { spawnContained } from ${JSON.stringify(sourceIndex)};
spawnContained({ command: 'bash', args: ['-c', ${JSON.stringify(script)}], env: { PATH: process.env.PATH }, stdio: 'ignore', mode: ${JSON.stringify(mode)} });
process.stdout.write('spawned\\n');
setInterval(() => {}, 1000);
`,
  );
  const server = spawn(process.execPath, ['--conditions=@toolpack/source', owner], {
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  let output = '';
  server.stdout.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  try {
    expect(await waitUntil(() => output.includes('spawned'), 10_000)).toBe(true);
    expect(await waitUntil(() => listProcessesWithArgv(marker).length === 2, 10_000)).toBe(true);
    server.kill('SIGKILL');
    expect(await waitUntil(() => listProcessesWithArgv(marker).length === 0, 5_000)).toBe(true);
  } finally {
    server.kill('SIGKILL');
    killMarked(marker);
  }
}

describe
  .skipIf(!posix)
  .each(namespaces ? (['namespace', 'process-group'] as const) : (['process-group'] as const))(
  'spawnContained in %s mode [needs a POSIX system]',
  (mode) => {
    it('passes stdin, stdout, stderr, the exit code and the working folder through', async () => {
      const contained = spawnContained({
        command: 'bash',
        args: ['-c', 'read line; echo "got $line"; pwd; echo oops >&2; exit 7'],
        cwd: scratch,
        env,
        mode,
      });
      expect(contained.mode).toBe(mode);
      const result = await collect(contained, 'hello\n');
      expect(result).toMatchObject({ stdout: `got hello\n${scratch}\n`, code: 7, signal: null });
      // bash may complain about the user's ~/.bashrc first (it is started over a socket pair).
      expect(result.stderr).toMatch(/oops\n$/u);
    });

    it('reports a child killed by a signal as killed by it', async () => {
      const contained = spawnContained({ command: 'sleep', args: ['30'], env, mode });
      const closed = collect(contained);
      await waitUntil(() => contained.child.pid !== undefined, 1_000);
      contained.kill();
      const result = await closed;
      expect(result.signal).toBe('SIGKILL');
    });

    it('passes an ipc channel through', async () => {
      const contained = spawnContained({
        command: process.execPath,
        args: [
          '-e',
          'process.on("message", (m) => { process.send({ back: m }); process.disconnect(); })',
        ],
        env,
        stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
        mode,
      });
      contained.child.send('ping');
      const [message] = (await once(contained.child, 'message')) as [unknown];
      expect(message).toEqual({ back: 'ping' });
      await once(contained.child, 'close');
    });

    it('gives a missing command the usual ENOENT error', async () => {
      const contained = spawnContained({ command: 'toolpack-no-such-command', env, mode });
      const [error] = (await once(contained.child, 'error')) as [NodeJS.ErrnoException];
      expect(error.code).toBe('ENOENT');
    });

    it.skipIf(!hasProc)(
      'sweeps a background child of the same group when the child exits [needs /proc]',
      async () => {
        const marker = uniqueMarker('bgsweep');
        const pidFile = path.join(scratch, `${marker}.pid`);
        try {
          const contained = spawnContained({
            command: 'bash',
            args: ['-c', `${markedSleep(marker)} & echo $! > ${pidFile}; exit 0`],
            env,
            mode,
          });
          await collect(contained);
          expect(readFileSync(pidFile, 'utf8').trim()).toMatch(/^\d+$/u);
          expect(await waitUntil(() => listProcessesWithArgv(marker).length === 0, 5_000)).toBe(
            true,
          );
        } finally {
          killMarked(marker);
        }
      },
    );
  },
);

describe.skipIf(!namespaces || !hasProc)('namespace mode [needs user namespaces and /proc]', () => {
  it('runs the child below the init of a namespace whose /proc shows neither this process nor its environment', async () => {
    const secret = uniqueMarker('secret');
    process.env.TOOLPACK_CONTAINMENT_TEST_SECRET = secret;
    try {
      const contained = spawnContained({
        command: 'bash',
        args: [
          '-c',
          // Reads every environ it can; prints how many it read and whether the secret was there.
          `n=0; hit=0; for f in /proc/[0-9]*/environ; do if tr '\\0' '\\n' < "$f" >/dev/null 2>&1; then n=$((n+1)); grep -q "${secret}" "$f" && hit=1; fi; done; echo "$$ $PPID $n $hit"; test -e /proc/${process.pid}/environ && echo parent-visible; true`,
        ],
        env,
        mode: 'namespace',
      });
      const { stdout } = await collect(contained);
      const [pid, ppid, readable, hit] = stdout.trim().split(/\s+/u);
      // PID 1 is the namespace's init sh; its parent is outside, so its PPID is 0.
      expect(pid).toBe('2');
      expect(ppid).toBe('1');
      expect(Number(readable)).toBeGreaterThan(0);
      expect(hit).toBe('0');
      expect(stdout).not.toContain('parent-visible');
    } finally {
      delete process.env.TOOLPACK_CONTAINMENT_TEST_SECRET;
    }
  });

  it('lets the child end itself with a signal, and reports that signal', async () => {
    const contained = spawnContained({
      command: 'bash',
      args: ['-c', 'kill -SEGV $$; echo survived'],
      env,
      mode: 'namespace',
    });
    const result = await collect(contained);
    expect(result).toMatchObject({ stdout: '', code: null, signal: 'SIGSEGV' });
    // Nothing from the init sh ("Segmentation fault") mixes into the child's stderr.
    expect(result.stderr).not.toMatch(/Segmentation/u);
  });

  it('never runs uncontained what it could not find: no PATH finds nothing', async () => {
    const folder = mkdtempSync(path.join(scratch, 'nopath-'));
    const ran = path.join(folder, 'ran');
    writeFileSync(path.join(folder, 'mytool'), `#!/bin/sh\necho yes > ${ran}\n`, { mode: 0o755 });
    const contained = spawnContained({
      command: 'mytool',
      cwd: folder,
      env: {},
      mode: 'namespace',
    });
    const [error] = (await once(contained.child, 'error')) as [NodeJS.ErrnoException];
    expect(error.code).toBe('ENOENT');
    expect(existsSync(ran)).toBe(false);
  });

  it('refuses more stdio entries than the init sh leaves free', () => {
    expect(() =>
      spawnContained({
        command: 'true',
        env,
        stdio: Array.from({ length: 10 }, () => 'ignore' as const),
        mode: 'namespace',
      }),
    ).toThrow(expect.objectContaining({ code: 'E_CONTAINMENT_STDIO' }));
  });

  it('cannot get the host /proc back by unmounting the fresh one', async () => {
    const contained = spawnContained({
      command: 'bash',
      args: ['-c', 'umount /proc 2>/dev/null; ls /proc | grep -c "^[0-9]"'],
      env,
      mode: 'namespace',
    });
    const { stdout } = await collect(contained);
    // Only the namespace's own few processes (bash, ls, grep) are listed.
    expect(Number(stdout.trim())).toBeLessThan(10);
  });

  it('kills a setsid grandchild when the child exits', async () => {
    const marker = uniqueMarker('setsid');
    const pidFile = path.join(scratch, `${marker}.pid`);
    try {
      const contained = spawnContained({
        command: 'bash',
        args: [
          '-c',
          `setsid bash -c '${markedSleep(marker)}' & sleep 0.2; echo started > ${pidFile}`,
        ],
        env,
        mode: 'namespace',
      });
      await collect(contained);
      expect(readFileSync(pidFile, 'utf8')).toContain('started');
      expect(await waitUntil(() => listProcessesWithArgv(marker).length === 0, 5_000)).toBe(true);
    } finally {
      killMarked(marker);
    }
  });

  it('kills the child and its setsid grandchild when their owner is SIGKILLed', async () => {
    const marker = uniqueMarker('owner');
    await expectOwnerDeathKills(
      marker,
      'namespace',
      `setsid bash -c '${markedSleep(marker)}' & ${markedSleep(marker)}`,
    );
  });
});

describe.skipIf(!posix || !hasProc)('process-group mode [needs a POSIX system and /proc]', () => {
  it('kills the registered groups through its watchdog when the owner is SIGKILLed', async () => {
    const marker = uniqueMarker('watched');
    await expectOwnerDeathKills(
      marker,
      'process-group',
      `${markedSleep(marker)} & ${markedSleep(marker)}`,
    );
  });
});

describe('readContainmentRequest', () => {
  it('reads the variable, auto when unset, and refuses a value it does not know', () => {
    expect(readContainmentRequest({})).toBe('auto');
    expect(readContainmentRequest({ TOOLPACK_CONTAINMENT: ' Process-Group ' })).toBe(
      'process-group',
    );
    expect(() => readContainmentRequest({ TOOLPACK_CONTAINMENT: 'sandbox' })).toThrow(
      expect.objectContaining({ code: 'E_CONTAINMENT_MODE' }),
    );
  });

  it('describes an unusable request without throwing', () => {
    expect(describeContainment({ TOOLPACK_CONTAINMENT: 'sandbox' })).toMatchObject({
      usable: false,
    });
    expect(describeContainment({ TOOLPACK_CONTAINMENT: 'off' })).toMatchObject({
      mode: 'off',
      usable: true,
    });
  });
});

import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { describe, expect, it } from 'vitest';
import { startGroupWatchdog } from './group-watchdog.ts';
import { hasProc, killMarked, listProcessesWithArgv, waitUntil } from './testing/index.ts';

function startMarkedGroup(marker: string) {
  // A group leader with a member of its own: both carry the marker.
  const child = spawn(
    'bash',
    ['-c', `(exec -a ${marker} sleep 300) & exec -a ${marker} sleep 300`],
    {
      detached: true,
      stdio: 'ignore',
    },
  );
  return child;
}

describe.skipIf(process.platform === 'win32' || !hasProc)('group watchdog [needs /proc]', () => {
  it('kills registered groups, not unregistered ones, when its stdin ends; INT/TERM/HUP do not stop it', async () => {
    const kept = `kept${process.pid}${Date.now()}`;
    const killed = `killed${process.pid}${Date.now()}`;
    const watchdog = startGroupWatchdog();
    const keptGroup = startMarkedGroup(kept);
    const killedGroup = startMarkedGroup(killed);
    try {
      expect(
        await waitUntil(
          () =>
            listProcessesWithArgv(kept).length === 2 && listProcessesWithArgv(killed).length === 2,
          5_000,
        ),
      ).toBe(true);
      watchdog.register(keptGroup.pid as number);
      watchdog.register(killedGroup.pid as number);
      watchdog.unregister(keptGroup.pid as number);
      watchdog.register(Number.NaN);
      for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const)
        process.kill(watchdog.pid as number, signal);
      // Still there: it would only kill on EOF.
      expect(await waitUntil(() => watchdog.child.exitCode !== null, 300)).toBe(false);
      watchdog.child.stdin?.end();
      await once(watchdog.child, 'exit');
      expect(await waitUntil(() => listProcessesWithArgv(killed).length === 0, 5_000)).toBe(true);
      expect(listProcessesWithArgv(kept)).toHaveLength(2);
    } finally {
      watchdog.child.kill('SIGKILL');
      killMarked(kept);
      killMarked(killed);
    }
  });
});

import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { buildNamespacePrefix, describeContainment } from './containment-mode.ts';
import { findSystemTool } from './find-system-tool.ts';
import { hasProc } from './testing/index.ts';

const setpriv = findSystemTool('setpriv');
const unshare = findSystemTool('unshare');
const sh = findSystemTool('sh');
const namespaces = describeContainment({ TOOLPACK_CONTAINMENT: 'namespace' }).usable;

// Where bubblewrap is installed namespace mode uses it, and the tests of spawnContained go
// through it; the util-linux chain it falls back to is checked here on its own.
describe.skipIf(
  !namespaces || !hasProc || setpriv === undefined || unshare === undefined || sh === undefined,
)('the util-linux namespace launcher [needs setpriv, unshare, user namespaces and /proc]', () => {
  const run = (script: string) => {
    const [command = '', ...args] = buildNamespacePrefix(setpriv ?? '', unshare ?? '', sh ?? '');
    return spawnSync(command, [...args, 'bash', '-c', script], { encoding: 'utf8' });
  };

  it('runs the command as PID 2 below an init, with a /proc of the namespace only', () => {
    const result = run('umount /proc 2>/dev/null; echo "$$ $PPID $(ls /proc | grep -c "^[0-9]")"');
    const [pid, ppid, listed] = result.stdout.trim().split(/\s+/u);
    expect(result.status).toBe(0);
    expect([pid, ppid]).toEqual(['2', '1']);
    // Only the namespace's own few processes, even after trying to unmount the fresh /proc,
    // where outside it lists at least this test's runner, its workers and their children.
    const outside = spawnSync('bash', ['-c', 'ls /proc | grep -c "^[0-9]"'], { encoding: 'utf8' });
    expect(Number(listed)).toBeLessThan(Math.min(10, Number(outside.stdout)));
  });

  it('exits with 128 + N when the command dies of signal N', () => {
    expect(run('kill -TERM $$').status).toBe(143);
  });
});

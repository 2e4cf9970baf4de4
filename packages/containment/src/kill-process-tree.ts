import { spawn } from 'node:child_process';

/**
 * Kills a child and everything it started. On POSIX every contained child leads its own
 * process group, so one SIGKILL to `-pid` reaches its descendants (and, in namespace mode,
 * the namespace's init, whose death takes the whole namespace with it). On Windows
 * `taskkill /T` walks the tree by parent id.
 */
export function killProcessTree(pid: number): void {
  if (process.platform === 'win32') {
    try {
      spawn('taskkill', ['/pid', String(pid), '/T', '/F'], {
        stdio: 'ignore',
        windowsHide: true,
      }).on('error', () => {});
    } catch {
      // taskkill missing: fall through to killing the child alone.
    }
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // Already gone.
    }
    return;
  }
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // Already gone.
    }
  }
}

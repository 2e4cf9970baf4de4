import { spawn } from 'node:child_process';

const liveGroups = new Set<number>();
let exitHookInstalled = false;

/**
 * Remembers a child started in its own process group, so that even if the server dies
 * without calling `close()`, its tools do not outlive it.
 */
export function trackProcessGroup(pid: number): void {
  liveGroups.add(pid);
  if (!exitHookInstalled) {
    exitHookInstalled = true;
    process.once('exit', () => {
      for (const group of liveGroups) killProcessTree(group);
    });
  }
}

export function untrackProcessGroup(pid: number): void {
  liveGroups.delete(pid);
}

/**
 * Kills a child and everything it started. On POSIX the child leads its own process group
 * (spawned with `detached: true`), so one signal to `-pid` reaches grandchildren too.
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

/** Whether children get their own process group (POSIX) — on Windows `detached` opens a console instead. */
export const USE_PROCESS_GROUPS = process.platform !== 'win32';

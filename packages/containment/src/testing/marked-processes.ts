import { existsSync, readdirSync, readFileSync } from 'node:fs';

export const hasProc = existsSync('/proc/self/cmdline');

/** Pids, as this process sees them, of live processes whose argv[0] is `marker` (`exec -a marker ...`). */
export function listProcessesWithArgv(marker: string): number[] {
  if (!hasProc) return [];
  const found: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/u.test(entry) || Number(entry) === process.pid) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      if (stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z')) continue;
      if (readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0')[0] === marker)
        found.push(Number(entry));
    } catch {
      // Gone meanwhile.
    }
  }
  return found;
}

/** Kills (SIGKILL) the processes carrying `marker`: the clean-up of a test whose fix failed. */
export function killMarked(marker: string): void {
  for (const pid of listProcessesWithArgv(marker)) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // Gone.
    }
  }
}

import { existsSync, readdirSync, readFileSync } from 'node:fs';

export const hasProc = existsSync('/proc/self/stat');

interface ProcessEntry {
  pid: number;
  ppid: number;
  state: string;
}

function readProcessTable(): ProcessEntry[] {
  const entries: ProcessEntry[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/u.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      // The command name may contain spaces and parentheses: fields resume after the last ')'.
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      entries.push({ pid: Number(name), state: fields[0] ?? '', ppid: Number(fields[1]) });
    } catch {
      // The process ended while we looked.
    }
  }
  return entries;
}

/** Live (non-zombie) descendants of `rootPid`, from /proc. */
export function listDescendants(rootPid: number = process.pid): number[] {
  const table = readProcessTable().filter((entry) => entry.state !== 'Z');
  const children = new Map<number, number[]>();
  for (const entry of table) {
    const list = children.get(entry.ppid) ?? [];
    list.push(entry.pid);
    children.set(entry.ppid, list);
  }
  const found: number[] = [];
  const queue = [...(children.get(rootPid) ?? [])];
  while (queue.length > 0) {
    const pid = queue.shift() as number;
    found.push(pid);
    queue.push(...(children.get(pid) ?? []));
  }
  return found;
}

/** Whether a process exists and is not a zombie waiting to be reaped. */
export function isProcessAlive(pid: number): boolean {
  if (hasProc) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[0] !== 'Z';
    } catch {
      return false;
    }
  }
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Pids of live processes whose argv[0] is `marker` (started as `exec -a marker ...`). */
export function findMarkedProcesses(marker: string): number[] {
  const found: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/u.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      if (stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z')) continue;
      if (readFileSync(`/proc/${name}/cmdline`, 'utf8').split('\0')[0] === marker)
        found.push(Number(name));
    } catch {
      // It ended while we looked.
    }
  }
  return found;
}

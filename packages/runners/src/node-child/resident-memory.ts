import { readFileSync, readdirSync } from 'node:fs';

/** Enough for a module child and what it started; a tree larger than this is not walked further. */
const MAX_PROCESSES = 256;

/**
 * Resident memory (VmRSS) of `rootPid` and every process below it, in bytes; undefined where
 * /proc cannot tell (not Linux, or the process is gone). The whole tree counts: the direct
 * child may be a containment launcher with Node below it, and a tool may start processes.
 */
export function readTreeResidentBytes(rootPid: number): number | undefined {
  let total = 0;
  let seen = 0;
  const queue = [rootPid];
  while (queue.length > 0 && seen < MAX_PROCESSES) {
    const pid = queue.shift() as number;
    seen += 1;
    const resident = readResidentBytes(pid);
    if (resident === undefined) {
      if (pid === rootPid) return undefined;
      continue;
    }
    total += resident;
    queue.push(...readChildren(pid));
  }
  return total;
}

function readResidentBytes(pid: number): number | undefined {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'latin1');
    const kb = /VmRSS:\s+(\d+)/u.exec(status)?.[1];
    // A zombie has no VmRSS line: it holds no memory.
    return kb === undefined ? 0 : Number(kb) * 1024;
  } catch {
    return undefined;
  }
}

function readChildren(pid: number): number[] {
  const children: number[] = [];
  try {
    for (const task of readdirSync(`/proc/${pid}/task`)) {
      const listed = readFileSync(`/proc/${pid}/task/${task}/children`, 'latin1');
      for (const child of listed.split(' ')) if (child.trim() !== '') children.push(Number(child));
    }
  } catch {
    // Gone meanwhile, or a kernel without the children file: count what was read.
  }
  return children;
}

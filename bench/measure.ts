// What the benchmarks share: percentiles of samples, a process's RSS (alone or with its
// children), a process tree's CPU time, and the generated PARAM-header script both the
// discovery and the server benchmarks serve a thousand of.
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';

/** The `p`th percentile (0-100) of `samples`, nearest rank; NaN when there are none. */
export function percentile(samples: readonly number[], p: number): number {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
}

/** Resident memory of `pid` in MB, from /proc on Linux and `ps` elsewhere; null when unknown. */
export function residentMb(pid: number | undefined): number | null {
  if (pid === undefined) return null;
  try {
    const kb = Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]);
    if (Number.isFinite(kb)) return kb / 1024;
  } catch {
    // Not Linux: ask ps.
  }
  const out = spawnSync('ps', ['-o', 'rss=', '-p', String(pid)], { encoding: 'utf8' }).stdout;
  const kb = Number(out?.trim());
  return out?.trim() && Number.isFinite(kb) ? kb / 1024 : null;
}

/** Header script number `i`: a bash tool with a description and two PARAM lines. */
export function headerScript(i: number): string {
  return `#!/usr/bin/env bash
# DESCRIPTION "Counts the words of text number ${i}."
# PARAM text AS string LIKE "one two" DESCRIPTION "The text to count."
# PARAM unit AS string OPTIONAL ENUM ["lines","words"] DESCRIPTION "What to count."
wc -w
`;
}

/** `pid` and every process under it, from /proc (Linux only: null elsewhere). */
function listProcessTree(pid: number): number[] | null {
  let entries: string[];
  try {
    entries = readdirSync('/proc').filter((name) => /^\d+$/.test(name));
  } catch {
    return null;
  }
  const children = new Map<number, number[]>();
  for (const entry of entries) {
    try {
      // The parent is the second field after the command, which may itself hold spaces.
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const parent = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      children.set(parent, [...(children.get(parent) ?? []), Number(entry)]);
    } catch {
      // The process ended while the table was read.
    }
  }
  const tree: number[] = [];
  const queue = [pid];
  while (queue.length > 0) {
    const current = queue.pop()!;
    tree.push(current);
    queue.push(...(children.get(current) ?? []));
  }
  return tree;
}

/**
 * Resident memory of `pid` and every process under it, in MB, summed from /proc (Linux only:
 * null elsewhere). Pages shared between the processes count once per process, the same for
 * every server measured this way.
 */
export function treeResidentMb(pid: number | undefined): number | null {
  if (pid === undefined) return null;
  const tree = listProcessTree(pid);
  return tree === null ? null : tree.reduce((total, id) => total + (residentMb(id) ?? 0), 0);
}

/**
 * CPU time (user + system) `pid` and every process under it have used so far, in ms, from
 * /proc (Linux only: null elsewhere); a process's own count includes its threads that ended.
 * /proc counts in clock ticks of 10 ms, so a difference is good to about 10 ms per process.
 */
export function treeCpuMs(pid: number | undefined): number | null {
  if (pid === undefined) return null;
  const tree = listProcessTree(pid);
  if (tree === null) return null;
  // A process that ended while the tree was read counts nothing.
  return tree.reduce((total, id) => total + (processCpuMs(id) ?? 0), 0);
}

/** CPU time `pid` alone has used so far, in ms, as `treeCpuMs` counts it; null if unreadable. */
export function processCpuMs(pid: number | undefined): number | null {
  if (pid === undefined) return null;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return null;
  }
}

// What the benchmarks share: percentiles of samples, a process's RSS (alone or with its
// children), and the generated PARAM-header script both the discovery and the server
// benchmarks serve a thousand of.
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

/**
 * Resident memory of `pid` and every process under it, in MB, summed from /proc (Linux only:
 * null elsewhere). Pages shared between the processes count once per process, the same for
 * every server measured this way.
 */
export function treeResidentMb(pid: number | undefined): number | null {
  if (pid === undefined) return null;
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
  let total = 0;
  const queue = [pid];
  while (queue.length > 0) {
    const current = queue.pop()!;
    total += residentMb(current) ?? 0;
    queue.push(...(children.get(current) ?? []));
  }
  return total;
}

// What the benchmarks share: percentiles of samples, a process's RSS, and the generated
// PARAM-header script both the discovery and the server benchmarks serve a thousand of.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

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

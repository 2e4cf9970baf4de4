import { readFileSync, readdirSync } from 'node:fs';

/**
 * Every process below `root`, found through the parent pids in /proc (Linux only: callers
 * check for /proc first). Used to prove a stopped call left no process behind.
 */
export function listDescendants(root: number): number[] {
  const parents = new Map<number, number>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      // The command name may hold spaces and parentheses: fields start after the last ')'.
      parents.set(Number(entry), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
    } catch {
      // Ended meanwhile.
    }
  }
  const found: number[] = [];
  const frontier = [root];
  while (frontier.length > 0) {
    const current = frontier.pop() as number;
    for (const [pid, parent] of parents) {
      if (parent === current && !found.includes(pid)) {
        found.push(pid);
        frontier.push(pid);
      }
    }
  }
  return found;
}

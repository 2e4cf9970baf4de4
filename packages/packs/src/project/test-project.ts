import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** Temporary folders for one test file, removed by `cleanup`. */
export function createTempDirs() {
  const made: string[] = [];
  return {
    make(prefix: string): string {
      const dir = mkdtempSync(path.join(os.tmpdir(), `toolpack-${prefix}-`));
      made.push(dir);
      return dir;
    },
    cleanup(): void {
      for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Every file and folder under `dir` with its content: equal snapshots mean nothing changed. */
export function snapshotTree(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (relative: string) => {
    for (const name of readdirSync(path.join(dir, relative)).sort()) {
      const child = relative === '' ? name : `${relative}/${name}`;
      const full = path.join(dir, child);
      if (statSync(full).isDirectory()) {
        out[`${child}/`] = '';
        walk(child);
      } else {
        out[child] = readFileSync(full, 'utf8');
      }
    }
  };
  walk('');
  return out;
}

import { lstat, readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import type { TarballFile } from '../tarball/read-tarball.ts';

/** How many differences a report names; the rest are counted. */
const SHOWN = 5;
/** Files read at once. */
const READERS = 16;

/**
 * Compares an installed pack folder with the files of its verified tarball: every file there
 * with the same bytes, nothing else (no extra file, no link). Reads the folder once and
 * compares bytes directly: the tarball is already in memory, so nothing needs hashing.
 * Returns the differences (`changed x`, `added y`, `missing z`), empty when the folder is
 * exactly the tarball.
 */
export async function findInstalledDifferences(
  dir: string,
  files: readonly TarballFile[],
): Promise<string[]> {
  const expected = new Map(files.map((file) => [file.path, file.data]));
  const differences: string[] = [];
  const toCompare: { path: string; data: Buffer }[] = [];
  const walk = async (relative: string): Promise<void> => {
    const entries = await readdir(path.join(dir, relative), { withFileTypes: true });
    for (const entry of entries.sort((a, b) => (a.name < b.name ? -1 : 1))) {
      const child = relative === '' ? entry.name : `${relative}/${entry.name}`;
      if (entry.isDirectory()) {
        await walk(child);
        continue;
      }
      const data = expected.get(child);
      expected.delete(child);
      if (!entry.isFile())
        differences.push(`${data === undefined ? 'added' : 'replaced'} ${child} (not a file)`);
      else if (data === undefined) differences.push(`added ${child}`);
      else toCompare.push({ path: child, data });
    }
  };
  await walk('');
  // Files are read a few at a time: one by one is dominated by waiting on each read.
  const changed = new Set<string>();
  let next = 0;
  const compareSome = async () => {
    for (let job = toCompare[next++]; job !== undefined; job = toCompare[next++]) {
      const full = path.join(dir, ...job.path.split('/'));
      // A size check first spares reading a file that differs anyway.
      if ((await lstat(full)).size !== job.data.length || !(await readFile(full)).equals(job.data))
        changed.add(job.path);
    }
  };
  await Promise.all(Array.from({ length: READERS }, compareSome));
  for (const { path: file } of toCompare)
    if (changed.has(file)) differences.push(`changed ${file}`);
  for (const missing of expected.keys()) differences.push(`missing ${missing}`);
  return differences.sort();
}

/** `changed a, added b and 3 more`. */
export function describeDifferences(differences: readonly string[]): string {
  const shown = differences.slice(0, SHOWN).join(', ');
  const more = differences.length - SHOWN;
  return more > 0 ? `${shown} and ${more} more` : shown;
}

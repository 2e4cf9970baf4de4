import { readdir, stat } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import type { LinearPattern } from '@toolpack/core';
import { compileWildcard, hasWildcard } from './wildcard.ts';

/** One item `Get-ChildItem` returns from the file system. */
export interface ChildItem {
  fullName: string;
  name: string;
  directory: boolean;
}

export interface ListChildItemsInput {
  /** Absolute paths with `/` separators; the last segment may be a wildcard (`.../Public/*.ps1`). */
  paths: readonly string[];
  filter?: string;
  include?: readonly string[];
  exclude?: readonly string[];
  recurse?: boolean;
  /** `-Depth`: recurse at most this many levels below the listed folder. */
  depth?: number;
  /** `-File` / `-Directory`. */
  only?: 'file' | 'directory';
  /** `-Force`: hidden items (a leading `.` on Unix) too. */
  force?: boolean;
  /** Directory entries the whole module may still look at; shared by every call of one module. */
  budget: { remaining: number };
}

export interface ListChildItemsResult {
  items: ChildItem[];
  /** The budget ran out: some items were never looked at. */
  truncated: boolean;
}

/**
 * Lists files as PowerShell's `Get-ChildItem` does on the file system (checked against pwsh
 * 7.6): only the folders the call names, recursing only with `-Recurse`/`-Depth`; a wildcard
 * last segment lists the matching children (with `-Recurse`, matching items at any depth);
 * `-Filter`, `-Include` and `-Exclude` match names without regard to case; `-Include` needs a
 * wildcard path or `-Recurse`, as in PowerShell; hidden items only with `-Force`. Within a
 * folder, folders come before files, each sorted without regard to case.
 */
export async function listChildItems(input: ListChildItemsInput): Promise<ListChildItemsResult> {
  const state = { truncated: false };
  const filter = input.filter === undefined ? undefined : compileWildcard(input.filter);
  const include = (input.include ?? []).map((pattern) => compileWildcard(pattern));
  const exclude = (input.exclude ?? []).map((pattern) => compileWildcard(pattern));
  const recurse = input.recurse === true || input.depth !== undefined;
  const maxDepth = input.depth ?? Number.POSITIVE_INFINITY;
  const items: ChildItem[] = [];

  const read = async (folder: string): Promise<ChildItem[]> => {
    let entries;
    try {
      entries = await readdir(folder, { withFileTypes: true });
    } catch {
      return [];
    }
    const found: ChildItem[] = [];
    for (const entry of entries) {
      if (input.budget.remaining <= 0) {
        state.truncated = true;
        break;
      }
      input.budget.remaining -= 1;
      if (input.force !== true && entry.name.startsWith('.')) continue;
      let directory = entry.isDirectory();
      if (entry.isSymbolicLink()) {
        try {
          directory = (await stat(join(folder, entry.name))).isDirectory();
        } catch {
          continue;
        }
      }
      found.push({ fullName: join(folder, entry.name), name: entry.name, directory });
    }
    const order = (a: ChildItem, b: ChildItem): number =>
      a.directory !== b.directory
        ? a.directory
          ? -1
          : 1
        : a.name.toLowerCase() < b.name.toLowerCase()
          ? -1
          : a.name.toLowerCase() > b.name.toLowerCase()
            ? 1
            : 0;
    return found.sort(order);
  };

  const keep = (
    item: ChildItem,
    leaf: LinearPattern | undefined,
    includeApplies: boolean,
  ): boolean => {
    if (leaf !== undefined && !leaf.test(item.name)) return false;
    if (filter !== undefined && !filter.test(item.name)) return false;
    if (include.length > 0 && (!includeApplies || !include.some((p) => p.test(item.name))))
      return false;
    if (exclude.some((p) => p.test(item.name))) return false;
    if (input.only === 'file' && item.directory) return false;
    if (input.only === 'directory' && !item.directory) return false;
    return true;
  };

  const walk = async (
    folder: string,
    level: number,
    leaf: LinearPattern | undefined,
    includeApplies: boolean,
  ): Promise<void> => {
    const children = await read(folder);
    for (const child of children) if (keep(child, leaf, includeApplies)) items.push(child);
    if (!recurse || level >= maxDepth) return;
    for (const child of children) {
      if (child.directory) await walk(child.fullName, level + 1, leaf, includeApplies);
    }
  };

  for (const path of input.paths) {
    const leafName = basename(path);
    if (hasWildcard(leafName)) {
      await walk(dirname(path), 0, compileWildcard(leafName), true);
      continue;
    }
    let isDirectory: boolean;
    try {
      isDirectory = (await stat(path)).isDirectory();
    } catch {
      continue;
    }
    if (isDirectory) await walk(path, 0, undefined, recurse);
    else {
      const item = { fullName: path, name: leafName, directory: false };
      if (keep(item, undefined, true)) items.push(item);
    }
  }
  return { items, truncated: state.truncated };
}

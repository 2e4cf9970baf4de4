import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { createDiagnostic, type Diagnostic } from '@toolpack/core';
import { MANIFEST_FILE } from '@toolpack/packs';

/**
 * The folders `mcp new tool` and `mcp new pack` put tool folders and scripts in, with the
 * source that serves each. Module folders (src/) are left out: they hold ordinary code too.
 */
const SCAFFOLD_FOLDERS = [
  { folder: 'tools', key: 'tools', flag: '--tools-dir' },
  { folder: 'scripts', key: 'scripts', flag: '--script-root' },
] as const;

const TOOL_FILE = /\.(ps1|psm1|psd1|sh|py|js|mjs|ts|bas)$/i;
const TEST_FILE = /\.test\.[a-z0-9]+$/i;
/** Entries read per folder: enough to find one tool file, bounded for a huge folder. */
const MAX_ENTRIES = 500;

export interface FindUncoveredToolFilesOptions {
  /** The project folder. */
  cwd: string;
  /** Source paths of the tools discovery found (absolute or relative to `cwd`). */
  toolPaths: readonly string[];
}

/**
 * A warning for each scaffold folder (tools/, scripts/) that holds tool files
 * while no discovered tool comes from it: a tool made with `mcp new tool` but never added to
 * `sources:` is silently not served.
 */
export async function findUncoveredToolFiles(
  options: FindUncoveredToolFilesOptions,
): Promise<Diagnostic[]> {
  const covered = options.toolPaths.map((p) => path.resolve(options.cwd, p));
  const diagnostics: Diagnostic[] = [];
  for (const { folder, key, flag } of SCAFFOLD_FOLDERS) {
    const dir = path.join(options.cwd, folder);
    if (covered.some((p) => p.startsWith(`${dir}${path.sep}`))) continue;
    const files = await listToolFiles(dir);
    if (files.length === 0) continue;
    const shown = files.slice(0, 3).map((f) => `${folder}/${f}`);
    const more = files.length > shown.length ? ` and ${files.length - shown.length} more` : '';
    diagnostics.push(
      createDiagnostic(
        'warning',
        'W_TOOLS_OUTSIDE_SOURCES',
        `${folder}/ holds tool files that no source covers, so they are not served: ${shown.join(', ')}${more}.`,
        { path: dir },
        `Add \`- ${key}: ${folder}\` under sources: in ${MANIFEST_FILE}, or pass ${flag} ${folder}.`,
      ),
    );
  }
  return diagnostics;
}

/** Tool files (not tests) in `dir` and its direct subfolders (tool folders), relative to it. */
async function listToolFiles(dir: string): Promise<string[]> {
  const found: string[] = [];
  const visit = async (folder: string, depth: number): Promise<void> => {
    const entries = await readdir(folder, { withFileTypes: true }).catch(() => []);
    for (const entry of entries.slice(0, MAX_ENTRIES)) {
      const full = path.join(folder, entry.name);
      if (entry.isFile() && TOOL_FILE.test(entry.name) && !TEST_FILE.test(entry.name))
        found.push(path.relative(dir, full).split(path.sep).join('/'));
      else if (entry.isDirectory() && depth === 0 && !entry.name.startsWith('.'))
        await visit(full, depth + 1);
    }
  };
  await visit(dir, 0);
  return found.sort();
}

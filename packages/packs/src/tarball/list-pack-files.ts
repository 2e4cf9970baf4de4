import { lstat, readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { createDiagnostic, type Diagnostic } from '@toolpack/core';
import {
  findIgnoreFileProblems,
  isIgnored,
  parseIgnoreFile,
  type IgnoreRule,
} from './ignore-rules.ts';

const IGNORE_FILE = '.toolpackignore';

export interface PackFile {
  /** Relative to the pack folder, `/`-separated. */
  path: string;
  absolute: string;
  size: number;
}

export interface PackFileList {
  /** Sorted by path (code-unit order, the same on every machine). */
  files: PackFile[];
  diagnostics: Diagnostic[];
}

/**
 * The files a pack of `dir` holds: everything except `.toolpackignore` matches and the
 * always-ignored secrets and folders. Links and special files are skipped with a warning:
 * following a link could pack a file from outside the folder.
 */
export async function listPackFiles(dir: string): Promise<PackFileList> {
  const root = path.resolve(dir);
  const { rules, diagnostics } = await readIgnoreRules(root);
  const files: PackFile[] = [];
  const walk = async (relativeDir: string): Promise<void> => {
    const entries = await readdir(path.join(root, relativeDir), { withFileTypes: true });
    for (const entry of entries) {
      const relative = relativeDir === '' ? entry.name : `${relativeDir}/${entry.name}`;
      const absolute = path.join(root, relative);
      if (entry.isSymbolicLink()) {
        if (!isIgnored(relative, false, rules)) {
          diagnostics.push(
            createDiagnostic(
              'warning',
              'W_PACK_LINK_SKIPPED',
              `${relative} is a symbolic link; packs hold no links, so it was left out.`,
              { path: absolute },
              `Copy the file it points to into the pack, or add it to ${IGNORE_FILE}.`,
            ),
          );
        }
        continue;
      }
      if (entry.isDirectory()) {
        if (!isIgnored(relative, true, rules)) await walk(relative);
        continue;
      }
      if (isIgnored(relative, false, rules)) continue;
      if (!entry.isFile()) {
        diagnostics.push(
          createDiagnostic(
            'warning',
            'W_PACK_SPECIAL_FILE_SKIPPED',
            `${relative} is not a regular file (a socket, FIFO or device), so it was left out.`,
            { path: absolute },
          ),
        );
        continue;
      }
      const stats = await lstat(absolute);
      files.push({ path: relative, absolute, size: stats.size });
    }
  };
  await walk('');
  files.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  return { files, diagnostics };
}

/** The rules, and a warning for each line that can never match (an author's typo). */
async function readIgnoreRules(
  root: string,
): Promise<{ rules: IgnoreRule[]; diagnostics: Diagnostic[] }> {
  const file = path.join(root, IGNORE_FILE);
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { rules: [], diagnostics: [] };
    throw error;
  }
  return { rules: parseIgnoreFile(text), diagnostics: findIgnoreFileProblems(text, file) };
}

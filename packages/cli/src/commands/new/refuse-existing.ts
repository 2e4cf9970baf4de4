import { ToolpackError } from '@toolpack/core';
import { showPath } from './show-path.ts';
import { findExistingPaths, type NewFile } from './write-new-files.ts';

/** `mcp new` never overwrites: the first file (or non-empty folder) that exists is an error. */
export async function refuseExisting(
  files: readonly NewFile[],
  folders: readonly string[],
): Promise<void> {
  const existing = await findExistingPaths(files, folders);
  const first = existing[0];
  if (first === undefined) return;
  const isFolder = folders.includes(first);
  throw new ToolpackError(
    'E_USAGE',
    isFolder
      ? `${showPath(first)} already exists and is not empty: mcp new never overwrites files.`
      : `${showPath(first)} already exists: mcp new never overwrites files.`,
    { hint: 'Pick another name, or another folder with --dir.' },
  );
}

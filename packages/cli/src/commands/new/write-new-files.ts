import { chmod, mkdir, readdir, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { ToolpackError } from '@toolpack/core';

export interface NewFile {
  path: string;
  content: string;
  executable?: boolean;
}

/** The planned files (and non-empty folders the caller names) that already exist. */
export async function findExistingPaths(
  files: readonly NewFile[],
  folders: readonly string[] = [],
): Promise<string[]> {
  const existing: string[] = [];
  for (const file of files) {
    if (
      await stat(file.path).then(
        () => true,
        () => false,
      )
    )
      existing.push(file.path);
  }
  for (const folder of folders) {
    const entries = await readdir(folder).catch(() => []);
    if (entries.length > 0) existing.push(folder);
  }
  return existing;
}

/**
 * Writes every file, creating folders as needed, never replacing one: should a file appear
 * between the check and the write (`wx` fails), the files written so far are removed again,
 * so a scaffold is all there or not there at all.
 */
export async function writeNewFiles(files: readonly NewFile[]): Promise<void> {
  const written: string[] = [];
  try {
    for (const file of files) {
      await mkdir(path.dirname(file.path), { recursive: true });
      await writeFile(file.path, file.content, { flag: 'wx' });
      written.push(file.path);
      if (file.executable && process.platform !== 'win32') await chmod(file.path, 0o755);
    }
  } catch (error) {
    await Promise.all(written.map((file) => rm(file, { force: true })));
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EEXIST') {
      throw new ToolpackError(
        'E_USAGE',
        `${(error as NodeJS.ErrnoException).path ?? 'A file'} already exists: mcp new never overwrites files.`,
        { hint: 'Pick another name or folder, or move the existing files away.' },
      );
    }
    throw new ToolpackError('E_WRITE', `Cannot write the new files: ${(error as Error).message}`, {
      cause: error,
      hint: 'Check that the folder is writable.',
    });
  }
}

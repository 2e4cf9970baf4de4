import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { addManifestSource, type ManifestSourceEntry } from '../manifest/edit-manifest.ts';
import { MANIFEST_FILE } from '../manifest/parse-manifest.ts';
import { writeFileAtomically } from './project-files.ts';

/**
 * Adds `source` to the `sources:` of the project's `toolpack.yaml` (comments and layout
 * kept), creating the file when there is none; `created` says which. A file that is not
 * valid YAML throws E_MANIFEST and stays as it was.
 */
export async function addProjectSource(
  projectDir: string,
  source: ManifestSourceEntry,
): Promise<{ file: string; created: boolean }> {
  const file = path.join(projectDir, MANIFEST_FILE);
  const read = () =>
    readFile(file, 'utf8').catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT') return undefined;
      throw error;
    });
  let text = await read();
  if (text === undefined) {
    try {
      // `wx`: a toolpack.yaml written meanwhile is edited below instead of replaced.
      await writeFile(file, addManifestSource(undefined, source), { flag: 'wx' });
      return { file, created: true };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      text = await read();
    }
  }
  await writeFileAtomically(file, addManifestSource(text, source));
  return { file, created: false };
}

import { readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import {
  createDiagnostic,
  findClosestName,
  getSourceLocation,
  type Diagnostic,
  type SourceSpec,
} from '@toolpack/core';

export interface FindMissingSourcesOptions {
  /** The project folder: source paths are relative to it. */
  dir: string;
  /** `<dir>/toolpack.yaml`, for the diagnostics. */
  file: string;
  /** The project's own sources, as toolpack.yaml lists them. */
  sources: readonly SourceSpec[];
  /** The line of each source's location, in the same order (`ManifestResult.sourceLines`). */
  lines?: readonly (number | undefined)[];
}

/** A module given by a path rather than by a name looked up on PSModulePath. */
const MODULE_FILE = /\.(psd1|psm1|[cm]?[jt]s)$/i;
const GLOB_CHARACTERS = /[*?[\]{}]/;

/**
 * The project's sources whose folder (or module file) does not exist, each at its line in
 * toolpack.yaml with the nearest existing name beside it: discovery would stop at the first
 * with a bare "does not exist" that names neither the file nor what was probably meant.
 * Globs and module names are left to discovery (a glob may match nothing yet; a name is found
 * on PSModulePath).
 */
export async function findMissingSources(
  options: FindMissingSourcesOptions,
): Promise<Diagnostic[]> {
  const problems = await Promise.all(
    options.sources.map(async (source, index): Promise<Diagnostic | undefined> => {
      const { key, location } = getSourceLocation(source);
      const wantsFile = key === 'module';
      if (wantsFile ? !MODULE_FILE.test(location) : GLOB_CHARACTERS.test(location))
        return undefined;
      const absolute = path.resolve(options.dir, location);
      const info = await stat(absolute).catch(() => undefined);
      if (info !== undefined && (wantsFile ? info.isFile() : info.isDirectory())) return undefined;
      const line = options.lines?.[index];
      const what = wantsFile ? 'file' : 'folder';
      const nearest = info === undefined ? await findNearestEntry(absolute, wantsFile) : undefined;
      const suggestion =
        nearest === undefined ? undefined : path.posix.join(path.posix.dirname(location), nearest);
      return createDiagnostic(
        'error',
        'E_SOURCE_MISSING',
        info === undefined
          ? `sources.${index}.${key}: ${JSON.stringify(location)} does not exist (looked for ${absolute}).`
          : `sources.${index}.${key}: ${JSON.stringify(location)} is not a ${what}.`,
        { path: options.file, ...(line === undefined ? {} : { line }) },
        suggestion === undefined
          ? `Point ${key}: at a ${what} relative to the project folder (${options.dir}).`
          : `Did you mean ${suggestion} (the nearest existing ${what})? Write ${key}: ${suggestion}.`,
      );
    }),
  );
  return problems.filter((problem): problem is Diagnostic => problem !== undefined);
}

/** The name in the missing path's parent folder closest to its own, of the right kind. */
async function findNearestEntry(absolute: string, wantsFile: boolean): Promise<string | undefined> {
  const entries = await readdir(path.dirname(absolute), { withFileTypes: true }).catch(() => []);
  const names = entries
    .filter((entry) => !entry.name.startsWith('.'))
    .filter((entry) => (wantsFile ? entry.isFile() : entry.isDirectory()))
    .map((entry) => entry.name);
  return findClosestName(path.basename(absolute), names);
}

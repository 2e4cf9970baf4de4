import { readdir } from 'node:fs/promises';
import path from 'node:path';
import {
  ToolpackError,
  findClosestName,
  getSourceLocation,
  isToolpackError,
  type SourceSpec,
} from '@toolpack/core';

/** A module given by a path rather than by a name looked up on PSModulePath. */
const MODULE_FILE = /\.(psd1|psm1|[cm]?[jt]s)$/i;
const GLOB_CHARACTERS = /[*?[\]{}]/;

/**
 * `error` as the user should read it when it says a source does not exist: at the line of
 * toolpack.yaml that names the source (`spec.origin`), with the existing folder (or module
 * file) of the closest name beside the missing one (`scrpts` -> `scripts`). Any other error,
 * and a glob or a module name (looked up on PSModulePath), comes back as it was.
 */
export async function explainMissingSource(
  error: unknown,
  spec: SourceSpec,
  cwd: string,
): Promise<unknown> {
  if (!isToolpackError(error) || error.code !== 'E_SOURCE_MISSING') return error;
  const { key, location } = getSourceLocation(spec);
  const wantsFile = key === 'module';
  const named = wantsFile ? MODULE_FILE.test(location) : !GLOB_CHARACTERS.test(location);
  const nearest = named
    ? await findNearestEntry(path.resolve(cwd, location), wantsFile)
    : undefined;
  if (spec.origin === undefined && nearest === undefined) return error;
  const suggestion =
    nearest === undefined
      ? undefined
      : `Did you mean ${path.posix.join(path.posix.dirname(location), nearest)} (the nearest existing ${wantsFile ? 'file' : 'folder'})?`;
  return new ToolpackError(error.code, error.message, {
    cause: error,
    // Where the user named the source beats where discovery looked for it.
    ...(spec.origin ??
      (error.path === undefined
        ? {}
        : { path: error.path, ...(error.line === undefined ? {} : { line: error.line }) })),
    ...(suggestion === undefined && error.hint === undefined
      ? {}
      : { hint: [suggestion, error.hint].filter((part) => part !== undefined).join(' ') }),
  });
}

/** The missing path's sibling closest to it by name, of the kind the source needs. */
async function findNearestEntry(absolute: string, wantsFile: boolean): Promise<string | undefined> {
  const entries = await readdir(path.dirname(absolute), { withFileTypes: true }).catch(() => []);
  const names = entries
    .filter((entry) => !entry.name.startsWith('.'))
    .filter((entry) => (wantsFile ? entry.isFile() : entry.isDirectory()))
    .map((entry) => entry.name);
  const closest = findClosestName(path.basename(absolute), names);
  return closest === path.basename(absolute) ? undefined : closest;
}

import path from 'node:path';
import {
  LEAST_PERMISSIONS,
  getSourceLocation,
  type SourceSpec,
  type ToolSandbox,
} from '@toolpack/core';

/**
 * A confined source's sandbox: its permissions (the least when it names none), the folder
 * its tools may always read, which is the pack's whole folder for a pack (scripts there load
 * files beside them) and otherwise the folder the source names (a module's own folder), and
 * what it must never write: the folders of the sources that run unconfined (`sources`, the
 * project's whole list) and `alsoProtect` (the files the project's interpreters name).
 */
export function chooseSandbox(
  spec: SourceSpec,
  sources: readonly SourceSpec[] = [],
  alsoProtect: readonly string[] = [],
): ToolSandbox | undefined {
  if (spec.sandbox !== true) return undefined;
  const protect = [
    ...sources
      .filter((other) => other.sandbox !== true)
      .flatMap((other) => findProtectedPaths(other)),
    ...alsoProtect,
  ];
  return {
    root: spec.sandboxRoot ?? findSourceFolder(spec),
    permissions: spec.permissions ?? LEAST_PERMISSIONS,
    ...(protect.length === 0 ? {} : { protect: [...new Set(protect)].sort() }),
  };
}

// What Node resolves a JS/TS module's imports from, besides the module's own folder.
const JS_MODULE = /\.(?:[cm]?js|[cm]?ts)$/i;

/**
 * What an unconfined source runs from: its folder, and for a module named without a folder
 * the project root when it is a file there (its imports could be anywhere), the name itself
 * when it is a module name (found on PSModulePath; a folder of that name is protected). A
 * JS/TS module also loads the `node_modules` and reads the `package.json` of every folder
 * above its own (`src/tools.mjs` imports `zod` from `node_modules/zod`).
 */
function findProtectedPaths(spec: SourceSpec): string[] {
  const { key, location } = getSourceLocation(spec);
  if (key === 'module' && !/[\\/]/.test(location) && path.extname(location) === '')
    return [location];
  const folder = findSourceFolder(spec);
  if (key !== 'module' || !JS_MODULE.test(location)) return [folder];
  const paths = [folder];
  for (let below = folder, above = path.dirname(folder); above !== below;) {
    paths.push(path.join(above, 'node_modules'), path.join(above, 'package.json'));
    [below, above] = [above, path.dirname(above)];
  }
  return paths;
}

/** The folder a source's tools come from: a module's own folder, else the path before any glob. */
function findSourceFolder(spec: SourceSpec): string {
  const { key, location } = getSourceLocation(spec);
  if (key !== 'module') return readStaticBase(location);
  return /[\\/]/.test(location) ? path.dirname(location) : '.';
}

/** The part of a path or glob before its first wildcard segment (`scripts/*.ps1` -> `scripts`). */
function readStaticBase(location: string): string {
  const segments = location.split(/[\\/]/);
  const firstGlob = segments.findIndex((segment) => /[*?[\]{}]/.test(segment));
  const base = firstGlob === -1 ? segments : segments.slice(0, firstGlob);
  return base.join('/') || '.';
}

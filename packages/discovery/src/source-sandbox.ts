import path from 'node:path';
import {
  LEAST_PERMISSIONS,
  getSourceLocation,
  type SourceSpec,
  type ToolSandbox,
} from '@toolpack/core';

/**
 * A confined source's sandbox: its permissions (the least when it names none) and the folder
 * its tools may always read, which is the pack's whole folder for a pack (scripts there load
 * files beside them) and otherwise the folder the source names (a module's own folder).
 */
export function chooseSandbox(spec: SourceSpec): ToolSandbox | undefined {
  if (spec.sandbox !== true) return undefined;
  const { key, location } = getSourceLocation(spec);
  const root =
    spec.sandboxRoot ??
    (key === 'module'
      ? /[\\/]/.test(location)
        ? path.dirname(location)
        : '.'
      : readStaticBase(location));
  return { root, permissions: spec.permissions ?? LEAST_PERMISSIONS };
}

/** The part of a path or glob before its first wildcard segment (`scripts/*.ps1` -> `scripts`). */
function readStaticBase(location: string): string {
  const segments = location.split(/[\\/]/);
  const firstGlob = segments.findIndex((segment) => /[*?[\]{}]/.test(segment));
  const base = firstGlob === -1 ? segments : segments.slice(0, firstGlob);
  return base.join('/') || '.';
}

import path from 'node:path';
import { formatDiagnostic, type SourceSpec } from '@toolpack/core';
import { MANIFEST_FILE, addProjectSource, readManifest } from '@toolpack/packs';
import type { PlannedSource } from './plan-tool.ts';

/** What `mcp new tool` did to `toolpack.yaml` so that `mcp list` serves the new tool. */
export interface SourceRegistration {
  /** The project's `toolpack.yaml` (absolute). */
  file: string;
  /**
   * `created` the file, `added` the source to it, found it `covered` by a source already
   * there, or `not-written`: the file has problems, and `reason` says which.
   */
  outcome: 'created' | 'added' | 'covered' | 'not-written';
  /** The source as it reads under `sources:`: `scripts: .`, or the one that covers the tool. */
  entry: string;
  reason?: string;
}

export interface RegisterSourceOptions {
  /** The project (findProjectDir). */
  projectDir: string;
  /** Where discovery finds the new tool. */
  source: PlannedSource;
}

/**
 * The project a new tool belongs to: the nearest folder from the tool's own up to where `mcp`
 * was started that has a `toolpack.yaml`; else where `mcp` was started, where `mcp list` then
 * reads it (or the tool's folder, when `-C` sent the tool outside that).
 */
export async function findProjectDir(startDir: string, toolDir: string): Promise<string> {
  const inside = isWithin(startDir, toolDir);
  for (let dir = toolDir; ; dir = path.dirname(dir)) {
    if ((await readManifest(dir)).exists) return dir;
    if (!inside || dir === startDir || path.dirname(dir) === dir) break;
  }
  return inside ? startDir : toolDir;
}

/**
 * Makes the project's `toolpack.yaml` serve the new tool: creates the file when there is
 * none, or adds the source through the manifest's one writer (comments and layout kept)
 * unless a source there already covers the tool. Never throws for a file it cannot read or
 * edit: the tool is written by then, so that is reported with the line to add by hand.
 */
export async function registerSource(options: RegisterSourceOptions): Promise<SourceRegistration> {
  const { projectDir, source } = options;
  const relative = path.relative(projectDir, source.path).split(path.sep).join('/') || '.';
  const entry = { key: source.key, path: relative };
  const line = `${source.key}: ${relative}`;
  const file = path.join(projectDir, MANIFEST_FILE);
  const read = await readManifest(projectDir);
  if (read.exists) {
    const errors = read.diagnostics.filter((d) => d.severity === 'error');
    if (read.manifest === undefined || errors.length > 0) {
      return {
        file,
        outcome: 'not-written',
        entry: line,
        reason: errors.map((d) => formatDiagnostic({ ...d, path: MANIFEST_FILE })).join('; '),
      };
    }
    const covering = read.manifest.sources
      .map((configured) => findLocation(configured, source.key))
      .find((location) => location !== undefined && covers(location, source, projectDir));
    if (covering !== undefined)
      return { file, outcome: 'covered', entry: `${source.key}: ${covering}` };
  }
  try {
    const { created } = await addProjectSource(projectDir, entry);
    return { file, outcome: created ? 'created' : 'added', entry: line };
  } catch (error) {
    return {
      file,
      outcome: 'not-written',
      entry: line,
      reason: (error as Error).message,
    };
  }
}

/** A configured source's location when it is of `key`'s kind (`scripts: scripts` -> scripts). */
function findLocation(configured: SourceSpec, key: PlannedSource['key']): string | undefined {
  const value = (configured as Partial<Record<PlannedSource['key'], unknown>>)[key];
  return typeof value === 'string' ? value : undefined;
}

/** Whether a configured location serves what `source` names (same kind, same place). */
function covers(location: string, source: PlannedSource, projectDir: string): boolean {
  const configuredPath = path.resolve(projectDir, location);
  if (configuredPath === source.path) return true;
  // `tools:` takes a glob of folders too (`.bot/workflows/*/tools`).
  return source.key === 'tools' && /[*?[{]/.test(location)
    ? path.matchesGlob(source.path, configuredPath)
    : false;
}

function isWithin(parent: string, child: string): boolean {
  const relative = path.relative(parent, child);
  return relative === '' || (!relative.startsWith('..') && !path.isAbsolute(relative));
}

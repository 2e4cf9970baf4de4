import type { Diagnostic, SourceSpec, ToolPolicy } from '@toolpack/core';
import { MANIFEST_FILE, readManifest } from '../manifest/parse-manifest.ts';
import type { Manifest } from '../manifest/manifest-schema.ts';
import { readInstalledPacks, type InstalledPack } from './project-packs.ts';

/** A project's `toolpack.yaml` with its installed packs: everything a command serves from. */
export interface Project {
  /** Absolute: `<dir>/toolpack.yaml`. */
  file: string;
  manifest: Manifest;
  /**
   * What to serve, in composition order: the installed packs' sources (each with `pack:`,
   * so their tools are `<alias>_<tool>`), then the project's own. The order decides no
   * collision with a pack: a name a pack's tool shares is served by neither
   * (docs/architecture.md "Composition").
   */
  sources: SourceSpec[];
  /** `policy:`, with `origin` `toolpack.yaml:<line>` for denial messages. */
  policy?: ToolPolicy;
  /**
   * Per extension: the project's own interpreters, for its own tools. An installed pack's
   * (approved) interpreters ride on its sources and reach its tools only.
   */
  interpreters?: Record<string, string[]>;
  /** Environment variables the installed packs declare: a runner lets these through. */
  env: string[];
  packs: InstalledPack[];
  /** Warnings (what is fine still loads): the manifest's, then missing, stale or broken packs. */
  diagnostics: Diagnostic[];
}

export type LoadProjectResult =
  | { status: 'missing'; file: string }
  /** The manifest has errors: every one, each with its line. Nothing else was read. */
  | { status: 'invalid'; file: string; diagnostics: Diagnostic[] }
  | { status: 'loaded'; project: Project };

/**
 * The one reader of a project's `toolpack.yaml`: reads it once, then the lockfile and the
 * installed packs it names. Never throws for a problem in those files: they come back as
 * diagnostics, so `mcp check` can list them all and `mcp serve` can refuse to start.
 */
export async function loadProject(dir: string): Promise<LoadProjectResult> {
  const read = await readManifest(dir);
  if (!read.exists) return { status: 'missing', file: read.file };
  const errors = read.diagnostics.filter((d) => d.severity === 'error');
  if (read.manifest === undefined || errors.length > 0) {
    return { status: 'invalid', file: read.file, diagnostics: errors };
  }
  const { manifest } = read;
  const installed = await readInstalledPacks({
    projectDir: dir,
    manifest,
    manifestFile: read.file,
  });
  const interpreters =
    manifest.interpreters === undefined || Object.keys(manifest.interpreters).length === 0
      ? undefined
      : manifest.interpreters;
  const project: Project = {
    file: read.file,
    manifest,
    // The project's credentials: bind its own tools' parameters only, never a pack's. Each
    // own source knows its line, for discovery to report one that does not exist there.
    sources: [
      ...installed.sources,
      ...manifest.sources.map((source, index) => {
        const line = read.sourceLines?.[index];
        return {
          ...source,
          ...(manifest.credentials?.length ? { credentials: manifest.credentials } : {}),
          origin: { path: read.file, ...(line === undefined ? {} : { line }) },
        };
      }),
    ],
    env: [...new Set(installed.packs.flatMap((p) => p.env.map((e) => e.name)))],
    packs: installed.packs,
    diagnostics: [...read.diagnostics, ...installed.diagnostics],
  };
  if (manifest.policy !== undefined) {
    project.policy = {
      ...manifest.policy,
      origin: read.policyLine === undefined ? MANIFEST_FILE : `${MANIFEST_FILE}:${read.policyLine}`,
    };
  }
  if (interpreters !== undefined) project.interpreters = interpreters;
  return { status: 'loaded', project };
}

import { ToolpackError, formatDiagnostic, type Diagnostic, type SourceSpec } from '@toolpack/core';
import { MANIFEST_FILE, readManifest, type Manifest } from '@toolpack/packs';

export const PROJECT_FILE = MANIFEST_FILE;

/** What a command needs of the project's `toolpack.yaml` (parsed by @toolpack/packs). */
export interface ProjectConfig {
  file: string;
  root: string;
  sources: SourceSpec[];
  include?: string[];
  exclude?: string[];
  maxTools?: number;
  strict?: boolean;
  interpreters?: Record<string, string[]>;
  manifest: Manifest;
  /** Warnings about the manifest (unknown keys, ...): the project still loads. */
  diagnostics: Diagnostic[];
}

/**
 * Reads `toolpack.yaml` in `dir`, or returns undefined when there is none. A manifest with
 * errors throws `E_MANIFEST` listing every one with its line: serving half a project
 * would hide the mistake.
 */
export async function readProjectConfig(dir: string): Promise<ProjectConfig | undefined> {
  const read = await readManifest(dir);
  if (!read.exists) return undefined;
  const errors = read.diagnostics.filter((d) => d.severity === 'error');
  if (read.manifest === undefined || errors.length > 0) {
    const first = errors[0];
    throw new ToolpackError(
      'E_MANIFEST',
      `${PROJECT_FILE} has ${errors.length === 1 ? 'a problem' : `${errors.length} problems`}:\n${errors.map(({ hint: _hint, ...d }) => `  ${formatDiagnostic(d)}`).join('\n')}`,
      {
        hint:
          first?.hint ??
          `Fix the lines above; \`mcp check\` lists every problem of ${PROJECT_FILE}.`,
      },
    );
  }
  const { manifest } = read;
  const config: ProjectConfig = {
    file: read.file,
    root: dir,
    sources: manifest.sources,
    manifest,
    diagnostics: read.diagnostics,
  };
  if (manifest.include) config.include = manifest.include;
  if (manifest.exclude) config.exclude = manifest.exclude;
  if (manifest.maxTools !== undefined) config.maxTools = manifest.maxTools;
  if (manifest.strict !== undefined) config.strict = manifest.strict;
  if (manifest.interpreters !== undefined) config.interpreters = manifest.interpreters;
  return config;
}

/**
 * The errors of `toolpack.yaml` in `dir` as diagnostics, each with its line (empty when the
 * file is fine or absent): `mcp check` reports them one by one and exits 1 instead of
 * stopping at the first, as the other commands do.
 */
export async function readProjectProblems(dir: string): Promise<Diagnostic[]> {
  const read = await readManifest(dir);
  return read.diagnostics.filter((d) => d.severity === 'error');
}

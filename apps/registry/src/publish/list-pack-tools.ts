import { stat } from 'node:fs/promises';
import path from 'node:path';
import {
  LEAST_PERMISSIONS,
  createDiagnostic,
  getSourceLocation,
  isToolpackError,
  type Diagnostic,
} from '@toolpack/core';
import { discoverTools } from '@toolpack/discovery';
import type { PackManifest } from '@toolpack/packs';
import type { PackToolSummary } from '../documents.ts';

export interface PackToolListing {
  tools: PackToolSummary[];
  /** Paths are relative to the pack folder (`tools/x/metadata.yaml`), whatever folder was read. */
  diagnostics: Diagnostic[];
}

export interface ListPackToolsInput {
  /** The pack folder (holds toolpack.yaml). */
  dir: string;
  manifest: PackManifest;
  /**
   * Aborted when the registry gives the publish up (it is closing): a JS/TS module still being
   * imported for its tools is killed, and the listing ends with `E_DISCOVERY_ABORTED`.
   */
  signal?: AbortSignal;
}

/** Lists a pack's tools, with every problem discovery found. Replaceable for sandboxed discovery. */
export type PackToolLister = (input: ListPackToolsInput) => Promise<PackToolListing>;

/**
 * The tools a pack serves, read exactly as a project that installed it serves them (and as
 * `mcp pack pack` lists them): each source of its manifest with its include/exclude, without
 * per-source prefixes (the project's alias prefixes them), built-ins or a cache.
 * JS/TS modules are imported in a child process by discovery, so listing a pack runs its
 * module's top-level code: in the OS sandbox with no grant (README "Security notes").
 */
export async function listPackTools(input: ListPackToolsInput): Promise<PackToolListing> {
  const root = path.resolve(input.dir);
  const { manifest } = input;
  // Discovery stops at the first missing source; a publisher should hear of all of them,
  // and of every problem in the sources that are there.
  const missing = await findMissingSources(root, manifest);
  // Uploaded code: a module's top-level code runs when it is imported for its tools, so it
  // runs in the sandbox with no grant at all (its own folder, no network, no environment
  // names), whatever its sources claim. Where the sandbox cannot be had it runs contained.
  const present = manifest.sources
    .filter((_, index) => !missing.some((m) => m.index === index))
    .map(({ prefix: _prefix, ...source }) => ({
      ...source,
      sandbox: true,
      permissions: LEAST_PERMISSIONS,
      sandboxRoot: root,
      // Its credentials: bind its tools as a project serving it binds them (docs/permissions.md).
      ...(manifest.credentials?.length ? { credentials: manifest.credentials } : {}),
    }));
  const missingDiagnostics = missing.map((m) => m.diagnostic);
  let result;
  try {
    result = await discoverTools({
      sources: present,
      cwd: root,
      cache: false,
      builtins: false,
      // A pack's size is bounded by the tarball caps; how many tools a project serves is its own choice.
      maxTools: Number.MAX_SAFE_INTEGER,
      ...(input.signal === undefined ? {} : { signal: input.signal }),
      ...(manifest.interpreters === undefined
        ? {}
        : { extraScriptExtensions: Object.keys(manifest.interpreters) }),
    });
  } catch (error) {
    if (!isToolpackError(error)) throw error;
    return {
      tools: [],
      diagnostics: [
        ...missingDiagnostics,
        relativize(
          createDiagnostic(
            'error',
            error.code,
            error.message,
            { path: 'toolpack.yaml' },
            error.hint,
          ),
          root,
        ),
      ],
    };
  }
  const tools = result.tools.map((tool): PackToolSummary => {
    const summary: PackToolSummary = {
      name: tool.name,
      description: tool.description,
      inputSchema: tool.inputSchema as Record<string, unknown>,
    };
    if (tool.outputSchema !== undefined)
      summary.outputSchema = tool.outputSchema as Record<string, unknown>;
    if (tool.inputExamples !== undefined && tool.inputExamples.length > 0)
      summary.inputExamples = tool.inputExamples;
    if (tool.annotations !== undefined && Object.keys(tool.annotations).length > 0)
      summary.annotations = tool.annotations;
    return summary;
  });
  return {
    tools,
    diagnostics: [...missingDiagnostics, ...result.diagnostics.map((d) => relativize(d, root))],
  };
}

async function findMissingSources(
  root: string,
  manifest: PackManifest,
): Promise<{ index: number; diagnostic: Diagnostic }[]> {
  const missing: { index: number; diagnostic: Diagnostic }[] = [];
  for (const [index, source] of manifest.sources.entries()) {
    const { key, location } = getSourceLocation(source);
    // Globs (`.bot/workflows/*/tools`) are discovery's to expand; a module may be a name on PSModulePath.
    if (/[*?[{]/.test(location) || (key === 'module' && !/[\\/.]/.test(location))) continue;
    const found = await stat(path.resolve(root, location)).then(
      (s) => (key === 'module' ? s.isFile() : s.isDirectory()),
      () => false,
    );
    if (found) continue;
    missing.push({
      index,
      diagnostic: createDiagnostic(
        'error',
        'E_SOURCE_MISSING',
        `sources.${index}.${key}: ${location} is not ${key === 'module' ? 'a file' : 'a folder'} in the pack.`,
        { path: 'toolpack.yaml' },
        'Check the path (relative to toolpack.yaml) and that .toolpackignore does not leave it out.',
      ),
    });
  }
  return missing;
}

/** Diagnostics name files inside the pack, never the temporary folder it was unpacked into. */
function relativize(diagnostic: Diagnostic, root: string): Diagnostic {
  const strip = (text: string) => text.split(`${root}${path.sep}`).join('').split(root).join('.');
  const relative = path.isAbsolute(diagnostic.path)
    ? path.relative(root, diagnostic.path).split(path.sep).join('/') || '.'
    : diagnostic.path;
  const copy: Diagnostic = { ...diagnostic, path: relative, message: strip(diagnostic.message) };
  if (diagnostic.hint !== undefined) copy.hint = strip(diagnostic.hint);
  return copy;
}

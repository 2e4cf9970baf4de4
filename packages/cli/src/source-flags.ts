import path from 'node:path';
import type { Command } from 'commander';
import {
  ToolpackError,
  createDiagnostic,
  formatDiagnostic,
  type Diagnostic,
  type SchemaDialect,
  type SourceSpec,
  type ToolPolicy,
} from '@toolpack/core';
import type { DiscoverToolsOptions } from '@toolpack/discovery';
import {
  MANIFEST_FILE,
  loadProject,
  type InstalledPack,
  type LoadProjectResult,
} from '@toolpack/packs';
import { findWithheldAllowListEntries } from '@toolpack/runners';
import { collect, parseCount } from './option-parsers.ts';

export interface SourceFlagValues {
  include?: string[];
  exclude?: string[];
  prefix?: boolean;
  maxTools?: number;
  strict?: boolean;
  cache?: boolean;
  lenientHelp?: boolean;
}

/**
 * Adds the source flags shared by `list`, `check`, `call` and `serve`. Source flags are
 * collected into `sources` in the order they appear on the command line, because
 * composition is in source order (the last of two same-named tools wins).
 */
export function addSourceFlags(command: Command, sources: SourceSpec[]): Command {
  const push = (make: (value: string) => SourceSpec) => (value: string, previous: unknown) => {
    sources.push(make(value));
    return previous;
  };
  return command
    .option(
      '--script-root <dir>',
      'a folder of scripts (*.ps1, *.sh, *.py, *.js, *.ts, *.bas); repeatable',
      push((v) => ({ scripts: v })),
    )
    .option(
      '--tools-dir <dir|glob>',
      "a folder (or glob, e.g. '.bot/workflows/*/tools') of dotbot tool folders; repeatable",
      push((v) => ({ tools: v })),
    )
    .option(
      '--module <path|name>',
      'a PowerShell module (.psd1/.psm1 or a name on PSModulePath) or a JS/TS module; repeatable',
      push((v) => ({ module: v })),
    )
    .option(
      '--workflows <dir>',
      'a folder of workflow *.yaml files; repeatable',
      push((v) => ({ workflows: v })),
    )
    .option(
      '--include <glob>',
      'keep only tools matching (name or original name, case-insensitive); repeatable',
      collect,
    )
    .option('--exclude <glob>', 'drop tools matching; repeatable', collect)
    .option('--prefix', 'prefix each tool with its module or folder name (<Module>_<Function>)')
    .option('--max-tools <n>', 'refuse more tools than this (default 50)', parseCount)
    .option('--strict', 'make name collisions errors instead of warnings')
    .option(
      '--lenient-help',
      'serve PowerShell tools whose parameters lack descriptions (a warning each), as MCPServerPS does',
    )
    .option('--no-cache', 'parse every file again instead of using .toolpack/cache');
}

export interface ResolvedSources {
  options: DiscoverToolsOptions;
  /** Interpreters per extension from `toolpack.yaml` and installed packs, for the runner. */
  interpreters?: Record<string, string[]>;
  /** Environment variables installed packs declare: the runner lets these through to tools. */
  envAllowList: string[];
  /** Problems of the manifest and of installed packs (warnings: what is fine still loads). */
  diagnostics: Diagnostic[];
  /** Where the sources came from, for messages (`packs`: `mcp serve --pack`). */
  origin: 'flags' | 'project' | 'packs' | 'none';
  /** The project's installed packs (their required env decides whether their tools can run). */
  packs: InstalledPack[];
  /** `policy:` of `toolpack.yaml`, with its line as `origin`. */
  policy?: ToolPolicy;
  /** `schemaDialect:` of `toolpack.yaml`. */
  schemaDialect?: SchemaDialect;
  /** `progressTimeoutCap:` of `toolpack.yaml`, in milliseconds, for the runner. */
  progressTimeoutCapMs?: number;
}

export interface ResolveSourcesOptions {
  /** Source flags in command-line order; empty means `toolpack.yaml` says what to serve. */
  sources: SourceSpec[];
  flags: SourceFlagValues;
  cwd: string;
  /** The project as the caller already loaded it, so `toolpack.yaml` is read once per command. */
  loaded?: LoadProjectResult;
}

/**
 * Flags win; without source flags, `toolpack.yaml` in the current folder says what to
 * serve: the tools of its installed packs (as `<alias>_<tool>`) and then its own sources,
 * so a project's tool wins a name collision with a pack's.
 */
export async function resolveSources(options: ResolveSourcesOptions): Promise<ResolvedSources> {
  const { sources, flags, cwd } = options;
  const common = {
    cwd,
    ...(flags.cache === false ? { cache: false as const } : {}),
    ...(flags.strict ? { strict: true } : {}),
    ...(flags.lenientHelp ? { lenientHelp: true } : {}),
    ...(flags.maxTools === undefined ? {} : { maxTools: flags.maxTools }),
  };
  if (sources.length > 0) {
    return {
      origin: 'flags',
      envAllowList: [],
      packs: [],
      diagnostics: [],
      options: {
        ...common,
        sources: flags.prefix ? sources.map((s) => ({ ...s, prefix: true })) : sources,
        ...(flags.include ? { include: flags.include } : {}),
        ...(flags.exclude ? { exclude: flags.exclude } : {}),
      },
    };
  }
  const loaded = options.loaded ?? (await loadProject(cwd));
  if (loaded.status === 'missing') {
    return {
      origin: 'none',
      envAllowList: [],
      packs: [],
      diagnostics: [],
      options: { ...common, sources: [] },
    };
  }
  if (loaded.status === 'invalid') throw createManifestError(loaded.diagnostics);
  const { project } = loaded;
  const { manifest, interpreters } = project;
  return {
    origin: 'project',
    ...(interpreters === undefined ? {} : { interpreters }),
    ...(project.policy === undefined ? {} : { policy: project.policy }),
    ...(manifest.schemaDialect === undefined ? {} : { schemaDialect: manifest.schemaDialect }),
    ...(manifest.progressTimeoutCap === undefined
      ? {}
      : { progressTimeoutCapMs: manifest.progressTimeoutCap }),
    envAllowList: project.env,
    packs: project.packs,
    diagnostics: [...project.diagnostics, ...project.packs.flatMap(diagnoseWithheldEnv)],
    options: {
      // A JS module pack's top-level code runs at discovery with the environment its tools get.
      envAllowList: project.env,
      // Scripts of a configured interpreter (`.rb`, `.bas`) are served from script roots too.
      ...(interpreters === undefined ? {} : { extraScriptExtensions: Object.keys(interpreters) }),
      // What those interpreters run (a launcher script in the project) runs unconfined: no
      // pack may write it, even one granted the project.
      ...(interpreters === undefined ? {} : { protect: findInterpreterFiles(interpreters, cwd) }),
      ...common,
      // --prefix is for the project's own sources; a pack's are always prefixed by its alias.
      sources: flags.prefix
        ? project.sources.map((s) => (s.pack === undefined ? { ...s, prefix: true } : s))
        : project.sources,
      include: [...(manifest.include ?? []), ...(flags.include ?? [])],
      exclude: [...(manifest.exclude ?? []), ...(flags.exclude ?? [])],
      ...(flags.maxTools === undefined && manifest.maxTools !== undefined
        ? { maxTools: manifest.maxTools }
        : {}),
      ...(flags.strict || manifest.strict ? { strict: true } : {}),
      ...(flags.lenientHelp || manifest.lenientHelp ? { lenientHelp: true } : {}),
    },
  };
}

/** The files in the project the project's interpreters name (`[node, ./tools/run.mjs]`), relative to it. */
function findInterpreterFiles(
  interpreters: Readonly<Record<string, readonly string[]>>,
  projectRoot: string,
): string[] {
  const files = new Set<string>();
  for (const argv of Object.values(interpreters)) {
    for (const part of argv) {
      if (!/[\\/]/.test(part)) continue;
      const relative = path.relative(projectRoot, path.resolve(projectRoot, part));
      if (relative !== '' && !relative.startsWith('..') && !path.isAbsolute(relative))
        files.add(relative);
    }
  }
  return [...files].sort();
}

/**
 * A manifest with errors stops the command, listing every one with its line: serving half a
 * project would hide the mistake.
 */
function createManifestError(errors: readonly Diagnostic[]): ToolpackError {
  const first = errors[0];
  return new ToolpackError(
    'E_MANIFEST',
    `${MANIFEST_FILE} has ${errors.length === 1 ? 'a problem' : `${errors.length} problems`}:\n${errors.map(({ hint: _hint, ...d }) => `  ${formatDiagnostic(d)}`).join('\n')}`,
    {
      hint:
        first?.hint ??
        `Fix the lines above; \`mcp check\` lists every problem of ${MANIFEST_FILE}.`,
    },
  );
}

/** Says why only the built-ins are listed, and the lines of a `toolpack.yaml` that serves this folder. */
export function describeNoSources(): string {
  return [
    `No sources: no source flags and no ${MANIFEST_FILE} here, so only the built-in tools are listed.`,
    `To serve the scripts in this folder, write ${MANIFEST_FILE} with these lines:`,
    '  sources:',
    '    - scripts: .',
    'Other sources: tools: DIR (tool folders), module: FILE, workflows: DIR; or pass --script-root DIR',
    'and the like. mcp new tool writes a tool and these lines for you.',
    '',
  ].join('\n');
}

/** A pack that declares one of Toolpack's own secrets (`TOOLPACK_TOKEN`) never gets it: say so. */
export function diagnoseWithheldEnv(pack: InstalledPack): Diagnostic[] {
  return findWithheldAllowListEntries(pack.env.map((e) => e.name)).map(({ entry, names }) =>
    createDiagnostic(
      'warning',
      'W_ENV_WITHHELD',
      `The pack ${pack.alias} (${pack.name}) declares env ${entry}, which Toolpack reads for itself (${names.join(', ')}) and never passes to a tool or pack.`,
      { path: pack.dir },
      'The pack needs a variable of its own (e.g. MYPACK_TOKEN); ask its author.',
    ),
  );
}

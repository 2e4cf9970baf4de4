import type { Diagnostic, SchemaDialect, SourceSpec } from '@toolpack/core';
import { discoverTools } from '@toolpack/discovery';
import type { LoadProjectResult } from '@toolpack/packs';
import { findUnrunnableTools, type UnrunnableTool } from './find-unrunnable-tools.ts';
import type { CommandContext } from './io.ts';
import { resolveSources, type ResolvedSources, type SourceFlagValues } from './source-flags.ts';
import { displayPath, toDiagnosticView, toToolView, type ToolView } from './tool-view.ts';

export interface SourcesReportOptions extends CommandContext {
  /** Source flags in command-line order; empty reads `toolpack.yaml`. */
  sources: SourceSpec[];
  flags: SourceFlagValues;
  /** Called as soon as it is known that there is neither a source flag nor a `toolpack.yaml`. */
  onNoSources?: () => void;
  /** The project, when the caller has already loaded it. */
  loaded?: LoadProjectResult;
  /** Show input schemas as tools/list sends them in this dialect; default: the exact ones. */
  schemaDialect?: SchemaDialect;
}

export interface SourcesReport {
  /** What a client gets, as `list --json` prints it: the same on every machine. */
  tools: ToolView[];
  diagnostics: Diagnostic[];
  /** Tools this machine cannot run (pwsh missing, no interpreter, a pack's env unset). */
  unrunnable: UnrunnableTool[];
  resolved: ResolvedSources;
}

/** Discovery as `list` and `check` present it: paths relative to the project. */
export async function collectSourcesReport(options: SourcesReportOptions): Promise<SourcesReport> {
  const { cwd, env } = options;
  const resolved = await resolveSources({
    sources: options.sources,
    flags: options.flags,
    cwd,
    ...(options.loaded === undefined ? {} : { loaded: options.loaded }),
  });
  if (resolved.origin === 'none') options.onNoSources?.();
  const result = await discoverTools(resolved.options);
  const unrunnable = findUnrunnableTools({
    tools: result.tools,
    env,
    cwd,
    packs: resolved.packs,
    ...(resolved.interpreters === undefined ? {} : { interpreters: resolved.interpreters }),
  }).map((entry) => ({ ...entry, path: displayPath(entry.path, cwd) }));
  return {
    resolved,
    unrunnable,
    tools: result.tools.map((tool) => toToolView(tool, cwd, options.schemaDialect)),
    diagnostics: [...resolved.diagnostics, ...result.diagnostics].map((d) =>
      toDiagnosticView(d, cwd),
    ),
  };
}

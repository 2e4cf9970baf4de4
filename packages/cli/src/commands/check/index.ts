import path from 'node:path';
import { createDiagnostic, type Diagnostic } from '@toolpack/core';
import { MANIFEST_FILE, loadProject } from '@toolpack/packs';
import { collectSourcesReport, type SourcesReportOptions } from '../../collect-sources-report.ts';
import { findUncoveredToolFiles } from '../../find-uncovered-tool-files.ts';
import type { UnrunnableTool } from '../../find-unrunnable-tools.ts';
import { toDiagnosticView, type ToolView } from '../../tool-view.ts';
import { findPlaceholderDescriptions } from './find-placeholder-descriptions.ts';

export type CheckProjectOptions = Omit<SourcesReportOptions, 'onNoSources'>;

/** What `mcp check --json` prints; the check fails when any diagnostic is an error. */
export interface CheckReport {
  tools: ToolView[];
  diagnostics: Diagnostic[];
  /** Valid tools this machine cannot run: reported, never an error (see `mcp check --help`). */
  cannotRunHere: UnrunnableTool[];
}

/**
 * A module that could not be imported: its tools are unknown, so an empty result is its
 * fault, not the paths' or the patterns'.
 */
const IMPORT_FAILURES: ReadonlySet<string> = new Set(['E_MODULE_LOAD', 'E_MODULE_IMPORT']);

/**
 * What `mcp check` reports: discovery's problems plus the ones only a check looks for, which
 * would otherwise pass with nothing served (no project, a manifest typo, no tools at all).
 */
export async function checkProject(options: CheckProjectOptions): Promise<CheckReport> {
  const { cwd } = options;
  // Every problem of toolpack.yaml with its line, rather than the first one thrown.
  const loaded = options.sources.length === 0 ? await loadProject(cwd) : undefined;
  const manifestProblems = loaded?.status === 'invalid' ? loaded.diagnostics : [];
  if (manifestProblems.length > 0) {
    return {
      tools: [],
      diagnostics: manifestProblems.map((d) => toDiagnosticView(d, cwd)),
      cannotRunHere: [],
    };
  }
  const { tools, diagnostics, resolved, unrunnable } = await collectSourcesReport({
    ...options,
    ...(loaded === undefined ? {} : { loaded }),
  });
  const own = tools.filter((tool) => tool.source.kind !== 'builtin');
  const extra: Diagnostic[] = [...findPlaceholderDescriptions(own)];
  if (resolved.origin !== 'flags') {
    extra.push(
      ...(await findUncoveredToolFiles({
        cwd,
        toolPaths: own.map((tool) => tool.source.path),
      })),
    );
  }
  if (resolved.origin === 'none') {
    extra.unshift(
      createDiagnostic(
        'error',
        'E_NO_SOURCES',
        `Nothing to check: no ${MANIFEST_FILE} here and no source flags.`,
        { path: cwd },
        `Create ${MANIFEST_FILE} with your sources (e.g. \`sources: [{ scripts: scripts }]\`), pass a source flag (--script-root DIR, --tools-dir DIR, --module PATH, --workflows DIR), or run mcp check in the project folder (-C DIR).`,
      ),
    );
  } else if (own.length === 0) {
    const emptyProject =
      resolved.origin === 'project' &&
      resolved.options.sources.length === 0 &&
      resolved.packs.length === 0;
    const importFailure = diagnostics.find((d) => IMPORT_FAILURES.has(d.code));
    extra.unshift(
      createDiagnostic(
        'error',
        'E_NO_TOOLS',
        emptyProject
          ? `${MANIFEST_FILE} has no sources and no packs: it serves no tool.`
          : `The sources give no tool: a client would get only the built-in tools.`,
        { path: resolved.origin === 'project' ? path.join(cwd, MANIFEST_FILE) : cwd },
        emptyProject
          ? `Add sources: to ${MANIFEST_FILE} (e.g. \`sources: [{ scripts: scripts }]\`) or a pack (mcp pack add NAME); mcp new tool NAME creates a first tool.`
          : importFailure === undefined
            ? 'Check the source paths and the include:/exclude: patterns; mcp list shows what each source gives.'
            : `${importFailure.path} could not be imported (${importFailure.code} above), so it gave no tool: fix that error first.`,
      ),
    );
  }
  return {
    tools,
    diagnostics: [...diagnostics, ...extra.map((d) => toDiagnosticView(d, cwd))],
    cannotRunHere: unrunnable,
  };
}

import path from 'node:path';
import { isToolpackError, type Diagnostic, type DiscoveredTool } from '@toolpack/core';
import type { DiscoveryResult } from '@toolpack/discovery';
import type { ToolRunner } from '@toolpack/runners';
import type { DiagnosticLog } from '../diagnostic-log.ts';
import { findRefusal } from '../find-refusal.ts';
import type { ServerMetrics } from '../metrics/server-metrics.ts';
import type { ServedTools } from '../served-tools.ts';
import { findModuleFiles } from '../watch/watch-sources.ts';
import { keepLastGoodTools } from './keep-last-good.ts';

export interface ReloadReport {
  /** Whether the tool list clients see changed (and `list_changed` was sent). */
  changed: boolean;
  /** Tools whose previous definition was kept because the new one was refused. */
  kept: string[];
  diagnostics: Diagnostic[];
  /**
   * Set when the whole reload was refused: its code (`E_MAX_TOOLS`, `E_PACK_COLLISION`,
   * `E_SOURCE_MISSING`, ...; none for an error without one) and message.
   */
  refused?: { code?: string; message: string };
}

export interface ReloadToolsOptions {
  /** Discovers the tools again (with those the server withholds already taken out). */
  discover(): Promise<DiscoveryResult>;
  served(): ServedTools;
  /** Makes these the served tools (and watches any new module's folder). */
  serve(tools: DiscoveredTool[], diagnostics: Diagnostic[]): ServedTools;
  runner: ToolRunner;
  metrics: ServerMetrics;
  diagnosticLog: DiagnosticLog;
  log(line: string): void;
}

function isWithin(file: string, folder: string): boolean {
  const relative = path.relative(folder, file);
  return relative === '' || (!relative.startsWith('..') && !path.isAbsolute(relative));
}

/**
 * Discovers again and serves the result, keeping each refused tool's last good definition;
 * a refusing composition error (or a discovery that throws) keeps the whole previous list.
 */
export async function reloadTools(
  options: ReloadToolsOptions,
  changed: readonly string[],
): Promise<ReloadReport> {
  const { metrics, diagnosticLog, log } = options;
  const previous = options.served();
  const refuse = (shown: string) => {
    log(`reload refused, still serving the previous ${previous.allowed.length} tools: ${shown}`);
    metrics.recordReload('kept');
  };
  let result: DiscoveryResult;
  try {
    result = await options.discover();
  } catch (error) {
    const refused = isToolpackError(error)
      ? { code: error.code, message: `${error.message}${error.hint ? ` (${error.hint})` : ''}` }
      : { message: String(error) };
    refuse(refused.message);
    return { changed: false, kept: [], diagnostics: [], refused };
  }
  const refusal = findRefusal(result.diagnostics);
  if (refusal !== undefined) {
    const refused = { code: refusal.code, message: refusal.message };
    refuse(diagnosticLog.format(refusal));
    return { changed: false, kept: [], diagnostics: result.diagnostics, refused };
  }
  const merged = keepLastGoodTools(previous.all, result);
  diagnosticLog.report(result.diagnostics);
  for (const tool of merged.kept) {
    log(
      `${diagnosticLog.display(tool.source.path)}: keeping the last good definition of ${tool.name} until the errors above are fixed`,
    );
  }
  // A module whose new version fails to load keeps its old worker (and so its last good
  // code); the others get a fresh one on their next call.
  const broken = new Set(
    result.diagnostics.filter((d) => d.severity === 'error').map((d) => d.path),
  );
  const toReload = findModuleFiles(merged.tools).filter(
    (file) =>
      !broken.has(file) && changed.some((changedPath) => isWithin(changedPath, path.dirname(file))),
  );
  if (toReload.length > 0) options.runner.reloadModules(toReload);

  const next = options.serve(merged.tools, result.diagnostics);
  metrics.recordReload('ok');
  return {
    changed: next.listedJson !== previous.listedJson,
    kept: merged.kept.map((tool) => tool.name),
    diagnostics: result.diagnostics,
  };
}

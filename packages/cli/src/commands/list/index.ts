import type { Diagnostic } from '@toolpack/core';
import { collectSourcesReport, type SourcesReportOptions } from '../../collect-sources-report.ts';
import type { UnrunnableTool } from '../../find-unrunnable-tools.ts';
import type { ToolView } from '../../tool-view.ts';

export type ListToolsOptions = SourcesReportOptions;

export interface ListToolsReport {
  tools: ToolView[];
  diagnostics: Diagnostic[];
  /** Apart from the tools in `--json`, which stay the same on every machine: this is about the machine. */
  cannotRunHere: UnrunnableTool[];
}

/** The tools a client would get from the sources, with why any were refused or renamed. */
export async function listTools(options: ListToolsOptions): Promise<ListToolsReport> {
  const { tools, diagnostics, unrunnable } = await collectSourcesReport(options);
  return { tools, diagnostics, cannotRunHere: unrunnable };
}

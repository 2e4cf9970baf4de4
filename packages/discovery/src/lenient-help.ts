import type { Diagnostic, DiscoveredTool } from '@toolpack/core';
import type { SourceResult } from './types.ts';

/**
 * A tool refused only because some of its parameters have no description: the reader builds
 * it anyway and keeps its `E_PARAMETER_NO_DESCRIPTION` errors beside it, so the per-file cache
 * holds one answer whichever way the project chooses (applyHelpLeniency decides after it).
 */
export type ToolWithHelpGaps = DiscoveredTool & { parameterHelpGaps?: Diagnostic[] };

/** Marks a tool built despite parameters without descriptions (`gaps`: their errors). */
export function markHelpGaps(tool: DiscoveredTool, gaps: readonly Diagnostic[]): DiscoveredTool {
  return Object.assign(tool, { parameterHelpGaps: [...gaps] });
}

function identify(diagnostic: Diagnostic): string {
  return `${diagnostic.path}\u0000${diagnostic.line ?? ''}\u0000${diagnostic.message}`;
}

/**
 * Without lenient help (the default, as the specification says) a tool with undescribed
 * parameters is refused: it leaves the list, its `E_PARAMETER_NO_DESCRIPTION` errors stay.
 * With it (`lenientHelp: true`, `--lenient-help`, for MCPServerPS users) the tool is served
 * and each error becomes a `W_PARAMETER_NO_DESCRIPTION` warning.
 */
export function applyHelpLeniency(result: SourceResult, lenient: boolean): SourceResult {
  const marked = result.tools.filter(
    (tool: ToolWithHelpGaps) => tool.parameterHelpGaps !== undefined,
  ) as ToolWithHelpGaps[];
  if (marked.length === 0) return result;
  const tools: DiscoveredTool[] = [];
  for (const tool of result.tools as ToolWithHelpGaps[]) {
    if (tool.parameterHelpGaps === undefined) tools.push(tool);
    else if (lenient) {
      const { parameterHelpGaps: _gaps, ...served } = tool;
      tools.push(served);
    }
  }
  if (!lenient) return { ...result, tools };
  const forgiven = new Set(marked.flatMap((tool) => tool.parameterHelpGaps ?? []).map(identify));
  const diagnostics = result.diagnostics.map((diagnostic) =>
    diagnostic.code === 'E_PARAMETER_NO_DESCRIPTION' && forgiven.has(identify(diagnostic))
      ? {
          ...diagnostic,
          severity: 'warning' as const,
          code: 'W_PARAMETER_NO_DESCRIPTION' as const,
          message: `${diagnostic.message} The tool is served anyway (lenient help).`,
        }
      : diagnostic,
  );
  return { ...result, tools, diagnostics };
}

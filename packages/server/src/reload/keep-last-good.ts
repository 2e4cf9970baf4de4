import path from 'node:path';
import type { Diagnostic, DiscoveredTool } from '@toolpack/core';

export interface KeepLastGoodResult {
  tools: DiscoveredTool[];
  /** Previous tools carried over because the new reading of their file was refused. */
  kept: DiscoveredTool[];
}

/** Whether a diagnostic is about the file (or, for a tool folder, the folder) a tool came from. */
function isAbout(diagnostic: Diagnostic, tool: DiscoveredTool): boolean {
  if (diagnostic.path === tool.source.path) return true;
  if (tool.source.kind !== 'tool-folder') return false;
  const folder = path.dirname(tool.source.path);
  return diagnostic.path === folder || path.dirname(diagnostic.path) === folder;
}

/**
 * A save in the middle of an edit must not make a tool vanish from a running client: when
 * the new discovery refuses a file (an error diagnostic about it) and no longer yields a
 * tool of the same name, the previous definition of that tool stays. A deleted file has no
 * diagnostic, so its tools do go away.
 */
export function keepLastGoodTools(
  previous: readonly DiscoveredTool[],
  next: { tools: readonly DiscoveredTool[]; diagnostics: readonly Diagnostic[] },
): KeepLastGoodResult {
  const errors = next.diagnostics.filter((d) => d.severity === 'error');
  if (errors.length === 0) return { tools: [...next.tools], kept: [] };
  const names = new Set(next.tools.map((tool) => tool.name));
  const kept = previous.filter(
    (tool) =>
      tool.source.kind !== 'builtin' &&
      !names.has(tool.name) &&
      errors.some((diagnostic) => isAbout(diagnostic, tool)),
  );
  // Put each kept tool back where it was (after the tool that preceded it), so a broken
  // save does not reorder the list clients see.
  const tools = [...next.tools];
  for (const tool of kept) {
    const at = previous.indexOf(tool);
    let insertAt = 0;
    for (let i = at - 1; i >= 0; i--) {
      const index = tools.findIndex((t) => t.name === previous[i]?.name);
      if (index !== -1) {
        insertAt = index + 1;
        break;
      }
    }
    tools.splice(insertAt, 0, tool);
  }
  return { tools, kept };
}

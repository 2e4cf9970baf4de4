import { createDiagnostic, type Diagnostic } from '@toolpack/core';
import type { ToolView } from '../../tool-view.ts';

/**
 * The sentence `mcp new` ends a tool's description with until its author writes one
 * (new/tool-description.ts): check.e2e.test.ts creates a tool with `mcp new` and sees it caught.
 */
const PLACEHOLDER = /;\s*say here in one sentence what \S+ does\.?\s*$/i;

/**
 * E_PLACEHOLDER_DESCRIPTION for each tool still described by the scaffold's placeholder: it
 * lists and runs, but a model picks tools by their descriptions, and this one says nothing.
 */
export function findPlaceholderDescriptions(tools: readonly ToolView[]): Diagnostic[] {
  return tools
    .filter((tool) => PLACEHOLDER.test(tool.description ?? ''))
    .map((tool) =>
      createDiagnostic(
        'error',
        'E_PLACEHOLDER_DESCRIPTION',
        `The tool ${tool.name} still has the description mcp new wrote as a placeholder (${JSON.stringify(tool.description)}).`,
        {
          path: tool.source.path,
          ...(tool.source.line === undefined ? {} : { line: tool.source.line }),
        },
        'Replace it with one sentence saying what the tool does and when to use it: the model chooses tools by their descriptions.',
      ),
    );
}

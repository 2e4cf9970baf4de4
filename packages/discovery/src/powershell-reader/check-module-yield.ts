import { basename } from 'node:path';
import type { Diagnostic } from '@toolpack/core';
import { createFileDiagnostic } from './file-diagnostic.ts';
import { hasWildcard } from './wildcard.ts';

export interface CheckModuleYieldInput {
  /** The `.psd1`/`.psm1` the user named. */
  modulePath: string;
  /** The functions the module exports (PowerShell's export rules applied). */
  exported: readonly string[];
  /** The manifest's FunctionsToExport, when it has one. */
  listed?: readonly string[] | undefined;
  /** How many of the exports became tools. */
  toolCount: number;
}

/**
 * A module that promises functions (its exports, or names its manifest lists) and yields no tool
 * is an error, never a silent zero: `mcp list` then fails and says where to look. Undefined when
 * the module yields a tool or promises none (`FunctionsToExport = @()`).
 */
export function checkModuleYield(input: CheckModuleYieldInput): Diagnostic | undefined {
  if (input.toolCount > 0) return undefined;
  const name = basename(input.modulePath);
  if (input.exported.length > 0) {
    const shown = input.exported.slice(0, 5).join(', ');
    const more = input.exported.length > 5 ? ` and ${input.exported.length - 5} more` : '';
    return createFileDiagnostic(
      'error',
      'E_MODULE_NO_TOOLS',
      `The module ${name} exports ${input.exported.length} function(s) (${shown}${more}), but none became a tool; the errors reported for each say why.`,
      input.modulePath,
      undefined,
      'Fix what those errors name (most often comment-based help: a .SYNOPSIS, and a .PARAMETER for each parameter); each function that reads cleanly is served on its own.',
    );
  }
  const promised = (input.listed ?? []).filter((entry) => !hasWildcard(entry));
  if (promised.length === 0) return undefined;
  return createFileDiagnostic(
    'error',
    'E_MODULE_NO_TOOLS',
    `The manifest of ${name} lists ${promised.length} function(s) in FunctionsToExport (${promised.slice(0, 5).join(', ')}${promised.length > 5 ? ', ...' : ''}), but no file the module loads defines any of them, so it provides no tools.`,
    input.modulePath,
    undefined,
    'Check that the root module loads the files that define them (the warnings above name what could not be followed); with pwsh installed, Toolpack asks PowerShell itself when the files do not tell.',
  );
}

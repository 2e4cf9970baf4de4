import { basename } from 'node:path';
import type { SourceResult } from '../types.ts';
import { findScriptHelp } from './comment-help.ts';
import { createParseDiagnostics, describeCommand } from './describe-command.ts';
import { readPowerShell } from './reader.ts';

export interface PowerShellScriptInput {
  /** The script's path, as it should appear in the tool's source and in diagnostics. */
  path: string;
  content: string;
}

/** The same as `describePowerShellScript`, synchronously: what the async one does after reading. */
export function describePowerShellScriptContent(input: PowerShellScriptInput): SourceResult {
  const document = readPowerShell(input.content);
  if (document.errors.length > 0) {
    return {
      tools: [],
      diagnostics: createParseDiagnostics(input.path, document.errors, 'the script'),
    };
  }
  const help = findScriptHelp(document);
  const line = document.paramBlock?.line ?? help.help?.lines.start;
  const described = describeCommand({
    document,
    path: input.path,
    sourceKind: 'script',
    originalName: basename(input.path).replace(/\.ps1$/i, ''),
    what: 'the script',
    ...(line === undefined ? {} : { line }),
    help,
    parameters: document.paramBlock?.parameters ?? [],
    blockAttributes: document.paramBlock?.attributes ?? [],
    invocation: { runner: 'pwsh', mode: 'script', scriptPath: input.path },
    helpHint:
      'Start the script with a help block: <# .SYNOPSIS (next line) One sentence about what the script does. #>',
  });
  return {
    tools: described.tool === undefined ? [] : [described.tool],
    diagnostics: described.diagnostics,
  };
}

/**
 * One `.ps1` of a script root: its tool (named after the file, described by its comment-based
 * help, with an input schema from its param block), or only the diagnostics that say why not.
 */
export async function describePowerShellScript(
  input: PowerShellScriptInput,
): Promise<SourceResult> {
  return describePowerShellScriptContent(input);
}

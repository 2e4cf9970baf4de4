import { basename } from 'node:path';
import type { SourceResult } from '../types.ts';
import { findScriptHelp } from './comment-help.ts';
import type { HelpSearch } from './comment-help.ts';
import { createParseDiagnostics, describeCommand } from './describe-command.ts';
import { ExternalHelpFinder } from './find-external-help.ts';
import { readPowerShell } from './reader.ts';
import type { PowerShellDocument } from './reader.ts';

export interface PowerShellScriptInput {
  /** The script's path, as it should appear in the tool's source and in diagnostics. */
  path: string;
  content: string;
  /** The UI culture for `.EXTERNALHELP`'s culture folders; by default pwsh's (tests set it). */
  uiCulture?: string;
}

/**
 * The same as `describePowerShellScript`, synchronously, for a script whose help is its own
 * comments: a `.EXTERNALHELP` file is not read.
 */
export function describePowerShellScriptContent(input: PowerShellScriptInput): SourceResult {
  const document = readPowerShell(input.content);
  if (document.errors.length > 0) return describeBrokenScript(input, document);
  return describeScriptDocument(input, document, findScriptHelp(document));
}

function describeBrokenScript(
  input: PowerShellScriptInput,
  document: PowerShellDocument,
): SourceResult {
  return {
    tools: [],
    diagnostics: createParseDiagnostics(input.path, document.errors, 'the script'),
  };
}

function describeScriptDocument(
  input: PowerShellScriptInput,
  document: PowerShellDocument,
  help: HelpSearch,
): SourceResult {
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
 * help or the MAML file its `.EXTERNALHELP` names, as Get-Help gives it, with an input schema
 * from its param block), or only the diagnostics that say why not.
 */
export async function describePowerShellScript(
  input: PowerShellScriptInput,
): Promise<SourceResult> {
  const document = readPowerShell(input.content);
  if (document.errors.length > 0) return describeBrokenScript(input, document);
  const search = findScriptHelp(document);
  if (search.help?.externalHelp === undefined)
    return describeScriptDocument(input, document, search);
  const finder = new ExternalHelpFinder({
    modulePath: input.path,
    ...(input.uiCulture === undefined ? {} : { uiCulture: input.uiCulture }),
  });
  const help = await finder.findScriptHelp(input.path, search);
  const result = describeScriptDocument(input, document, help);
  return { tools: result.tools, diagnostics: [...finder.diagnostics, ...result.diagnostics] };
}

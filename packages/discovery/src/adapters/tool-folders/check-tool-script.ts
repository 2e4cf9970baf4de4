import path from 'node:path';
import { createDiagnostic, toInvokeFunctionName } from '@toolpack/core';
import type { Diagnostic, ToolInvocation } from '@toolpack/core';
import { findPowerShellFunctions } from '../../powershell-reader/index.ts';

/** The `script.<ext>` files a tool folder may hold (exactly one of them). */
export const TOOL_FOLDER_SCRIPT_EXTENSIONS = ['ps1', 'sh', 'py', 'js', 'mjs', 'ts'] as const;

/** A tool folder and its scripts, as discovery found them. */
export interface ToolFolderScripts {
  /** The tool folder (`.../tools/send-notification`). */
  folder: string;
  /** The folder's one script, when it has exactly one. */
  scriptPath?: string;
  /** That script's text (needed for `.ps1`, to check the function it defines). */
  script?: string;
  /** The names of every `script.<ext>` file in the folder. */
  scripts: readonly string[];
}

/** Checks the folder's script and decides how to run it; undefined when it cannot be run. */
export async function checkToolScript(
  input: ToolFolderScripts,
  rawName: string | undefined,
  name: string | undefined,
  diagnostics: Diagnostic[],
): Promise<ToolInvocation | undefined> {
  const { folder, scripts } = input;
  const folderName = path.basename(folder);
  if (scripts.length === 0) {
    diagnostics.push(
      createDiagnostic(
        'error',
        'E_NO_SCRIPT',
        `The tool folder ${folderName} has no script.`,
        { path: folder },
        `Add one script named script.${TOOL_FOLDER_SCRIPT_EXTENSIONS.join(', script.')}.`,
      ),
    );
    return undefined;
  }
  if (scripts.length > 1) {
    diagnostics.push(
      createDiagnostic(
        'error',
        'E_SEVERAL_SCRIPTS',
        `The tool folder ${folderName} has ${scripts.length} scripts (${[...scripts].sort().join(', ')}); a tool runs exactly one.`,
        { path: folder },
        'Keep one script.<ext> and move or rename the others.',
      ),
    );
    return undefined;
  }
  const scriptName = scripts[0] ?? '';
  const scriptPath = input.scriptPath ?? path.join(folder, scriptName);
  const extension = path.extname(scriptName).toLowerCase();
  if (extension !== '.ps1') return { runner: 'process', scriptPath, extension };
  if (name === undefined) return undefined;

  const script = input.script ?? '';
  let functions: Array<{ name: string; line: number }>;
  try {
    functions = await findPowerShellFunctions(script);
  } catch (error) {
    diagnostics.push(
      createDiagnostic(
        'error',
        'E_POWERSHELL_PARSE',
        `${scriptName} could not be parsed: ${(error as Error).message}`,
        { path: scriptPath },
      ),
    );
    return undefined;
  }
  const expected = toInvokeFunctionName(name);
  // PowerShell matches function names ignoring case; dotbot builds the name by capitalising
  // each `_` part, which for odd names (`get-2fa`) differs from ours, so both are accepted.
  const accepted = new Set(
    [
      expected,
      ...[name, rawName].flatMap((n) =>
        n === undefined ? [] : [toInvokeFunctionName(n), toDotbotFunctionName(n)],
      ),
    ].map((n) => n.toLowerCase()),
  );
  const found = functions.find((fn) => accepted.has(fn.name.toLowerCase()));
  if (found !== undefined)
    return { runner: 'pwsh', mode: 'tool-folder', scriptPath, functionName: found.name };

  const invokeFunctions = functions.filter((fn) => /^invoke-/i.test(fn.name));
  const culprit =
    invokeFunctions.length === 1
      ? invokeFunctions[0]
      : functions.length === 1
        ? functions[0]
        : undefined;
  const list = functions.map((fn) => `${fn.name} (line ${fn.line})`).join(', ');
  diagnostics.push(
    createDiagnostic(
      'error',
      'E_FUNCTION_NAME',
      `${scriptName} does not define ${expected}, the function called for the tool ${name}; ${functions.length === 0 ? 'it defines no functions' : `it defines ${list}`}.`,
      culprit === undefined ? { path: scriptPath } : { path: scriptPath, line: culprit.line },
      culprit !== undefined && /^invoke-/i.test(culprit.name)
        ? `Rename the function ${culprit.name} to ${expected}.`
        : `Define function ${expected} { param([hashtable]$Arguments) ... } in ${scriptName}; rename the function to ${expected} if it has another name.`,
    ),
  );
  return undefined;
}

/** dotbot's own rule: `get_current_datetime` -> `Invoke-GetCurrentDatetime`. */
function toDotbotFunctionName(name: string): string {
  return `Invoke-${name
    .split('_')
    .map((part) => part.charAt(0).toUpperCase() + part.slice(1))
    .join('')}`;
}

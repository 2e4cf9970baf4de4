import type { Diagnostic } from '@toolpack/core';
import { hasWildcard, matchesAnyWildcard } from './wildcard.ts';
import { createFileDiagnostic } from './file-diagnostic.ts';
import type { PowerShellManifest } from './parse-module-manifest.ts';
import type { LoadedFunction, LoadedModuleFile } from './module-loader.ts';

/** Applies PowerShell's export rules: each file's `Export-ModuleMember` (or all), then the manifest filter. */
export function selectExports(
  modulePath: string,
  files: readonly LoadedModuleFile[],
  manifest: PowerShellManifest | undefined,
  diagnostics: Diagnostic[],
): LoadedFunction[] {
  const defined = new Map<string, LoadedFunction>();
  const exported = new Map<string, LoadedFunction>();
  const dynamic = files.flatMap((file) => file.dynamicExports);
  for (const file of files) {
    for (const loaded of file.functions) {
      const key = loaded.fn.name.toLowerCase();
      // A later definition replaces an earlier one, as it does when PowerShell runs the files.
      defined.delete(key);
      defined.set(key, loaded);
      if (
        file.exportPatterns === undefined ||
        matchesAnyWildcard(loaded.fn.name, file.exportPatterns)
      ) {
        exported.delete(key);
        exported.set(key, loaded);
      }
    }
  }
  const listed = manifest?.functionsToExport;
  let result: LoadedFunction[];
  if (listed !== undefined && !(dynamic.length > 0 && listed.includes('*'))) {
    // With run-time exports the manifest is the only reliable list, so it picks from every definition.
    const pool = dynamic.length > 0 ? defined : exported;
    result = [...pool.values()].filter((loaded) => matchesAnyWildcard(loaded.fn.name, listed));
    for (const name of listed) {
      if (hasWildcard(name) || defined.has(name.toLowerCase())) continue;
      diagnostics.push(
        createFileDiagnostic(
          'warning',
          'W_FUNCTION_NOT_FOUND',
          `FunctionsToExport lists ${name}, but no file of the module defines it.`,
          modulePath,
          manifest?.lines.functionstoexport,
          'Fix the name, or define the function in the root module or a file it dot-sources.',
        ),
      );
    }
  } else {
    result = [...exported.values()];
    for (const entry of dynamic) {
      diagnostics.push(
        createFileDiagnostic(
          'error',
          'E_DYNAMIC_EXPORTS',
          `Export-ModuleMember exports ${entry.text}, which is only known when the module runs; Toolpack reads modules without running them.`,
          entry.path,
          entry.line,
          "List the exported functions by name in the manifest's FunctionsToExport (or pass literal names to Export-ModuleMember).",
        ),
      );
    }
  }
  return result;
}

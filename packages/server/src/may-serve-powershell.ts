import { readdirSync } from 'node:fs';
import path from 'node:path';
import type { SourceSpec } from '@toolpack/core';

const JS_MODULE = /\.(mjs|cjs|js|mts|cts|ts)$/iu;

/**
 * Whether these sources may give the shared (unconfined) PowerShell host tools to run, judged
 * before discovery from the sources alone, so the host can start while discovery reads the
 * files: tool folders are PowerShell, a module is unless it is a JS/TS file, and a scripts
 * folder is when it holds a .ps1 at its top. A sandboxed source runs in a host of its own,
 * started once its tools are known.
 */
export function mayServePowerShell(sources: readonly SourceSpec[], cwd: string): boolean {
  return sources.some((spec) => {
    if (spec.sandbox === true || spec.pack !== undefined) return false;
    if ('tools' in spec) return true;
    if ('module' in spec) return !JS_MODULE.test(spec.module);
    if ('scripts' in spec) return holdsPowerShellScript(path.resolve(cwd, spec.scripts));
    return false;
  });
}

function holdsPowerShellScript(folder: string): boolean {
  try {
    return readdirSync(folder).some((name) => name.toLowerCase().endsWith('.ps1'));
  } catch {
    return false;
  }
}

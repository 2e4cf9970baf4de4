import { readdirSync, statSync } from 'node:fs';
import path from 'node:path';

/** Above this many files a module's reading is not cached: stamping them would cost as much. */
const MAX_MODULE_FILES = 20_000;

/** PowerShell's files, and the external help (MAML) files Get-Help reads for them. */
const POWERSHELL_FILE = /\.(ps1|psm1|psd1|maml)$|-help\.xml$/i;

/**
 * Every PowerShell file (`.ps1`, `.psm1`, `.psd1`) and external help file (`*-help.xml`,
 * `.maml`) under a module's folder, at any depth, in one sorted order: what a module's cache
 * entry is keyed by, since whatever its code loads at run time (a `Get-ChildItem` over a
 * subfolder) and the help Get-Help reads are among them. Dot-folders and `node_modules`
 * are left out, as the module reader leaves them out. Undefined when the folder holds more
 * than the cache should stamp.
 */
export function listModuleFiles(folder: string): string[] | undefined {
  const found: string[] = [];
  // Synchronous, as the cache's stamps are (file-parse-cache.ts says why).
  const walk = (directory: string): boolean => {
    let entries;
    try {
      entries = readdirSync(directory, { withFileTypes: true });
    } catch {
      return true;
    }
    for (const entry of entries) {
      if (entry.name.startsWith('.')) continue;
      const full = path.join(directory, entry.name);
      if (entry.isDirectory()) {
        if (entry.name !== 'node_modules' && !walk(full)) return false;
      } else if (POWERSHELL_FILE.test(entry.name) && (entry.isFile() || isLinkToFile(full))) {
        found.push(full);
        if (found.length > MAX_MODULE_FILES) return false;
      }
    }
    return true;
  };
  if (!walk(folder)) return undefined;
  return found.sort();
}

function isLinkToFile(file: string): boolean {
  try {
    return statSync(file).isFile();
  } catch {
    return false;
  }
}

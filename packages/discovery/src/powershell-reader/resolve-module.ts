import { readdir, stat } from 'node:fs/promises';
import { basename, delimiter, join, resolve } from 'node:path';
import { ToolpackError } from '@toolpack/core';

export interface ResolvePowerShellModuleOptions {
  /** Folders separated by `path.delimiter`; `process.env.PSModulePath` when absent. */
  psModulePath?: string;
  /** What relative paths (and relative PSModulePath entries) are resolved against. */
  cwd: string;
}

const VERSION_FOLDER = /^\d+(\.\d+){1,3}$/;

async function isFile(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isFile();
  } catch {
    return false;
  }
}

async function isDirectory(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isDirectory();
  } catch {
    return false;
  }
}

async function listEntries(folder: string): Promise<string[]> {
  try {
    return await readdir(folder);
  } catch {
    return [];
  }
}

function compareVersions(a: string, b: string): number {
  const left = a.split('.').map(Number);
  const right = b.split('.').map(Number);
  for (let i = 0; i < Math.max(left.length, right.length); i++) {
    const difference = (left[i] ?? 0) - (right[i] ?? 0);
    if (difference !== 0) return difference;
  }
  return 0;
}

/** `<folder>/<Name>.psd1` or `.psm1`, matching the name without regard to case as PowerShell does. */
async function findModuleFileIn(folder: string, name: string): Promise<string | undefined> {
  const entries = await listEntries(folder);
  for (const extension of ['.psd1', '.psm1']) {
    const wanted = `${name}${extension}`.toLowerCase();
    const found = entries.find((entry) => entry.toLowerCase() === wanted);
    if (found !== undefined && (await isFile(join(folder, found)))) return join(folder, found);
  }
  return undefined;
}

/** The module in a module folder: the highest `<Version>/<Name>.psd1`, else `<Name>.psd1`/`.psm1`. */
async function findInModuleFolder(folder: string, name: string): Promise<string | undefined> {
  const versions = (await listEntries(folder))
    .filter((entry) => VERSION_FOLDER.test(entry))
    .sort(compareVersions)
    .reverse();
  for (const version of versions) {
    const found = await findModuleFileIn(join(folder, version), name);
    if (found !== undefined) return found;
  }
  return findModuleFileIn(folder, name);
}

/**
 * Turns a module name into the `.psd1`/`.psm1` PowerShell would import, searching
 * `PSModulePath` in order (highest version folder first within a module), or checks a path.
 * Undefined when nothing is found.
 */
export async function resolvePowerShellModule(
  nameOrPath: string,
  options: ResolvePowerShellModuleOptions,
): Promise<string | undefined> {
  if (nameOrPath.trim() === '') {
    throw new ToolpackError('E_MODULE_NAME', 'The PowerShell module name is empty.', {
      hint: 'Give a module name (MyModule) or the path of its .psd1 or .psm1 file.',
    });
  }
  const looksLikePath =
    /[\\/]/.test(nameOrPath) || /^\.\.?$/.test(nameOrPath) || /\.(psd1|psm1)$/i.test(nameOrPath);
  if (looksLikePath) {
    const target = resolve(options.cwd, nameOrPath);
    if (/\.(psd1|psm1)$/i.test(target)) return (await isFile(target)) ? target : undefined;
    if (await isDirectory(target)) return findInModuleFolder(target, basename(target));
    return undefined;
  }
  const searchPath = options.psModulePath ?? process.env.PSModulePath ?? '';
  const wanted = nameOrPath.toLowerCase();
  for (const entry of searchPath.split(delimiter)) {
    if (entry.trim() === '') continue;
    const root = resolve(options.cwd, entry);
    for (const folder of await listEntries(root)) {
      if (folder.toLowerCase() !== wanted) continue;
      const found = await findInModuleFolder(join(root, folder), folder);
      if (found !== undefined) return found;
    }
  }
  return undefined;
}

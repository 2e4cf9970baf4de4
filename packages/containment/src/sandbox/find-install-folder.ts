import { realpathSync } from 'node:fs';
import { basename, dirname } from 'node:path';

/**
 * The folder an executable was installed into, by its real path (symlinks followed):
 * `<prefix>/bin/node` -> `<prefix>`; a version manager's shim (pyenv, rbenv, asdf:
 * `<root>/shims/python3`, a script that runs `<root>/versions/...`) -> `<root>`; anything
 * else -> its folder. A confined tool gets it read-only, so the interpreter finds its
 * libraries and modules.
 */
export function findInstallFolder(executablePath: string): string {
  let real = executablePath;
  try {
    real = realpathSync(executablePath);
  } catch {
    // Not there: the spawn itself will say so.
  }
  const folder = dirname(real);
  return ['bin', 'shims'].includes(basename(folder)) ? dirname(folder) : folder;
}

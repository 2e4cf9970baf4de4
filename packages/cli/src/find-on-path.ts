import { accessSync, constants, statSync } from 'node:fs';
import path from 'node:path';

/**
 * The full path of `name` on PATH (PATHEXT on Windows), or undefined. @toolpack/runners has
 * the same lookup but does not export it.
 */
export function findOnPath(name: string, env: NodeJS.ProcessEnv = process.env): string | undefined {
  const extensions =
    process.platform === 'win32'
      ? ['', ...(env.PATHEXT ?? '.COM;.EXE;.BAT;.CMD').split(';').filter(Boolean)]
      : [''];
  for (const directory of (env.PATH ?? env.Path ?? '').split(path.delimiter)) {
    if (directory === '') continue;
    for (const extension of extensions) {
      const candidate = path.join(directory, name + extension);
      try {
        if (!statSync(candidate).isFile()) continue;
        accessSync(candidate, process.platform === 'win32' ? constants.F_OK : constants.X_OK);
        return candidate;
      } catch {
        // not here
      }
    }
  }
  return undefined;
}

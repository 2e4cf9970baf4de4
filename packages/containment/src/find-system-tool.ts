import { accessSync, constants } from 'node:fs';
import path from 'node:path';

/** Where util-linux lives when PATH was trimmed (a service's minimal PATH). */
const SYSTEM_DIRS = ['/usr/bin', '/bin', '/usr/sbin', '/sbin'];

/** The absolute path of a system program, so a child's PATH never decides which one runs. */
export function findSystemTool(
  name: string,
  searchPath = process.env.PATH ?? '',
): string | undefined {
  for (const dir of [...searchPath.split(path.delimiter), ...SYSTEM_DIRS]) {
    if (dir === '' || !path.isAbsolute(dir)) continue;
    const candidate = path.join(dir, name);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // Not here.
    }
  }
  return undefined;
}

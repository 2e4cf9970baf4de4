import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

let assetsDir: string | undefined;

/**
 * The package's `assets/` folder, found from this module whether it runs from `src/`
 * (tests, workspace) or was bundled into `dist/` (published).
 */
export function resolveAsset(name: string): string {
  if (assetsDir === undefined) {
    let dir = path.dirname(fileURLToPath(import.meta.url));
    while (!existsSync(path.join(dir, 'package.json')) && path.dirname(dir) !== dir)
      dir = path.dirname(dir);
    assetsDir = path.join(dir, 'assets');
  }
  return path.join(assetsDir, name);
}

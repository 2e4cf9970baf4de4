import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

let packageDir: string | undefined;
let packageVersion: string | undefined;

/**
 * This package's folder, found from this module whether it runs from `src/` (tests,
 * workspace) or was bundled into `dist/` (published).
 */
function findPackageDir(): string {
  if (packageDir === undefined) {
    let dir = path.dirname(fileURLToPath(import.meta.url));
    while (!existsSync(path.join(dir, 'package.json')) && path.dirname(dir) !== dir)
      dir = path.dirname(dir);
    packageDir = dir;
  }
  return packageDir;
}

/** A file of the package's `assets/` folder. */
export function resolveAsset(name: string): string {
  return path.join(findPackageDir(), 'assets', name);
}

/** The version of @toolpack/discovery that is running (`0.0.0` when it cannot be read). */
export function readDiscoveryVersion(): string {
  if (packageVersion === undefined) {
    try {
      const manifest = JSON.parse(
        readFileSync(path.join(findPackageDir(), 'package.json'), 'utf8'),
      ) as { version?: unknown };
      packageVersion = typeof manifest.version === 'string' ? manifest.version : '0.0.0';
    } catch {
      packageVersion = '0.0.0';
    }
  }
  return packageVersion;
}

import { readFile } from 'node:fs/promises';
import path from 'node:path';

export interface CliPackage {
  /** The folder of @toolpack/cli (the one holding its package.json). */
  dir: string;
  version: string;
  /** The absolute path of the `mcp` bin this package declares. */
  binPath: string;
  /** Where to report a bug (`bugs` of package.json). */
  bugsUrl: string | undefined;
}

interface CliManifest {
  name?: string;
  version?: string;
  bin?: Record<string, string>;
  bugs?: { url?: string };
}

async function readManifest(file: string): Promise<CliManifest | undefined> {
  try {
    return JSON.parse(await readFile(file, 'utf8')) as CliManifest;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

/**
 * The CLI's own package, found by walking up from this module. A fixed relative path cannot
 * work: this code runs from src/ or a folder under src/commands/ (sources) and from a chunk in dist/ (the
 * bundle), at different depths below the package folder.
 */
export async function findCliPackage(): Promise<CliPackage> {
  let dir = import.meta.dirname;
  for (;;) {
    const manifest = await readManifest(path.join(dir, 'package.json'));
    if (manifest?.name === '@toolpack/cli' && manifest.version !== undefined) {
      return {
        dir,
        version: manifest.version,
        binPath: path.join(dir, manifest.bin?.mcp ?? path.join('bin', 'mcp.js')),
        bugsUrl: manifest.bugs?.url,
      };
    }
    const parent = path.dirname(dir);
    if (parent === dir) break;
    dir = parent;
  }
  // Only a broken install gets here; main.ts loads @toolpack/core lazily, so this does too.
  const { ToolpackError } = await import('@toolpack/core');
  throw new ToolpackError(
    'E_INSTALL',
    `No package.json of @toolpack/cli above ${import.meta.dirname}.`,
    { hint: 'Reinstall @toolpack/cli: its package.json must sit beside its dist/ folder.' },
  );
}

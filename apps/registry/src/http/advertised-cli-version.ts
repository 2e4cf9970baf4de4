import { readFileSync } from 'node:fs';
import path from 'node:path';
import { ToolpackError } from '@toolpack/core';

/**
 * The `@toolpack/cli` version the registry's server.json documents tell clients to run: the CLI
 * released from this repository beside the registry, found by walking up from this module to
 * the repository's `packages/cli/package.json` (this code runs from src/http/ and from a chunk
 * in dist/, at different depths). Throws E_USAGE when it is not there, as in a registry
 * deployed without the repository: then `cliVersion` must be given.
 */
export function findAdvertisedCliVersion(): string {
  let dir = import.meta.dirname;
  for (;;) {
    const version = readCliVersion(path.join(dir, 'packages', 'cli', 'package.json'));
    if (version !== undefined) return version;
    const parent = path.dirname(dir);
    if (parent === dir) break;
    dir = parent;
  }
  throw new ToolpackError(
    'E_USAGE',
    'The registry cannot tell which @toolpack/cli version its /v0.1 server.json documents should name: packages/cli/package.json is not above it.',
    { hint: 'Pass cliVersion (an exact @toolpack/cli version that has mcp serve --pack).' },
  );
}

function readCliVersion(file: string): string | undefined {
  try {
    const manifest = JSON.parse(readFileSync(file, 'utf8')) as {
      name?: unknown;
      version?: unknown;
    };
    return manifest.name === '@toolpack/cli' && typeof manifest.version === 'string'
      ? manifest.version
      : undefined;
  } catch {
    return undefined;
  }
}

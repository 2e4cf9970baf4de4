import { createRequire } from 'node:module';
import type * as Semver from 'semver';
import type * as Tar from 'tar';

// Loaded on first use: every command that reads a project imports this package, and most
// never compare a version or touch a tarball. semver's index loads all 47 of its files and tar
// its whole build: about 10 ms together on each `mcp serve` or `mcp list` start.
const require = createRequire(import.meta.url);
let semver: typeof Semver | undefined;
let tar: typeof Tar | undefined;

export function loadSemver(): typeof Semver {
  return (semver ??= require('semver') as typeof Semver);
}

export function loadTar(): typeof Tar {
  return (tar ??= require('tar') as typeof Tar);
}

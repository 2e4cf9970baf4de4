import { createRequire } from 'node:module';
import type * as Semver from 'semver';
import type * as Tar from 'tar';
import type * as Yaml from 'yaml';

// Loaded on first use: every command that reads a project imports this package, and most
// never compare a version, touch a tarball or edit toolpack.yaml. semver's index loads all 47
// of its files and tar its whole build: about 10 ms together on each `mcp serve` or `mcp list`
// start (yaml's cost is in @toolpack/core's located-yaml.ts).
const require = createRequire(import.meta.url);
let semver: typeof Semver | undefined;
let tar: typeof Tar | undefined;
let yaml: typeof Yaml | undefined;

export function loadSemver(): typeof Semver {
  return (semver ??= require('semver') as typeof Semver);
}

export function loadTar(): typeof Tar {
  return (tar ??= require('tar') as typeof Tar);
}

/** yaml's Node build is CommonJS: this is the very module @toolpack/core's parser uses. */
export function loadYaml(): typeof Yaml {
  return (yaml ??= require('yaml') as typeof Yaml);
}

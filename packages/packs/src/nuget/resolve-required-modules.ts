import { ToolpackError } from '@toolpack/core';
import type { PackLimits } from '../tarball/limits.ts';
import type { ModulePackage } from './nupkg-to-pack.ts';
import type { NuGetFeedClient } from './nuget-feed.ts';
import { toSemverRange } from './nuget-ranges.ts';
import type { Nuspec } from './parse-nuspec.ts';
import { readNupkgAsModule } from './nupkg-to-pack.ts';

/** Required modules followed for one pack: a feed whose modules require each other without end stops here. */
const MAX_MODULES = 50;

/** A required module as toolpack.lock records it. */
export interface LockedModule {
  id: string;
  version: string;
  /** The package's URL, or `file:` its path in a folder feed. */
  resolved: string;
  /** `sha512-<base64>` of its .nupkg. */
  integrity: string;
}

/**
 * A module's RequiredModules (its .nuspec's dependencies, as Publish-PSResource writes them)
 * and theirs in turn, each resolved from the same feed to the highest version its range
 * allows, downloaded and checked as the module itself is. The first module of an id wins, as
 * pwsh imports one module of a name.
 */
export async function resolveRequiredModules(
  feed: NuGetFeedClient,
  main: Nuspec,
  options: {
    resolve: (feed: NuGetFeedClient, tarball: string) => string;
    limits?: Partial<PackLimits>;
  },
): Promise<(LockedModule & ModulePackage)[]> {
  const seen = new Set([main.id.toLowerCase()]);
  const queue = main.dependencies.map((dependency) => ({ dependency, by: main.id }));
  const modules: (LockedModule & ModulePackage)[] = [];
  while (queue.length > 0) {
    const { dependency, by } = queue.shift()!;
    if (seen.has(dependency.id.toLowerCase())) continue;
    seen.add(dependency.id.toLowerCase());
    if (modules.length >= MAX_MODULES) {
      throw new ToolpackError(
        'E_FEED',
        `${main.id} requires more than ${MAX_MODULES} modules (counting theirs); nothing was installed.`,
      );
    }
    const range = toSemverRange(dependency.range);
    if (range === undefined) {
      throw new ToolpackError(
        'E_FEED',
        `${by} requires ${dependency.id} ${dependency.range ?? ''}, a version range Toolpack cannot read; nothing was installed.`,
      );
    }
    const fetched = await feed.fetchModule(dependency.id, range);
    const read = await readNupkgAsModule(fetched.bytes, {
      matches: (id) => id.toLowerCase() === dependency.id.toLowerCase(),
      version: fetched.version,
      asked: `${dependency.id} ${fetched.version}`,
      label: `The package of ${fetched.id} ${fetched.version} (required by ${by})`,
      ...(options.limits ? { limits: options.limits } : {}),
    });
    modules.push({
      id: fetched.id,
      version: fetched.version,
      resolved: options.resolve(feed, fetched.dist.tarball),
      integrity: fetched.dist.integrity,
      bytes: fetched.bytes,
    });
    queue.push(...read.nuspec.dependencies.map((next) => ({ dependency: next, by: fetched.id })));
  }
  return modules;
}

import type { PackCache } from '../cache/pack-cache.ts';
import type { LockEntry } from '../lock/lockfile.ts';
import type { NuGetFeedClient } from '../nuget/nuget-feed.ts';
import { isZipArchive, readNupkgAsPack, type ModulePackage } from '../nuget/nupkg-to-pack.ts';
import { resolveRequiredModules, type LockedModule } from '../nuget/resolve-required-modules.ts';
import type { ProgressListener } from '../registry/registry-client.ts';
import type { RegistryClient } from '../registry/registry-client.ts';
import type { PackLimits } from '../tarball/limits.ts';
import { fetchVerifiedTarball } from './stage-pack.ts';

export interface ResolvedModules {
  /** What toolpack.lock records (empty: the pack requires none, or is not a module). */
  locked: LockedModule[];
  packages: ModulePackage[];
  /** Puts their packages in the cache; call it once the pack is installed. */
  remember: () => Promise<void>;
}

/**
 * The RequiredModules of a module just downloaded from a NuGet feed, resolved from that feed
 * (add and update); none for a pack from a Toolpack registry.
 */
export async function resolvePackModules(options: {
  registry: RegistryClient;
  bytes: Uint8Array;
  name: string;
  version: string;
  projectDir: string;
  cache?: PackCache;
  limits?: Partial<PackLimits>;
}): Promise<ResolvedModules> {
  if (options.registry.kind !== 'nuget' || !isZipArchive(options.bytes))
    return { locked: [], packages: [], remember: async () => undefined };
  const feed = options.registry as NuGetFeedClient;
  const { nuspec } = await readNupkgAsPack(options.bytes, {
    name: options.name,
    version: options.version,
    ...(options.limits ? { limits: options.limits } : {}),
  });
  const modules = await resolveRequiredModules(feed, nuspec, {
    resolve: (client, tarball) =>
      client.resolveDownload({ tarball, integrity: '', size: 0, fileCount: 0 }, options.projectDir),
    ...(options.limits ? { limits: options.limits } : {}),
  });
  return {
    locked: modules.map(({ id, version, resolved, integrity }) => ({
      id,
      version,
      resolved,
      integrity,
    })),
    packages: modules.map(({ id, version, bytes }) => ({ id, version, bytes })),
    remember: async () => {
      for (const module of modules)
        await options.cache?.write(module.integrity, Buffer.from(module.bytes));
    },
  };
}

/**
 * The packages of a lock entry's `modules` (install): each from the cache, else downloaded,
 * checked against its integrity as the pack's own package is.
 */
export async function fetchLockedModules(
  entry: LockEntry,
  options: {
    cache?: PackCache;
    offline?: boolean;
    download: (module: LockedModule, onProgress: ProgressListener | undefined) => Promise<Buffer>;
  },
): Promise<{ packages: ModulePackage[]; remember: () => Promise<void> }> {
  const packages: ModulePackage[] = [];
  const remembers: (() => Promise<void>)[] = [];
  for (const module of entry.modules ?? []) {
    const fetched = await fetchVerifiedTarball({
      name: module.id,
      version: module.version,
      integrity: module.integrity,
      ...(options.cache ? { cache: options.cache } : {}),
      ...(options.offline ? { offline: true } : {}),
      download: (onProgress) => options.download(module, onProgress),
    });
    packages.push({ id: module.id, version: module.version, bytes: fetched.bytes });
    remembers.push(fetched.remember);
  }
  return {
    packages,
    remember: async () => {
      for (const remember of remembers) await remember();
    },
  };
}

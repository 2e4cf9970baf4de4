import { loadSemver } from '../lazy-dependencies.ts';
import { ToolpackError } from '@toolpack/core';
import type { RegistryClient } from '../registry/registry-client.ts';
import type { PackDoc, VersionDoc } from '../registry/registry-types.ts';

/**
 * The version `range` installs: the highest satisfying version that is not yanked and
 * (as semver ranges mean) not a prerelease unless the range names one. Without a range,
 * the pack's `latest`. Yanked versions leave range resolution, but a lockfile that already
 * names one still installs it.
 */
export function selectVersion(pack: PackDoc, range?: string): string {
  const all = Object.keys(pack.versions).filter((v) => loadSemver().valid(v) !== null);
  const available = all.filter((v) => pack.versions[v]?.yanked !== true);
  if (range === undefined) {
    if (pack.latest !== undefined && available.includes(pack.latest)) return pack.latest;
    const highest = loadSemver().maxSatisfying(available, '*');
    if (highest !== null) return highest;
    throw new ToolpackError(
      'E_NO_MATCHING_VERSION',
      available.length === 0
        ? `${pack.name} has no installable version (${all.length === 0 ? 'none published' : 'all yanked'}).`
        : `${pack.name} has only prerelease versions (${describeVersions(available)}).`,
      available.length === 0
        ? {}
        : {
            hint: `Ask for one by name, e.g. mcp pack add ${pack.name}@${loadSemver().rsort([...available])[0]}.`,
          },
    );
  }
  const match = loadSemver().maxSatisfying(available, range);
  if (match !== null) return match;
  const yanked = all.filter(
    (v) => pack.versions[v]?.yanked === true && loadSemver().satisfies(v, range),
  );
  throw new ToolpackError(
    'E_NO_MATCHING_VERSION',
    `No version of ${pack.name} matches ${range}${yanked.length > 0 ? ` (${yanked.join(', ')} ${yanked.length === 1 ? 'was' : 'were'} yanked)` : ''}; available: ${describeVersions(available)}.`,
    {
      hint: `Pick a range that includes one of them, e.g. ${pack.name}@^${loadSemver().maxSatisfying(available, '*') ?? available[0] ?? '1.0.0'}.`,
    },
  );
}

function describeVersions(versions: readonly string[]): string {
  if (versions.length === 0) return 'none';
  const sorted = loadSemver().rsort([...versions]);
  return sorted.length > 8
    ? `${sorted.slice(0, 8).join(', ')} and ${sorted.length - 8} more`
    : sorted.join(', ');
}

/** The highest version that is neither a prerelease nor yanked (a PackDoc's `latest`). */
export function findLatestVersion(
  versions: Record<string, { yanked?: boolean }>,
): string | undefined {
  const available = Object.keys(versions).filter(
    (v) => loadSemver().valid(v) !== null && versions[v]?.yanked !== true,
  );
  return loadSemver().maxSatisfying(available, '*') ?? undefined;
}

/** Newest first. */
export function sortVersionsDescending(versions: readonly string[]): string[] {
  return loadSemver().rsort(versions.filter((v) => loadSemver().valid(v) !== null));
}

/**
 * The document of `version`: `pack`'s listing of it when that is complete, else the
 * registry's `getVersion` (a NuGet feed lists versions without a hash it does not state).
 */
export async function readVersionDoc(
  registry: RegistryClient,
  pack: PackDoc,
  version: string,
): Promise<VersionDoc> {
  const listed = pack.versions[version];
  return listed !== undefined && listed.dist.integrity !== ''
    ? listed
    : registry.getVersion(pack.name, version);
}

import semver from 'semver';
import type { VersionDoc } from '../documents.ts';

/** The highest version that is neither a prerelease nor yanked: what `mcp pack add NAME` installs. */
export function findLatestVersion(docs: readonly VersionDoc[]): string | undefined {
  const stable = docs.filter(
    (doc) => doc.yanked !== true && semver.prerelease(doc.version) === null,
  );
  return pickHighest(stable);
}

/**
 * The version a pack is listed and searched by: the latest, else (a pack with only
 * prereleases) its highest prerelease. Undefined when every version is yanked, and then
 * the pack leaves search results (its pages and tarballs stay served).
 */
export function findListedVersion(docs: readonly VersionDoc[]): VersionDoc | undefined {
  const listed = findLatestVersion(docs) ?? pickHighest(docs.filter((doc) => doc.yanked !== true));
  return docs.find((doc) => doc.version === listed);
}

export function compareVersions(a: string, b: string): number {
  return semver.compare(a, b);
}

function pickHighest(docs: readonly VersionDoc[]): string | undefined {
  return (
    semver.maxSatisfying(
      docs.map((doc) => doc.version),
      '*',
      { includePrerelease: true },
    ) ?? undefined
  );
}

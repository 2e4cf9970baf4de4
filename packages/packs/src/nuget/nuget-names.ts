import { isValidPackName, isValidVersion } from '../names/pack-names.ts';

/**
 * A NuGet id as a pack name: NuGet ids are case-insensitive, pack names lowercase, so
 * `JiraTools` is the pack `jiratools`. Undefined for an id no pack name can spell (one with
 * `.` or `_`, such as `Az.Accounts`): mapping those to `-` could not be looked up again.
 */
export function toPackNameFromNuGetId(id: string): string | undefined {
  const name = id.toLowerCase();
  return isValidPackName(name) && !name.includes('/') ? name : undefined;
}

/**
 * A NuGet version as semver: NuGet's normalised form drops a fourth part of 0 and pads
 * `1.0` to `1.0.0`; build metadata is not part of a version's identity there either.
 * Undefined for one semver cannot spell (`1.0.0.1`).
 */
export function toSemverFromNuGetVersion(version: string): string | undefined {
  const [core = '', ...rest] = version.trim().split('+')[0]!.split('-');
  const prerelease = rest.length > 0 ? `-${rest.join('-')}` : '';
  const parts = core.split('.');
  if (parts.length === 4 && /^0+$/.test(parts[3]!)) parts.pop();
  while (parts.length < 3) parts.push('0');
  if (parts.length !== 3 || parts.some((part) => !/^\d+$/.test(part))) return undefined;
  const semver = `${parts.map((part) => String(Number(part))).join('.')}${prerelease}`;
  return isValidVersion(semver) ? semver : undefined;
}

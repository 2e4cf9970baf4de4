import { isValidPackName, isValidVersion } from '../names/pack-names.ts';

/**
 * A NuGet id's separators as runs of hyphens in a pack name, the one character pack names
 * have for them: `-` stays `-`, `.` is `--`, `_` is `---`. NuGet ids never hold two
 * separators in a row (`^\w+([.-]\w+)*$`), so a run of one, two or three hyphens reads back
 * as exactly one character; an id where `_` touches `.` or `-` or another `_` would give a
 * run that reads back otherwise, and has no pack name.
 */
const SEPARATORS: Record<string, string> = { '-': '-', '.': '--', _: '---' };
const RUNS: Record<number, string> = { 1: '-', 2: '.', 3: '_' };

/**
 * A NuGet id as a pack name: lower case (NuGet ids are case-insensitive), with `.` written
 * `--` and `_` written `---` (`Az.Accounts` is the pack `az--accounts`, `Posh_Git` is
 * `posh---git`). Lossless: `toNuGetIdFromPackName` gives the id back (in lower case), and an
 * id it would not give back exactly is refused here rather than collide with another's name:
 * undefined for one that starts with `_`, has `_` beside another separator (`a__b`, `a_.b`),
 * or is longer than a pack name once written so.
 */
export function toPackNameFromNuGetId(id: string): string | undefined {
  const lower = id.toLowerCase();
  const name = lower.replace(/[-._]/g, (separator) => SEPARATORS[separator]!);
  if (!isValidPackName(name) || name.includes('/')) return undefined;
  return toNuGetIdFromPackName(name) === lower ? name : undefined;
}

/**
 * The NuGet id (lower case) a pack name from a feed stands for: the inverse of
 * `toPackNameFromNuGetId`. Undefined for a name no id gives (a run of four or more hyphens,
 * a trailing hyphen, an `owner/` prefix).
 */
export function toNuGetIdFromPackName(name: string): string | undefined {
  if (!isValidPackName(name) || name.includes('/') || name.endsWith('-')) return undefined;
  let invalid = false;
  const id = name.replace(/-+/g, (run) => {
    const separator = RUNS[run.length];
    if (separator === undefined) invalid = true;
    return separator ?? '';
  });
  return invalid || /[.-]{2}|^[.-]|[.-]$/.test(id) ? undefined : id;
}

/** NuGet keeps each part of a version in a .NET Int32. */
const MAX_VERSION_PART = 2 ** 31 - 1;

/**
 * A NuGet version as semver, as NuGet normalises it: leading zeros go (`01.02` is `1.2.0`),
 * `1.0` is padded to `1.0.0`, a fourth part of 0 is dropped, build metadata is no part of a
 * version's identity. A prerelease label is kept as written (`1.2.0-preview1`, what
 * Publish-PSResource makes of `Prerelease = 'preview1'`). Undefined for one semver cannot spell:
 * a fourth part other than 0 (`1.0.0.1`), a part beyond NuGet's Int32, a label semver refuses
 * (`-beta.01`).
 */
export function toSemverFromNuGetVersion(version: string): string | undefined {
  const withoutBuild = version.trim().split('+')[0]!;
  const dash = withoutBuild.indexOf('-');
  const core = dash === -1 ? withoutBuild : withoutBuild.slice(0, dash);
  const prerelease = dash === -1 ? '' : withoutBuild.slice(dash);
  const parts = core.split('.').map((part) => part.replace(/^0+(?=\d)/, ''));
  if (parts.length === 4 && parts[3] === '0') parts.pop();
  while (parts.length < 3) parts.push('0');
  if (
    parts.length !== 3 ||
    parts.some((part) => !/^\d{1,10}$/.test(part) || Number(part) > MAX_VERSION_PART)
  )
    return undefined;
  const semver = `${parts.join('.')}${prerelease}`;
  return isValidVersion(semver) ? semver : undefined;
}

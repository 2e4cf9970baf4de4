import { loadSemver } from '../lazy-dependencies.ts';
import { normalizeToolName, ToolpackError } from '@toolpack/core';

/**
 * One segment of a pack name: `[a-z0-9-]{1,64}`, and a leading hyphen is refused
 * too, because `mcp pack add -x` would read it as a flag.
 */
const SEGMENT = /^[a-z0-9][a-z0-9-]{0,63}$/;

/** `jira` or `owner/jira`. */
export function isValidPackName(name: string): boolean {
  const parts = name.split('/');
  return parts.length <= 2 && parts.every((part) => SEGMENT.test(part));
}

/** An alias prefixes the pack's tools (`<alias>_<tool>`) and names its folder under `.toolpack/packs/`. */
export function isValidAlias(alias: string): boolean {
  return SEGMENT.test(alias);
}

/** `owner/jira` is served as `jira_*` unless the user picks another alias. */
export function defaultAlias(name: string): string {
  return name.slice(name.lastIndexOf('/') + 1);
}

/**
 * A semver range as npm reads it, except that `^`/`~` must be followed by a version:
 * semver reads `^x` as "anything", which is never what its author meant.
 */
export function isValidRange(range: string): boolean {
  return (
    range.trim() !== '' &&
    !/[\^~]\s*(?![\s0-9])/.test(range) &&
    loadSemver().validRange(range) !== null
  );
}

export function isValidVersion(version: string): boolean {
  return loadSemver().valid(version) !== null && loadSemver().clean(version) === version;
}

export interface PackSpecifier {
  name: string;
  /** Absent when the user asked for no particular version. */
  range?: string;
}

/**
 * Reads `jira`, `jira@^1.2.0`, `owner/jira@1.x` as `mcp pack add` takes them.
 * Throws `E_USAGE` for anything else: this is command-line input, not a user file.
 */
export function parsePackSpecifier(text: string): PackSpecifier {
  const at = text.indexOf('@', 1);
  const name = (at === -1 ? text : text.slice(0, at)).trim();
  const range = at === -1 ? undefined : text.slice(at + 1).trim();
  if (!isValidPackName(name)) {
    throw new ToolpackError('E_USAGE', `"${name}" is not a valid pack name.`, {
      hint: 'Pack names are lowercase letters, digits and hyphens (at most 64), optionally owner/name, e.g. jira or acme/jira.',
    });
  }
  if (range === undefined) return { name };
  if (!isValidRange(range)) {
    throw new ToolpackError('E_USAGE', `"${range}" is not a valid semver range.`, {
      hint: 'Give a version or range after @, e.g. jira@1.2.0, jira@^1.2.0 or jira@~1.2.',
    });
  }
  return { name, range };
}

/** One `packs:` entry of toolpack.yaml, read. */
export interface PackDependency {
  alias: string;
  name: string;
  range: string;
}

/**
 * Reads one `packs:` entry. The key is the pack name (`jira: ^1.2.0`, alias `jira`), or an
 * alias when the value names the pack (`tracker: jira@^1.2.0`, as npm's `alias: npm:x@1`).
 * Returns a problem message instead when the entry is malformed.
 */
export function readPackDependency(key: string, value: string): PackDependency | string {
  // Semver ranges never contain `@`, so one means the value names the pack.
  const at = value.indexOf('@');
  if (at > 0) {
    const name = value.slice(0, at).trim();
    const range = value.slice(at + 1).trim();
    if (!isValidAlias(key))
      return `"${key}" is not a valid alias: use lowercase letters, digits and hyphens (at most 64)`;
    if (!isValidPackName(name)) return `"${name}" is not a valid pack name`;
    if (!isValidRange(range)) return `"${range}" is not a valid semver range`;
    return { alias: key, name, range };
  }
  if (!isValidPackName(key))
    return `"${key}" is not a valid pack name: use lowercase letters, digits and hyphens (at most 64), optionally owner/name`;
  if (!isValidRange(value)) return `"${value}" is not a valid semver range`;
  return { alias: defaultAlias(key), name: key, range: value.trim() };
}

/** The `packs:` key and value that record `dependency` (the inverse of `readPackDependency`). */
export function writePackDependency(dependency: PackDependency): { key: string; value: string } {
  return dependency.alias === defaultAlias(dependency.name)
    ? { key: dependency.name, value: dependency.range }
    : { key: dependency.alias, value: `${dependency.name}@${dependency.range}` };
}

/** A file-system and URL friendly form of a pack name (`owner/jira` -> `owner-jira`). */
export function toFileStem(name: string): string {
  return name.replace('/', '-');
}

/**
 * The name a pack's tool is served under: `<alias>_<tool>`, unless the tool already starts
 * with `<alias>_` (never prefixed twice). The same rule as discovery's composer.
 */
export function toServedToolName(alias: string, toolName: string): string {
  if (toolName.toLowerCase().startsWith(`${alias.toLowerCase()}_`)) return toolName;
  return normalizeToolName(`${alias}_${toolName}`).name;
}

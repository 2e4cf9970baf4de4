import { ToolpackError } from '@toolpack/core';
import {
  parsePackSpecifier,
  readLockfile,
  selectVersion,
  sortVersionsDescending,
  type NuGetFeedClient,
  type PackDoc,
  type VersionDoc,
} from '@toolpack/packs';
import type { CommandContext } from '../../../io.ts';
import { openCommandRegistry, openCommandSource, parseFeedSpecifier } from '../project-registry.ts';
import { withPackNameSuggestion } from '../suggest-pack-name.ts';

export interface GetPackInfoOptions extends CommandContext {
  /** The pack, optionally a version or range (default: the latest). */
  specifier: string;
  /** A registry URL or a folder of packs (default: as `resolveRegistryLocation` documents). */
  registry?: string;
  /** A NuGet feed of PowerShell modules instead of the registry (`--source`). */
  source?: string;
}

/** What `mcp pack info --json` prints. */
export interface PackInfo {
  pack: PackDoc;
  version: VersionDoc;
  /** Where it was looked up: the registry, or the NuGet feed (`--source`) with its `source`. */
  /** For a NuGet feed, `id` is the module's id as the feed spells it (`Az.Accounts`). */
  from: { location: string; kind: 'registry' | 'nuget'; source?: string; id?: string };
  /** This project's installs of the pack: where each came from, as toolpack.lock records it. */
  installed: { alias: string; version: string; resolved: string; source?: string; id?: string }[];
}

/** A pack as the registry describes it, and the one version the specifier picks. */
export async function getPackInfo(options: GetPackInfoOptions): Promise<PackInfo> {
  const { name, range } =
    options.source === undefined
      ? parsePackSpecifier(options.specifier)
      : parseFeedSpecifier(options.specifier);
  const feed =
    options.source === undefined ? undefined : await openCommandSource(options, options.source);
  const registry = feed?.registry ?? (await openCommandRegistry(options, options.registry));
  const pack = await withPackNameSuggestion(
    { registry, name, retry: (closest) => `mcp pack info ${closest}` },
    () => registry.getPack(name),
  );
  // An exact version shows even when yanked; a range shows what `mcp pack add` would install.
  const chosen =
    range === undefined
      ? (pack.latest ?? sortVersionsDescending(Object.keys(pack.versions))[0])
      : range in pack.versions
        ? range
        : selectVersion(pack, range);
  if (chosen === undefined) throw new ToolpackError('E_PACK_NOT_FOUND', `${name} has no versions.`);
  const version = pack.versions[chosen] ?? (await registry.getVersion(name, chosen));
  const lock = (await readLockfile(options.cwd)).lock;
  const installed = Object.entries(lock?.packs ?? {})
    .filter(([, entry]) => entry.name === name)
    .map(([alias, entry]) => ({
      alias,
      version: entry.version,
      resolved: entry.resolved,
      ...(entry.source === undefined ? {} : { source: entry.source }),
      ...(entry.id === undefined ? {} : { id: entry.id }),
    }));
  const id = feed === undefined ? undefined : (registry as NuGetFeedClient).packageIdOf(name);
  return {
    pack,
    version,
    from: {
      location: registry.location,
      kind: feed === undefined ? 'registry' : 'nuget',
      ...(feed === undefined ? {} : { source: feed.source }),
      ...(id === undefined ? {} : { id }),
    },
    installed,
  };
}

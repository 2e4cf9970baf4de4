import { ToolpackError } from '@toolpack/core';
import {
  parsePackSpecifier,
  selectVersion,
  sortVersionsDescending,
  type PackDoc,
  type VersionDoc,
} from '@toolpack/packs';
import type { CommandContext } from '../../../io.ts';
import { openCommandRegistry } from '../project-registry.ts';
import { withPackNameSuggestion } from '../suggest-pack-name.ts';

export interface GetPackInfoOptions extends CommandContext {
  /** The pack, optionally a version or range (default: the latest). */
  specifier: string;
  /** A registry URL or a folder of packs (default: as `resolveRegistryLocation` documents). */
  registry?: string;
}

/** What `mcp pack info --json` prints. */
export interface PackInfo {
  pack: PackDoc;
  version: VersionDoc;
}

/** A pack as the registry describes it, and the one version the specifier picks. */
export async function getPackInfo(options: GetPackInfoOptions): Promise<PackInfo> {
  const { name, range } = parsePackSpecifier(options.specifier);
  const registry = await openCommandRegistry(options, options.registry);
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
  return { pack, version };
}

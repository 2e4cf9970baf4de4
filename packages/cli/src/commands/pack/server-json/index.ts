import { ToolpackError } from '@toolpack/core';
import {
  parsePackSpecifier,
  readManifest,
  resolveRegistryLocation,
  selectVersion,
  sortVersionsDescending,
  toServerJson,
  type PackDoc,
  type ServerJson,
} from '@toolpack/packs';
import { findCliPackage } from '../../../find-cli-package.ts';
import type { CommandContext } from '../../../io.ts';
import { openCommandRegistry } from '../project-registry.ts';
import { withPackNameSuggestion } from '../suggest-pack-name.ts';

export interface GetServerJsonOptions extends CommandContext {
  /** The pack, optionally a version or range (default: its newest listed version). */
  specifier: string;
  /** A registry URL or a folder of packs (default: as `resolveRegistryLocation` documents). */
  registry?: string;
  /** The registry's server namespace, when it is not the default `dev.toolpack`. */
  namespace?: string;
}

/**
 * The server.json of a pack version as the registry describes it: this CLI (its own version)
 * serving that version from that registry. Throws as `mcp pack info` does for an unknown pack
 * or version.
 */
export async function getServerJson(options: GetServerJsonOptions): Promise<ServerJson> {
  const { name, range } = parsePackSpecifier(options.specifier);
  const manifest = await readManifest(options.cwd);
  // The document names the registry as clients must reach it: a URL, or an absolute folder.
  const { location } = resolveRegistryLocation({
    flag: options.registry,
    env: options.env,
    manifestRegistry: manifest.manifest?.registry,
    cwd: options.cwd,
    projectDir: options.cwd,
  });
  const registry = await openCommandRegistry(options, location);
  const pack = await withPackNameSuggestion(
    { registry, name, retry: (closest) => `mcp pack server-json ${closest}` },
    () => registry.getPack(name),
  );
  const version = pickVersion(pack, range);
  const doc = pack.versions[version] ?? (await registry.getVersion(name, version));
  const { version: cliVersion } = await findCliPackage();
  return toServerJson(doc, {
    registry: location,
    cliVersion,
    ...(options.namespace === undefined ? {} : { namespace: options.namespace }),
  });
}

/**
 * An exact version as asked (even yanked: a lockfile may still name it), a range as `mcp pack
 * add` resolves it, and by default the version the registry lists the pack by: the latest,
 * else its newest version that is not yanked (a pack with prereleases only).
 */
function pickVersion(pack: PackDoc, range: string | undefined): string {
  if (range !== undefined) return range in pack.versions ? range : selectVersion(pack, range);
  if (pack.latest !== undefined) return pack.latest;
  const listed = sortVersionsDescending(Object.keys(pack.versions)).find(
    (version) => pack.versions[version]?.yanked !== true,
  );
  if (listed !== undefined) return listed;
  throw new ToolpackError(
    'E_NO_MATCHING_VERSION',
    `${pack.name} has no listed version (every version is yanked).`,
    { hint: `Name one exactly, e.g. mcp pack server-json ${pack.name}@<version>.` },
  );
}

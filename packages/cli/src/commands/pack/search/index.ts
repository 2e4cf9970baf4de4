import type { SearchResponse } from '@toolpack/packs';
import type { CommandContext } from '../../../io.ts';
import { openCommandRegistry, openCommandSource } from '../project-registry.ts';

export interface SearchRegistryOptions extends CommandContext {
  /** Words to find in names, descriptions, tags and tools. */
  words: string[];
  /** Only packs with every one of these tags (exact, case-insensitive). */
  tags: string[];
  limit?: number;
  /** A registry URL or a folder of packs (default: as `resolveRegistryLocation` documents). */
  registry?: string;
  /** A NuGet feed of PowerShell modules instead of the registry (`--source`). */
  source?: string;
}

export interface RegistrySearch {
  /** The registry's answer, as `mcp pack search --json` prints it. */
  response: SearchResponse;
  /** The registry that answered. */
  location: string;
  /** Set when a NuGet feed answered: its modules' tools are known only once one is added. */
  source?: string;
}

/** Finds packs by words and tags in the project's registry, or PowerShell modules in a NuGet feed. */
export async function searchRegistry(options: SearchRegistryOptions): Promise<RegistrySearch> {
  const feed =
    options.source === undefined ? undefined : await openCommandSource(options, options.source);
  const registry = feed?.registry ?? (await openCommandRegistry(options, options.registry));
  const response = await registry.search({
    q: options.words.join(' '),
    tags: options.tags,
    ...(options.limit === undefined ? {} : { limit: options.limit }),
  });
  return {
    response,
    location: registry.location,
    ...(options.source === undefined ? {} : { source: options.source }),
  };
}

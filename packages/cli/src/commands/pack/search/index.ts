import { ToolpackError, isToolpackError } from '@toolpack/core';
import type { SearchResponse } from '@toolpack/packs';
import { describeRegistryStart } from '../../../describe-registry-start.ts';
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
  const response = await registry
    .search({
      q: options.words.join(' '),
      tags: options.tags,
      ...(options.limit === undefined ? {} : { limit: options.limit }),
    })
    .catch(async (error: unknown) => {
      throw await adviseRegistryStart(error, registry.location);
    });
  return {
    response,
    location: registry.location,
    ...(options.source === undefined ? {} : { source: options.source }),
  };
}

/**
 * A search is the first thing a newcomer asks a registry, often before any runs: an
 * unreachable one on this machine gets how to start it instead of "check the URL".
 */
async function adviseRegistryStart(error: unknown, location: string): Promise<unknown> {
  if (!isToolpackError(error) || error.code !== 'E_REGISTRY_UNREACHABLE') return error;
  const advice = await describeRegistryStart(location);
  if (advice === undefined) return error;
  return new ToolpackError(error.code, error.message, { cause: error, hint: advice });
}

import { ToolpackError, findClosestName, isToolpackError } from '@toolpack/core';
import { MAX_SEARCH_LIMIT, isValidPackName, type RegistryClient } from '@toolpack/packs';

/** Pages of names read to find a near miss: a registry of any size costs at most this many requests. */
const MAX_PAGES = 10;

/**
 * The registry's pack name closest to `name` (`jiraa` -> `jira`, `acme/jiraa` -> `acme/jira`),
 * or undefined when none is close or the registry cannot be listed.
 */
export async function suggestPackName(
  registry: RegistryClient,
  name: string,
): Promise<string | undefined> {
  const names: string[] = [];
  let cursor: string | undefined;
  try {
    for (let page = 0; page < MAX_PAGES; page += 1) {
      const response = await registry.search({
        limit: MAX_SEARCH_LIMIT,
        ...(cursor === undefined ? {} : { cursor }),
      });
      // Only well-formed names are echoed: a registry's answer is not trusted to be printable.
      names.push(...response.packs.map((pack) => pack.name).filter(isValidPackName));
      cursor = response.metadata.nextCursor ?? undefined;
      if (cursor === undefined) break;
    }
  } catch {
    // A suggestion is a courtesy: the original "not found" error is what matters.
    return undefined;
  }
  const closest = findClosestName(name, names);
  return closest === name ? undefined : closest;
}

/**
 * Runs `action`; an `E_PACK_NOT_FOUND` for `name` gets a did-you-mean hint with the
 * command to run (`retry(closest)`) when the registry has a pack of a close name.
 */
export async function withPackNameSuggestion<T>(
  options: { registry: RegistryClient; name: string; retry: (closest: string) => string },
  action: () => Promise<T>,
): Promise<T> {
  try {
    return await action();
  } catch (error) {
    if (!isToolpackError(error) || error.code !== 'E_PACK_NOT_FOUND') throw error;
    const closest = await suggestPackName(options.registry, options.name);
    if (closest === undefined) throw error;
    throw new ToolpackError(error.code, error.message, {
      cause: error,
      hint: `Did you mean ${closest}? ${options.retry(closest)}`,
    });
  }
}

import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { ToolpackError } from '@toolpack/core';
import { computeIntegrity } from '../integrity/integrity.ts';
import type { PackLimits } from '../tarball/limits.ts';
import { matchesSearch, type FeedEntry, type FeedProtocol } from './feed-entry.ts';
import { readNupkgContent } from './read-nupkg.ts';

/**
 * A folder of `.nupkg` files, as a PSResourceGet local repository (`Register-PSResourceRepository
 * -Uri <folder>`) or a NuGet file share holds them: each package's id and version are read
 * from its own .nuspec (the file name can be ambiguous: `a.1.0.0` is `a` 1.0.0 or `a.1` 0.0),
 * through the same checks as an install; a package that fails them is not listed.
 */
export function createFolderFeed(options: {
  dir: string;
  limits?: Partial<PackLimits>;
}): FeedProtocol {
  const readAll = async (): Promise<FeedEntry[]> => {
    const names = (
      await readdir(options.dir).catch((error: unknown) => {
        throw new ToolpackError(
          'E_FEED',
          `Cannot read the feed folder ${options.dir}: ${(error as Error).message}.`,
          {
            hint: 'Give --source a NuGet feed URL, the name of a feed in toolpack.yaml, or a folder of .nupkg files that exists.',
          },
        );
      })
    )
      .filter((name) => /\.nupkg$/i.test(name))
      .sort();
    const entries: FeedEntry[] = [];
    for (const name of names) {
      const file = path.join(options.dir, name);
      const bytes = await readFile(file);
      const read = await readNupkgContent(bytes, {
        label: file,
        ...(options.limits ? { limits: options.limits } : {}),
      });
      if (read.content === undefined) continue;
      const { nuspec } = read.content;
      entries.push({
        id: nuspec.id,
        version: nuspec.version,
        description: nuspec.description,
        tags: nuspec.tags,
        download: file,
        integrity: computeIntegrity(bytes),
        listed: true,
      });
    }
    return entries;
  };
  return {
    kind: 'folder',
    async listVersions(id) {
      return (await readAll()).filter((entry) => entry.id.toLowerCase() === id.toLowerCase());
    },
    async search(query) {
      return (await readAll()).filter((entry) => matchesSearch(entry, query));
    },
  };
}

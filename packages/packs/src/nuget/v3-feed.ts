import { ToolpackError } from '@toolpack/core';
import type { FeedHttp } from './feed-http.ts';
import { matchesSearch, type FeedEntry, type FeedProtocol } from './feed-entry.ts';

/** Registration pages fetched for one id: a feed that pages on forever is cut off here. */
const MAX_PAGES = 20;

interface ServiceIndex {
  packageBase?: string;
  registrations?: string;
  search?: string;
  /** The feed's own origin and those of the resources its index names (nuget.org searches elsewhere). */
  origins: ReadonlySet<string>;
}

/**
 * A NuGet v3 feed, from its service index (`.../index.json`): versions and their metadata from
 * the registration resource (`RegistrationsBaseUrl`), packages from the package content
 * resource (`PackageBaseAddress/3.0.0`, lower-case `<id>/<version>/<id>.<version>.nupkg`),
 * search from `SearchQueryService` with `q=tags:<tag>`, as NuGet's own client does.
 */
export function createV3Feed(options: { url: string; http: FeedHttp }): FeedProtocol {
  let index: Promise<ServiceIndex> | undefined;
  const readIndex = (): Promise<ServiceIndex> =>
    (index ??= (async () => {
      const text = await options.http.getText(options.url);
      const resources = text === undefined ? undefined : parseJson(text)?.resources;
      if (!Array.isArray(resources)) {
        throw new ToolpackError(
          'E_FEED',
          `${options.url} is not a NuGet v3 service index (no resources).`,
          {
            hint: 'A v3 feed is given by its index.json; a v2 feed by its base URL (e.g. .../api/v2); a local repository by its folder.',
          },
        );
      }
      const find = (prefix: string): string | undefined => {
        for (const resource of resources as Record<string, unknown>[]) {
          const types = ([] as unknown[]).concat(resource['@type']);
          const id = resource['@id'];
          if (
            typeof id === 'string' &&
            types.some((t) => typeof t === 'string' && t.startsWith(prefix))
          )
            return new URL(id, options.url).href;
        }
        return undefined;
      };
      const packageBase = find('PackageBaseAddress');
      const registrations = find('RegistrationsBaseUrl');
      const search = find('SearchQueryService');
      const origins = new Set(
        [options.url, packageBase, registrations, search]
          .filter((url): url is string => url !== undefined)
          .map((url) => new URL(url).origin),
      );
      return {
        origins,
        ...(packageBase === undefined ? {} : { packageBase: withSlash(packageBase) }),
        ...(registrations === undefined ? {} : { registrations: withSlash(registrations) }),
        ...(search === undefined ? {} : { search }),
      };
    })());
  const getJson = async (url: string): Promise<Record<string, unknown> | undefined> => {
    const text = await options.http.getText(url, (await readIndex()).origins);
    return text === undefined ? undefined : parseJson(text);
  };
  const contentUrl = (resources: ServiceIndex, id: string, version: string, leaf?: unknown) => {
    const lowerId = id.toLowerCase();
    const lowerVersion = version.toLowerCase();
    if (resources.packageBase !== undefined)
      return `${resources.packageBase}${encodeURIComponent(lowerId)}/${encodeURIComponent(lowerVersion)}/${encodeURIComponent(lowerId)}.${encodeURIComponent(lowerVersion)}.nupkg`;
    return typeof leaf === 'string' ? new URL(leaf, options.url).href : undefined;
  };
  return {
    kind: 'v3',
    async listVersions(id) {
      const resources = await readIndex();
      if (resources.registrations === undefined) {
        throw new ToolpackError(
          'E_FEED',
          `The NuGet feed ${options.url} has no registration resource (RegistrationsBaseUrl).`,
        );
      }
      const root = await getJson(
        `${resources.registrations}${encodeURIComponent(id.toLowerCase())}/index.json`,
      );
      const entries: FeedEntry[] = [];
      for (const page of asArray(root?.items).slice(0, MAX_PAGES)) {
        // A page is inlined, or fetched from its @id (nuget.org pages large packages).
        const items = Array.isArray(page.items)
          ? asArray(page.items)
          : asArray((await getJson(new URL(String(page['@id']), options.url).href))?.items);
        for (const leaf of items) {
          const entry = (leaf.catalogEntry ?? {}) as Record<string, unknown>;
          const leafId = typeof entry.id === 'string' ? entry.id : '';
          const version = typeof entry.version === 'string' ? entry.version : '';
          const download = contentUrl(resources, leafId, version, leaf.packageContent);
          if (leafId === '' || version === '' || download === undefined) continue;
          entries.push({
            id: leafId,
            version,
            description: typeof entry.description === 'string' ? entry.description : '',
            tags: readTags(entry.tags),
            download,
            listed: entry.listed !== false,
          });
        }
      }
      return entries;
    },
    async search(query) {
      const resources = await readIndex();
      if (resources.search === undefined) {
        throw new ToolpackError(
          'E_FEED',
          `The NuGet feed ${options.url} has no search resource (SearchQueryService).`,
        );
      }
      const q = [...query.tags.map((tag) => `tags:${tag}`), ...query.words].join(' ');
      const answer = await getJson(
        `${resources.search}?q=${encodeURIComponent(q)}&prerelease=false&semVerLevel=2.0.0&take=${query.limit}`,
      );
      const entries: FeedEntry[] = [];
      for (const item of asArray(answer?.data)) {
        const id = typeof item.id === 'string' ? item.id : '';
        const version = typeof item.version === 'string' ? item.version : '';
        const download = contentUrl(resources, id, version);
        if (id === '' || version === '' || download === undefined) continue;
        entries.push({
          id,
          version,
          description: typeof item.description === 'string' ? item.description : '',
          tags: readTags(item.tags),
          download,
          listed: true,
        });
      }
      return entries.filter((entry) => matchesSearch(entry, query));
    },
  };
}

function parseJson(text: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return value !== null && typeof value === 'object'
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

function asArray(value: unknown): Record<string, unknown>[] {
  return Array.isArray(value)
    ? value.filter(
        (item): item is Record<string, unknown> => item !== null && typeof item === 'object',
      )
    : [];
}

/** v3 gives tags as an array, some feeds as one space- or comma-separated string. */
function readTags(value: unknown): string[] {
  const list = Array.isArray(value)
    ? value
    : typeof value === 'string'
      ? value.split(/[\s,]+/)
      : [];
  return list.filter((tag): tag is string => typeof tag === 'string' && tag !== '');
}

function withSlash(url: string): string {
  return url.endsWith('/') ? url : `${url}/`;
}

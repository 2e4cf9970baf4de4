import { parseNuGetXml, textOf } from './parse-nuspec.ts';
import type { FeedHttp } from './feed-http.ts';
import { matchesSearch, type FeedEntry, type FeedProtocol } from './feed-entry.ts';

/** Pages read for one listing or search: a feed that links on forever is cut off here. */
export const MAX_V2_PAGES = 20;
/** Entries a search asks for per page: the PowerShell Gallery answers at most 100. */
const PAGE_SIZE = 100;

/**
 * A NuGet v2 feed, the OData (Atom) API the PowerShell Gallery serves at `/api/v2`:
 * `FindPackagesById()?id='<id>'` lists an id's versions, `Search()` with a `$filter` of
 * `substringof('<tag>', Tags)` finds by tag, and each entry's `<content src>` is its package.
 * An answer holds one page (the PowerShell Gallery's at most 100 entries) and links the next
 * with `<link rel="next">` (its `$skip` or `$skiptoken`): both follow those links, a search
 * only until it has the packs it asked for, and neither past `MAX_V2_PAGES` pages or back to
 * a page it read.
 */
export function createV2Feed(options: { url: string; http: FeedHttp }): FeedProtocol {
  const base = options.url.replace(/\/+$/, '');
  const list = async (
    first: string,
    enough: (entries: FeedEntry[]) => boolean = () => false,
  ): Promise<FeedEntry[]> => {
    const entries: FeedEntry[] = [];
    const read = new Set<string>();
    let url: string | undefined = new URL(first).href;
    while (url !== undefined && read.size < MAX_V2_PAGES && !read.has(url)) {
      read.add(url);
      const text = await options.http.getText(url);
      if (text === undefined) break;
      const page = readAtomFeed(text, url);
      entries.push(...page.entries);
      if (enough(entries)) break;
      url = page.next;
    }
    return entries;
  };
  return {
    kind: 'v2',
    listVersions(id) {
      return list(`${base}/FindPackagesById()?id=${encodeURIComponent(quoteOData(id))}`);
    },
    async search(query) {
      // The gallery's own shape of a tag search (what PSResourceGet sends): OData's
      // substringof on Tags, matched exactly below.
      const filter = [
        'IsLatestVersion',
        ...query.tags.map((tag) => `substringof(${quoteOData(tag)}, Tags) eq true`),
      ].join(' and ');
      const words =
        query.words.length === 0
          ? ''
          : `&searchTerm=${encodeURIComponent(quoteOData(query.words.join(' ')))}`;
      const url = `${base}/Search()?$filter=${encodeURIComponent(filter)}${words}&$skip=0&$top=${PAGE_SIZE}`;
      // The gallery's substringof also matches a longer tag (MCPToolsX), so pages are read
      // until `limit` packages match exactly.
      const matching = (entries: FeedEntry[]) =>
        entries.filter((entry) => matchesSearch(entry, query));
      const found = await list(
        url,
        (entries) =>
          new Set(matching(entries).map((entry) => entry.id.toLowerCase())).size >= query.limit,
      );
      return matching(found);
    },
  };
}

/** An OData string literal: quoted, with `'` doubled. */
function quoteOData(text: string): string {
  return `'${text.replaceAll("'", "''")}'`;
}

function readAtomFeed(text: string, url: string): { entries: FeedEntry[]; next?: string } {
  const document = parseNuGetXml(text, ['entry', 'link']) as
    { feed?: Record<string, unknown> } | undefined;
  if (document === undefined) return { entries: [] };
  const feed = (document.feed ?? {}) as {
    entry?: Record<string, unknown>[];
    link?: Record<string, unknown>[];
  };
  const entries: FeedEntry[] = [];
  for (const entry of feed.entry ?? []) {
    const properties = (entry.properties ?? {}) as Record<string, unknown>;
    const id = textOf(properties.Id) || textOf(entry.title);
    const version = textOf(properties.NormalizedVersion) || textOf(properties.Version);
    const src = textOf((entry.content as Record<string, unknown> | undefined)?.['@_src']);
    if (id === '' || version === '' || src === '') continue;
    const hash = textOf(properties.PackageHash);
    const algorithm = textOf(properties.PackageHashAlgorithm).toUpperCase();
    let download: string;
    try {
      download = new URL(src, url).href;
    } catch {
      continue;
    }
    entries.push({
      id,
      version,
      description: textOf(properties.Description),
      tags: textOf(properties.Tags).split(/\s+/).filter(Boolean),
      download,
      ...(hash !== '' && algorithm === 'SHA512' ? { integrity: `sha512-${hash}` } : {}),
      // The gallery marks an unlisted version by publishing it in 1900.
      listed:
        textOf(properties.IsListed) !== 'false' &&
        !textOf(properties.Published).startsWith('1900-'),
    });
  }
  const next = (feed.link ?? []).find((link) => link['@_rel'] === 'next')?.['@_href'];
  return {
    entries,
    ...(typeof next === 'string' && next !== '' ? { next: new URL(next, url).href } : {}),
  };
}

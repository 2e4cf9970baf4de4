import type { IncomingMessage, ServerResponse } from 'node:http';
import semver from 'semver';
import { sendMethodNotAllowed, sendSeeding, takeSearchToken } from '../http/api-routes.ts';
import { sendError, sendText } from '../http/http-io.ts';
import type { RegistryContext } from '../http/registry-context.ts';
import type { StoredPack, StoredVersion } from '../storage/metadata-store.ts';
import { findLatestVersion } from '../storage/pack-versions.ts';
import { handleNugetPublish } from './nuget-publish.ts';
import { describeForNuget, findPack, getPackPageUrl, sendPackNupkg } from './nuget-routes.ts';
import type { NugetIdentity } from './nuget-ids.ts';
import { escapeXml as xml } from './render-nuspec.ts';
import { readNugetIdentity } from './read-stored-pack.ts';

/**
 * The NuGet v2 (OData) face, the PowerShell Gallery's own protocol: PSResourceGet answers
 * `Find-PSResource -Tag` and `-Name` wildcards only from v2 feeds (and nuget.org-like v3 hosts).
 */
export const NUGET_V2_PREFIX = '/nuget/v2';

/** The most packs one v2 query reads before filtering; a feed this size is far past any tag page. */
const MAX_SCANNED_PACKS = 2000;
const SCAN_PAGE = 100;
const MAX_TOP = 6000;

/** What a `$filter` of the shape PSResourceGet sends asks for. */
interface V2Filter {
  latest?: 'stable' | 'absolute';
  tags: string[];
  id?: string;
  version?: string;
  idStarts?: string;
  idEnds?: string;
  idContains?: string;
  /** `NormalizedVersion ge '1.0.0'` and the like, every one to hold. */
  bounds: [Comparison, string][];
  /** `IsPrerelease eq true|false`. */
  isPrerelease?: boolean;
}

type Comparison = 'gt' | 'ge' | 'lt' | 'le';

type ParsedFilter = { ok: true; filter: V2Filter } | { ok: false; message: string };

const QUOTED = "'((?:[^']|'')*)'";
const CRITERIA: [RegExp, (filter: V2Filter, value: string) => void][] = [
  [/^IsLatestVersion( eq true)?$/i, (f) => (f.latest ??= 'stable')],
  [/^IsAbsoluteLatestVersion( eq true)?$/i, (f) => (f.latest = 'absolute')],
  [new RegExp(`^substringof\\(${QUOTED},\\s*Tags\\)( eq true)?$`, 'i'), (f, v) => f.tags.push(v)],
  [new RegExp(`^Id eq ${QUOTED}$`, 'i'), (f, v) => (f.id = v)],
  [new RegExp(`^NormalizedVersion eq ${QUOTED}$`, 'i'), (f, v) => (f.version = v)],
  ...(['gt', 'ge', 'lt', 'le'] as const).map(
    (op) =>
      [
        new RegExp(`^NormalizedVersion ${op} ${QUOTED}$`, 'i'),
        (f: V2Filter, v: string) => f.bounds.push([op, v]),
      ] as [RegExp, (filter: V2Filter, value: string) => void],
  ),
  [/^IsPrerelease eq true$/i, (f) => (f.isPrerelease = true)],
  [/^IsPrerelease eq false$/i, (f) => (f.isPrerelease = false)],
  [new RegExp(`^startswith\\(Id,\\s*${QUOTED}\\)( eq true)?$`, 'i'), (f, v) => (f.idStarts = v)],
  [new RegExp(`^endswith\\(Id,\\s*${QUOTED}\\)( eq true)?$`, 'i'), (f, v) => (f.idEnds = v)],
  [new RegExp(`^substringof\\(${QUOTED},\\s*Id\\)( eq true)?$`, 'i'), (f, v) => (f.idContains = v)],
];

/**
 * Reads the `$filter` criteria PSResourceGet and PowerShellGet send, joined by `and`. Anything
 * else is refused (400) rather than ignored: a filter read wrong would answer the wrong packages.
 */
export function parseV2Filter(text: string): ParsedFilter {
  const filter: V2Filter = { tags: [], bounds: [] };
  const trimmed = text.trim();
  if (trimmed === '') return { ok: true, filter };
  for (const criterion of trimmed.split(/\s+and\s+/i)) {
    const match = CRITERIA.map(
      ([pattern, apply]) => [pattern.exec(criterion.trim()), apply] as const,
    ).find(([found]) => found !== null);
    if (match === undefined) {
      return {
        ok: false,
        message: `The $filter criterion "${criterion.slice(0, 100)}" is not one this feed answers; it takes IsLatestVersion, IsAbsoluteLatestVersion, IsPrerelease eq, Id eq, NormalizedVersion eq|gt|ge|lt|le, startswith(Id, ...), endswith(Id, ...), substringof(..., Id) and substringof(..., Tags), joined by and.`,
      };
    }
    const [found, apply] = match;
    apply(filter, (found?.[1] ?? '').replace(/''/g, "'"));
  }
  return { ok: true, filter };
}

/**
 * `Search()`, `FindPackagesById()`, `Packages()`, `package/{id}/{version}` and `PUT package`
 * under `/nuget/v2`, answering Atom feeds as the PowerShell Gallery does.
 */
export async function handleNugetV2(
  context: RegistryContext,
  request: IncomingMessage,
  response: ServerResponse,
  url: URL,
): Promise<void> {
  const rest = url.pathname.slice(NUGET_V2_PREFIX.length).replace(/^\/+/, '');
  const method = request.method ?? 'GET';
  if (rest === 'package' || rest === 'package/') {
    if (method === 'PUT') return handleNugetPublish(context, request, response);
    return sendMethodNotAllowed(response, 'PUT');
  }
  if (method !== 'GET' && method !== 'HEAD') return sendMethodNotAllowed(response, 'GET, HEAD');
  const download = /^package\/([^/]+)\/([^/]+)$/.exec(rest);
  if (download?.[1] !== undefined && download[2] !== undefined)
    return sendPackNupkg(
      context,
      request,
      response,
      decodeURIComponent(download[1]),
      decodeURIComponent(download[2]),
    );
  if (rest === '') return sendServiceDocument(context, response);
  const operation = /^(Search|FindPackagesById|Packages)(\(\))?$/.exec(rest)?.[1];
  if (operation === undefined)
    return sendError(response, 404, {
      code: 'E_NOT_FOUND',
      message: `Nothing at ${url.pathname}.`,
    });
  if (!takeSearchToken(context, request, response)) return;
  if (context.isSeeding()) {
    return sendSeeding(response);
  }
  const params = url.searchParams;
  const parsed = parseV2Filter(params.get('$filter') ?? '');
  if (!parsed.ok) return sendError(response, 400, { code: 'E_BAD_QUERY', message: parsed.message });
  const { filter } = parsed;
  if (operation === 'FindPackagesById') {
    const id = unquote(params.get('id'));
    if (id === undefined)
      return sendError(response, 400, {
        code: 'E_BAD_QUERY',
        message: "FindPackagesById() needs id='NAME'.",
      });
    filter.id = id;
  }
  const searchTerm = unquote(params.get('searchTerm')) ?? '';
  for (const word of searchTerm.split(/\s+/)) {
    const tag = /^tag:(.+)$/i.exec(word)?.[1];
    if (tag !== undefined) filter.tags.push(tag);
  }
  const words = searchTerm
    .split(/\s+/)
    .filter((word) => word !== '' && !/^tag:/i.test(word))
    .map((word) => word.replace(/\*/g, ''))
    .filter((word) => word !== '');
  const prerelease = (params.get('includePrerelease') ?? 'false').toLowerCase() === 'true';
  const packs = await findCandidates(context, filter, words);
  const entries: FeedEntry[] = [];
  for (const pack of packs) {
    const docs = pack.versions.map((version) => version.doc);
    const latest = findLatestVersion(docs);
    const absolute = semver.maxSatisfying(
      docs.filter((doc) => doc.yanked !== true).map((doc) => doc.version),
      '*',
      { includePrerelease: true },
    );
    // Newest first, as the PowerShell Gallery lists a package's versions.
    const newestFirst = [...pack.versions].sort((a, b) =>
      semver.rcompare(a.doc.version, b.doc.version),
    );
    for (const stored of newestFirst) {
      const { version } = stored.doc;
      const exact =
        filter.version !== undefined && version.toLowerCase() === filter.version.toLowerCase();
      if (filter.version !== undefined && !exact) continue;
      if (!exact && stored.doc.yanked === true) continue;
      if (
        !exact &&
        !prerelease &&
        filter.latest !== 'absolute' &&
        semver.prerelease(version) !== null
      )
        continue;
      if (
        filter.isPrerelease !== undefined &&
        (semver.prerelease(version) !== null) !== filter.isPrerelease
      )
        continue;
      if (!filter.bounds.every(([op, bound]) => compareBound(version, op, bound))) continue;
      if (filter.latest === 'stable' && version !== latest) continue;
      if (filter.latest === 'absolute' && version !== absolute) continue;
      const identity = await readNugetIdentity(context, stored);
      if (!matchesId(identity.id, filter)) continue;
      const tags =
        identity.module === undefined ? stored.doc.tags : ['PSModule', ...stored.doc.tags];
      const lowerTags = tags.map((tag) => tag.toLowerCase());
      if (!filter.tags.every((tag) => lowerTags.includes(tag.toLowerCase()))) continue;
      entries.push({
        pack,
        stored,
        identity,
        tags,
        latest: version === latest,
        absolute: version === absolute,
      });
    }
  }
  const skip = readCount(params.get('$skip'), 0);
  const top = Math.min(MAX_TOP, readCount(params.get('$top'), 100));
  const page = entries.slice(skip, skip + top);
  const base = `${context.publicUrl()}${NUGET_V2_PREFIX}`;
  const body = [
    '<?xml version="1.0" encoding="utf-8"?>',
    `<feed xml:base="${xml(base)}/" xmlns="http://www.w3.org/2005/Atom" xmlns:d="http://schemas.microsoft.com/ado/2007/08/dataservices" xmlns:m="http://schemas.microsoft.com/ado/2007/08/dataservices/metadata">`,
    `<m:count>${entries.length}</m:count>`,
    `<id>${xml(`${base}/${operation}`)}</id>`,
    `<title type="text">${operation}</title>`,
    `<updated>${new Date().toISOString()}</updated>`,
    ...page.map((entry) => renderEntry(context, base, entry)),
    '</feed>',
    '',
  ].join('\n');
  sendText(response, 200, 'application/atom+xml;type=feed;charset=utf-8', body, {
    'cache-control': 'no-cache',
  });
}

/** The packs a query can match, read from the store as narrowly as it allows. */
async function findCandidates(
  context: RegistryContext,
  filter: V2Filter,
  words: string[],
): Promise<StoredPack[]> {
  if (filter.id !== undefined) {
    const pack = await findPack(context, filter.id);
    return pack === undefined ? [] : [pack];
  }
  const names = new Set<string>();
  const nameFragment = filter.idStarts ?? filter.idEnds ?? filter.idContains;
  if (nameFragment !== undefined) {
    let after: { name: string; version: string } | undefined;
    while (names.size < MAX_SCANNED_PACKS) {
      const page = await context.store.listVersions({
        limit: SCAN_PAGE,
        latestOnly: true,
        nameContains: nameFragment.toLowerCase().replace('.', '/'),
        ...(after === undefined ? {} : { after }),
      });
      for (const version of page.versions) names.add(version.doc.name);
      const last = page.versions.at(-1);
      if (!page.hasMore || last === undefined) break;
      after = { name: last.doc.name, version: last.doc.version };
    }
  } else {
    const tags = filter.tags
      .map((tag) => tag.toLowerCase())
      .filter((tag) => tag !== 'psmodule' && tag !== 'psscript');
    for (let offset = 0; offset < MAX_SCANNED_PACKS; offset += SCAN_PAGE) {
      const page = await context.store.search({ words, tags, offset, limit: SCAN_PAGE });
      for (const summary of page.packs) names.add(summary.name);
      if (!page.hasMore) break;
    }
  }
  const packs: StoredPack[] = [];
  for (const name of [...names].sort()) {
    const pack = await context.store.getPack(name);
    if (pack !== undefined) packs.push(pack);
  }
  return packs;
}

/** Whether `version` is `op` `bound`; a bound that is no version holds for none. */
function compareBound(version: string, op: Comparison, bound: string): boolean {
  const other = semver.valid(bound) ?? semver.valid(semver.coerce(bound));
  if (other === null) return false;
  const order = semver.compare(version, other);
  return op === 'gt' ? order > 0 : op === 'ge' ? order >= 0 : op === 'lt' ? order < 0 : order <= 0;
}

function matchesId(id: string, filter: V2Filter): boolean {
  const lower = id.toLowerCase();
  if (filter.id !== undefined && lower !== filter.id.toLowerCase()) return false;
  if (filter.idStarts !== undefined && !lower.startsWith(filter.idStarts.toLowerCase()))
    return false;
  if (filter.idEnds !== undefined && !lower.endsWith(filter.idEnds.toLowerCase())) return false;
  if (filter.idContains !== undefined && !lower.includes(filter.idContains.toLowerCase()))
    return false;
  return true;
}

interface FeedEntry {
  pack: StoredPack;
  stored: StoredVersion;
  identity: NugetIdentity;
  /** As NuGet clients see them: `PSModule` first for a module pack. */
  tags: string[];
  latest: boolean;
  absolute: boolean;
}

function renderEntry(context: RegistryContext, base: string, entry: FeedEntry): string {
  const { doc } = entry.stored;
  const { id } = entry.identity;
  const description = describeForNuget(entry.stored, entry.identity);
  const self = `${base}/Packages(Id='${id}',Version='${doc.version}')`;
  const bool = (value: boolean) => `m:type="Edm.Boolean">${value}`;
  return [
    '<entry>',
    `<id>${xml(self)}</id>`,
    `<title type="text">${xml(id)}</title>`,
    `<summary type="text">${xml(doc.description)}</summary>`,
    `<updated>${xml(entry.stored.updatedAt)}</updated>`,
    `<author><name>${xml(entry.pack.owner)}</name></author>`,
    `<content type="application/zip" src="${xml(`${base}/package/${id}/${doc.version}`)}"/>`,
    '<m:properties>',
    `<d:Id>${xml(id)}</d:Id>`,
    `<d:Version>${xml(doc.version)}</d:Version>`,
    `<d:NormalizedVersion>${xml(doc.version)}</d:NormalizedVersion>`,
    `<d:Authors>${xml(entry.pack.owner)}</d:Authors>`,
    `<d:Description>${xml(description)}</d:Description>`,
    `<d:Tags>${xml(entry.tags.join(' '))}</d:Tags>`,
    `<d:ProjectUrl>${xml(getPackPageUrl(context, entry.pack.name))}</d:ProjectUrl>`,
    // NuGet v2's form: `id:range:framework`, joined by `|`.
    `<d:Dependencies>${xml((entry.identity.dependencies ?? []).map((d) => `${d.id}:${d.range ?? ''}:`).join('|'))}</d:Dependencies>`,
    `<d:IsPrerelease ${bool(semver.prerelease(doc.version) !== null)}</d:IsPrerelease>`,
    `<d:IsLatestVersion ${bool(entry.latest)}</d:IsLatestVersion>`,
    `<d:IsAbsoluteLatestVersion ${bool(entry.absolute)}</d:IsAbsoluteLatestVersion>`,
    `<d:Listed ${bool(doc.yanked !== true)}</d:Listed>`,
    `<d:Published m:type="Edm.DateTime">${xml(entry.stored.publishedAt)}</d:Published>`,
    `<d:DownloadCount m:type="Edm.Int32">0</d:DownloadCount>`,
    '</m:properties>',
    '</entry>',
  ].join('\n');
}

function sendServiceDocument(context: RegistryContext, response: ServerResponse): void {
  const base = `${context.publicUrl()}${NUGET_V2_PREFIX}`;
  sendText(
    response,
    200,
    'application/xml;charset=utf-8',
    `<?xml version="1.0" encoding="utf-8"?>\n<service xml:base="${xml(base)}/" xmlns="http://www.w3.org/2007/app" xmlns:atom="http://www.w3.org/2005/Atom"><workspace><atom:title>Default</atom:title><collection href="Packages"><atom:title>Packages</atom:title></collection></workspace></service>\n`,
  );
}

function unquote(value: string | null): string | undefined {
  if (value === null) return undefined;
  const match = /^'(.*)'$/s.exec(value.trim());
  return (match?.[1] ?? value.trim()).replace(/''/g, "'");
}

function readCount(raw: string | null, fallback: number): number {
  return raw !== null && /^\d{1,7}$/.test(raw) ? Number(raw) : fallback;
}

import type { IncomingMessage, ServerResponse } from 'node:http';
import { isValidPackName, toServerName } from '@toolpack/packs';
import { SEEDING_RETRY_AFTER_SECONDS, takeSearchToken } from '../http/api-routes.ts';
import { sendText } from '../http/http-io.ts';
import type { RegistryContext } from '../http/registry-context.ts';
import { encodeCursor, parseSearchParams } from '../http/search-params.ts';
import { findLatestVersion } from '../storage/pack-versions.ts';
import { NUGET_V2_PREFIX } from '../nuget/nuget-v2-routes.ts';
import { readNugetIdentity } from '../nuget/read-stored-pack.ts';
import { GALLERY_ASSETS } from './assets.ts';
import { buildClientSnippets } from './client-snippets.ts';
import { readPackDetails } from './read-pack-details.ts';
import { renderNotFoundPage, renderPackPage, renderSearchPage } from './render-pages.ts';

/** The search page counts results up to this many, then says "1,000+". */
const RESULT_COUNT_CAP = 1000;

/** Tags the search page lists (all of them, in practice; the rest of a huge registry's are long tail). */
const LISTED_TAGS = 500;

/**
 * Pages allow only this origin's stylesheet and script: no inline code, no third-party
 * request, no framing.
 */
const PAGE_HEADERS = {
  'content-security-policy':
    "default-src 'none'; style-src 'self'; script-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
  'x-frame-options': 'DENY',
  'cache-control': 'no-cache',
};

export function handleAsset(
  request: IncomingMessage,
  response: ServerResponse,
  pathname: string,
): boolean {
  const asset = GALLERY_ASSETS.get(pathname);
  if (asset === undefined) return false;
  const headers = { etag: asset.etag, 'cache-control': 'public, max-age=3600' };
  if (request.headers['if-none-match'] === asset.etag) {
    response.writeHead(304, headers);
    response.end();
    return true;
  }
  sendText(response, 200, asset.contentType, asset.body, headers);
  return true;
}

/** `/`: the search page, with words and tag chips. */
export async function handleSearchPage(
  context: RegistryContext,
  request: IncomingMessage,
  response: ServerResponse,
  url: URL,
): Promise<void> {
  if (!takeSearchToken(context, request, response)) return;
  const q = (url.searchParams.get('q') ?? '').trim().slice(0, 512);
  const tags = [
    ...new Set(
      url.searchParams
        .getAll('tag')
        .map((t) => t.trim())
        .filter((t) => t !== ''),
    ),
  ].slice(0, 10);
  const parsed = parseSearchParams(url.searchParams);
  const topTags = await context.store.listTags(LISTED_TAGS);
  if (!parsed.ok) {
    const page = renderSearchPage({
      q,
      tags,
      sort: 'relevance',
      packs: [],
      topTags,
      nextCursor: null,
      problem: parsed.message,
    });
    return sendText(response, 400, 'text/html; charset=utf-8', page, PAGE_HEADERS);
  }
  const result = await context.store.search({ ...parsed.query, countUpTo: RESULT_COUNT_CAP });
  const downloads = await context.store.countDownloads(result.packs.map((pack) => pack.name));
  // While seeding, the page shows what is published so far and says that more is coming;
  // the status tells scripts the same.
  const seeding = context.isSeeding();
  const page = renderSearchPage({
    q,
    tags,
    sort: parsed.query.sort ?? 'relevance',
    packs: result.packs,
    ...(result.total === undefined ? {} : { total: result.total, totalCap: RESULT_COUNT_CAP }),
    offset: parsed.query.offset,
    downloads: new Map([...downloads].map(([name, counts]) => [name, counts.total])),
    topTags,
    nextCursor: result.hasMore ? encodeCursor(parsed.query.offset + parsed.query.limit) : null,
    seeding,
  });
  if (seeding)
    return sendText(response, 503, 'text/html; charset=utf-8', page, {
      ...PAGE_HEADERS,
      'retry-after': String(SEEDING_RETRY_AFTER_SECONDS),
    });
  sendText(response, 200, 'text/html; charset=utf-8', page, PAGE_HEADERS);
}

/** `/packs/{name}` (and `?version=`): one pack, its tools and schemas. */
export async function handlePackPage(
  context: RegistryContext,
  response: ServerResponse,
  url: URL,
  rawName: string,
): Promise<void> {
  let name: string;
  try {
    name = decodeURIComponent(rawName).replace(/\/$/, '');
  } catch {
    name = '';
  }
  const pack = isValidPackName(name) ? await context.store.getPack(name) : undefined;
  if (pack === undefined)
    return sendNotFoundPage(response, `There is no pack named ${name || rawName}.`);
  // Links stay on this origin: the page names the tarball by path, never by absolute URL.
  const docs = pack.versions.map((v) => ({
    ...v.doc,
    dist: { ...v.doc.dist, tarball: `/v0/blobs/${v.blobKey}.tgz` },
  }));
  const latest = findLatestVersion(docs);
  const asked = url.searchParams.get('version');
  const doc =
    asked === null
      ? (docs.find((d) => d.version === latest) ?? docs.at(-1))
      : docs.find((d) => d.version === asked);
  if (doc === undefined)
    return sendNotFoundPage(response, `${pack.name} has no version ${asked ?? ''}.`);
  const stored = pack.versions.find((v) => v.doc.version === doc.version);
  const identity = stored === undefined ? undefined : await readNugetIdentity(context, stored);
  const details =
    stored === undefined ? { requirements: [] } : await readPackDetails(context, stored);
  const downloads = (await context.store.countDownloads([pack.name])).get(pack.name);
  const pinned = asked !== null;
  const page = renderPackPage({
    pack,
    doc,
    latest,
    pinned,
    ...(details.readme === undefined ? {} : { readme: details.readme }),
    requirements: details.requirements,
    ...(downloads === undefined ? {} : { downloads }),
    snippets: buildClientSnippets({
      name: pack.name,
      ...(pinned ? { version: doc.version } : {}),
      registryUrl: context.publicUrl(),
      env: doc.env,
      permissions: doc.permissions,
    }),
    serverName: toServerName(pack.name, { namespace: context.officialApi.namespace }),
    ...(identity?.module === undefined
      ? {}
      : {
          powershell: {
            id: identity.id,
            repositoryUrl: `${context.publicUrl()}${NUGET_V2_PREFIX}`,
          },
        }),
  });
  sendText(response, 200, 'text/html; charset=utf-8', page, PAGE_HEADERS);
}

export function sendNotFoundPage(response: ServerResponse, message: string): void {
  sendText(response, 404, 'text/html; charset=utf-8', renderNotFoundPage(message), PAGE_HEADERS);
}

import type { IncomingMessage, ServerResponse } from 'node:http';
import semver from 'semver';
import { toPackName, toServerJson, toServerName, type ServerJson } from '@toolpack/packs';
import type { ListedVersion, StoredVersion } from '../storage/metadata-store.ts';
import { findListedVersion } from '../storage/pack-versions.ts';
import { SEEDING_RETRY_AFTER_SECONDS } from './api-routes.ts';
import { getClientAddress, sendJson } from './http-io.ts';
import {
  encodeListCursor,
  parseServerListParams,
  type ListPosition,
  type ServerListParams,
} from './official-api-params.ts';
import { toVersionDoc, type RegistryContext } from './registry-context.ts';

/** The official MCP Registry API (generic registry API, v0.1), read-only. */
export const OFFICIAL_API_PREFIX = '/v0.1/';

const OFFICIAL_META = 'io.modelcontextprotocol.registry/official';
const ALLOWED_METHODS = 'GET, HEAD, OPTIONS';
const PREFLIGHT_MAX_AGE_SECONDS = 86_400;
/**
 * A filtered listing reads the store in batches and stops after this many versions per request,
 * answering what it found with a cursor at the point it reached: a search that matches almost
 * nothing costs a bounded amount per request, and the client pages on.
 */
const MAX_SCANNED_PER_REQUEST = 5000;
const SCAN_BATCH = 500;

type ServerStatus = 'active' | 'deprecated' | 'deleted';

/** One entry of `servers`: the server.json and the registry's own facts about it. */
interface ServerResponseBody {
  server: ServerJson;
  _meta: {
    [OFFICIAL_META]: {
      status: ServerStatus;
      publishedAt: string;
      updatedAt: string;
      isLatest: boolean;
    };
  };
}

/**
 * `/v0.1/servers`, `/v0.1/servers/{serverName}/versions` and
 * `/v0.1/servers/{serverName}/versions/{version|latest}`, with CORS for browser clients.
 * Errors answer in the API's documented shape, `{"error": "..."}`.
 */
export async function handleOfficialApi(
  context: RegistryContext,
  request: IncomingMessage,
  response: ServerResponse,
  url: URL,
): Promise<void> {
  const method = request.method ?? 'GET';
  if (method === 'OPTIONS') return sendPreflight(request, response);
  if (method !== 'GET' && method !== 'HEAD') {
    return sendApiError(response, 405, `Use ${ALLOWED_METHODS} here.`, { allow: ALLOWED_METHODS });
  }
  const { pathname } = url;
  if (pathname === '/v0.1/servers' || pathname === '/v0.1/servers/')
    return handleListServers(context, request, response, url);
  // Greedy: an unencoded `dev.toolpack.acme/jira` still reads as one server name.
  const match = /^\/v0\.1\/servers\/(.+)\/versions(?:\/([^/]+))?\/?$/.exec(pathname);
  const serverName = decodePathPart(match?.[1]);
  const version = match?.[2] === undefined ? undefined : decodePathPart(match[2]);
  if (
    match === null ||
    serverName === undefined ||
    (match[2] !== undefined && version === undefined)
  )
    return sendApiError(response, 404, `Nothing at ${pathname}.`);
  return handleServerVersions(context, response, serverName, version);
}

/** `GET /v0.1/servers?cursor=&limit=&search=&updated_since=&version=&include_deleted=` */
async function handleListServers(
  context: RegistryContext,
  request: IncomingMessage,
  response: ServerResponse,
  url: URL,
): Promise<void> {
  // Listing costs what a search costs, so it draws on the same per-address bucket.
  if (context.searchLimiter !== undefined) {
    const decision = context.searchLimiter.take(
      `ip:${getClientAddress(request, context.trustProxy)}`,
    );
    if (!decision.allowed) {
      return sendApiError(
        response,
        429,
        `Too many requests; try again in ${decision.retryAfterSeconds} s.`,
        { 'retry-after': String(decision.retryAfterSeconds) },
      );
    }
  }
  const parsed = parseServerListParams(url.searchParams);
  if (!parsed.ok) return sendApiError(response, 400, parsed.message);
  if (context.isSeeding()) return sendSeeding(response);
  const { versions, next } = await collectServers(context, parsed.params);
  sendJson(response, 200, {
    servers: versions.map((version) => toServerResponse(context, version, version.isLatest)),
    metadata: {
      count: versions.length,
      ...(next === undefined ? {} : { nextCursor: encodeListCursor(next) }),
    },
  });
}

/**
 * One page of versions in the store's order (pack name, then version, as bytes). What the store
 * cannot filter (yanked versions, an exact version, a search that may match inside the
 * namespace) is filtered here, a batch at a time.
 */
async function collectServers(
  context: RegistryContext,
  params: ServerListParams,
): Promise<{ versions: ListedVersion[]; next: ListPosition | undefined }> {
  const { namespace } = context.officialApi;
  const filter =
    params.search === undefined ? undefined : toPackNameFilter(params.search, namespace);
  const nameContains = filter?.nameContains;
  const searchHere = filter !== undefined && !filter.exact;
  const sparse = searchHere || params.exactVersion !== undefined;
  const filtered = sparse || !params.includeDeleted;
  const matches = (listed: ListedVersion): boolean =>
    (params.includeDeleted || listed.doc.yanked !== true) &&
    (params.exactVersion === undefined || listed.doc.version === params.exactVersion) &&
    (!searchHere || toServerName(listed.doc.name, { namespace }).includes(params.search ?? ''));

  const found: ListedVersion[] = [];
  let after = params.after;
  let scanned = 0;
  for (;;) {
    const page = await context.store.listVersions({
      // One row past the page tells whether there is more; past the first batch, rows are
      // being skipped (yanked ones), so the rest is read in large batches.
      limit: sparse || scanned > 0 ? SCAN_BATCH : params.limit + (filtered ? 1 : 0),
      ...(after === undefined ? {} : { after }),
      ...(params.updatedSince === undefined ? {} : { updatedSince: params.updatedSince }),
      ...(params.latestOnly ? { latestOnly: true } : {}),
      ...(nameContains === undefined ? {} : { nameContains }),
    });
    for (const listed of page.versions) {
      scanned += 1;
      if (!matches(listed)) {
        after = positionOf(listed);
        continue;
      }
      // A match past the page: the page is full and the next one starts after its last entry.
      if (found.length === params.limit) return { versions: found, next: after };
      found.push(listed);
      after = positionOf(listed);
    }
    if (!page.hasMore) return { versions: found, next: undefined };
    if (!filtered && found.length === params.limit) return { versions: found, next: after };
    if (scanned >= MAX_SCANNED_PER_REQUEST) return { versions: found, next: after };
  }
}

/** What the store can do for a server-name search: keep pack names containing `nameContains`. */
export interface PackNameFilter {
  /** Undefined: no substring of pack names selects the matches, every version is read. */
  nameContains?: string;
  /** The store's filter alone decides; otherwise server names are matched one by one after it. */
  exact: boolean;
}

/**
 * A server name is `<namespace>/<pack>` or, scoped, `<namespace>.<scope>/<name>`, and pack
 * names have no dots. A search inside the pack name is the same substring of it (exact). One
 * that starts inside the namespace part (`k/ji`, `k.acme/`) leaves a rest every match's pack
 * name starts with; the shortest such rest, a suffix of the search, is in every match (a
 * superset, then matched one by one). One wholly inside `<namespace>.` but not `<namespace>/`
 * ends with that dot: exactly the scoped packs (`/`). One inside `<namespace>/` matches every
 * unscoped pack, which no substring selects.
 */
export function toPackNameFilter(search: string, namespace: string): PackNameFilter {
  const plainHead = `${namespace}/`;
  const scopedHead = `${namespace}.`;
  if (plainHead.includes(search)) return { exact: false };
  if (scopedHead.includes(search)) return { nameContains: '/', exact: true };
  let shortest = search;
  let crosses = false;
  for (const head of [plainHead, scopedHead]) {
    for (let start = 0; start < head.length; start += 1) {
      const tail = head.slice(start);
      if (!search.startsWith(tail)) continue;
      crosses = true;
      const rest = search.slice(tail.length);
      if (rest.length < shortest.length) shortest = rest;
    }
  }
  return { nameContains: shortest, exact: !crosses };
}

/** `GET .../versions` (newest publication first) and `GET .../versions/{version|latest}`. */
async function handleServerVersions(
  context: RegistryContext,
  response: ServerResponse,
  serverName: string,
  version: string | undefined,
): Promise<void> {
  const packName = toPackName(serverName, { namespace: context.officialApi.namespace });
  const pack = packName === undefined ? undefined : await context.store.getPack(packName);
  if (pack === undefined) {
    if (context.isSeeding()) return sendSeeding(response);
    return sendApiError(response, 404, 'Server not found');
  }
  const listed = findListedVersion(pack.versions.map((stored) => stored.doc))?.version;
  if (version === undefined) {
    const newestFirst = [...pack.versions].sort(
      (a, b) =>
        b.publishedAt.localeCompare(a.publishedAt) || semver.compare(b.doc.version, a.doc.version),
    );
    return sendJson(response, 200, {
      servers: newestFirst.map((stored) =>
        toServerResponse(context, stored, stored.doc.version === listed),
      ),
      metadata: { count: newestFirst.length },
    });
  }
  const wanted = version === 'latest' ? listed : version;
  const stored = pack.versions.find((candidate) => candidate.doc.version === wanted);
  if (stored === undefined) return sendApiError(response, 404, 'Server version not found');
  sendJson(response, 200, toServerResponse(context, stored, stored.doc.version === listed));
}

function toServerResponse(
  context: RegistryContext,
  stored: StoredVersion,
  isLatest: boolean,
): ServerResponseBody {
  const doc = toVersionDoc(context, stored);
  return {
    server: toServerJson(doc, {
      registry: context.publicUrl(),
      cliVersion: context.officialApi.cliVersion,
      namespace: context.officialApi.namespace,
    }),
    _meta: {
      [OFFICIAL_META]: {
        status: toServerStatus(stored),
        publishedAt: stored.publishedAt,
        updatedAt: stored.updatedAt,
        isLatest,
      },
    },
  };
}

/** Yanked reads as `deleted` (gone from default listings), a deprecation as `deprecated`. */
function toServerStatus(stored: StoredVersion): ServerStatus {
  if (stored.doc.yanked === true) return 'deleted';
  return stored.doc.deprecated === undefined ? 'active' : 'deprecated';
}

function positionOf(listed: ListedVersion): ListPosition {
  return { name: listed.doc.name, version: listed.doc.version };
}

function decodePathPart(part: string | undefined): string | undefined {
  if (part === undefined) return undefined;
  try {
    return decodeURIComponent(part);
  } catch {
    return undefined;
  }
}

/** A CORS preflight: any origin may read the API (it is public and takes no cookies). */
function sendPreflight(request: IncomingMessage, response: ServerResponse): void {
  const asked = request.headers['access-control-request-headers'];
  // Echoed back so any header a browser client adds passes; only header-name characters survive.
  const allowHeaders =
    typeof asked === 'string' && /^[A-Za-z0-9-, ]{1,1000}$/.test(asked)
      ? asked
      : 'Accept, Content-Type';
  response.writeHead(204, {
    'access-control-allow-origin': '*',
    'access-control-allow-methods': ALLOWED_METHODS,
    'access-control-allow-headers': allowHeaders,
    'access-control-max-age': String(PREFLIGHT_MAX_AGE_SECONDS),
    vary: 'Access-Control-Request-Headers',
    'content-length': '0',
  });
  response.end();
}

function sendSeeding(response: ServerResponse): void {
  sendApiError(
    response,
    503,
    'The registry is still publishing its seed packs, so this answer would be incomplete; retry shortly.',
    { 'retry-after': String(SEEDING_RETRY_AFTER_SECONDS) },
  );
}

function sendApiError(
  response: ServerResponse,
  status: number,
  message: string,
  headers: Record<string, string> = {},
): void {
  sendJson(response, status, { error: message }, headers);
}

import { isValidPackName } from '@toolpack/packs';

/** The official registry's page size rule for `GET /v0.1/servers`: 30 unless asked, at most 100. */
export const OFFICIAL_DEFAULT_LIMIT = 30;
export const OFFICIAL_MAX_LIMIT = 100;
const MAX_SEARCH_LENGTH = 200;
const MAX_VERSION_LENGTH = 255;
const MAX_CURSOR_LENGTH = 512;

/** A position in the list: the last version of the previous page. */
export interface ListPosition {
  name: string;
  version: string;
}

export interface ServerListParams {
  after?: ListPosition;
  limit: number;
  /** Lowercased; matched against the server name. */
  search?: string;
  /** ISO 8601 in UTC, as the store compares it. */
  updatedSince?: string;
  /** `version=latest`. */
  latestOnly: boolean;
  /** `version=<exact version>`. */
  exactVersion?: string;
  /** Yanked versions too (status `deleted`): asked for, or implied by `updated_since`. */
  includeDeleted: boolean;
}

export type ServerListParamsResult =
  { ok: true; params: ServerListParams } | { ok: false; message: string };

/** RFC 3339 date-time: a date, `T`, a time, and `Z` or an offset. */
const RFC3339 = /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(?:\.\d{1,9})?(?:[Zz]|[+-]\d{2}:\d{2})$/;

/** Reads the query of `GET /v0.1/servers`; malformed values are refused with a message. */
export function parseServerListParams(query: URLSearchParams): ServerListParamsResult {
  let limit = OFFICIAL_DEFAULT_LIMIT;
  const rawLimit = query.get('limit');
  if (rawLimit !== null && rawLimit !== '') {
    if (
      !/^\d{1,4}$/.test(rawLimit) ||
      Number(rawLimit) < 1 ||
      Number(rawLimit) > OFFICIAL_MAX_LIMIT
    )
      return {
        ok: false,
        message: `limit must be a whole number from 1 to ${OFFICIAL_MAX_LIMIT}.`,
      };
    limit = Number(rawLimit);
  }
  const params: ServerListParams = { limit, latestOnly: false, includeDeleted: false };

  const cursor = query.get('cursor');
  if (cursor !== null && cursor !== '') {
    const after = decodeListCursor(cursor);
    if (after === undefined)
      return {
        ok: false,
        message: 'cursor is not one this registry gave out; start again without it.',
      };
    params.after = after;
  }

  const search = (query.get('search') ?? '').trim().toLowerCase();
  if (search.length > MAX_SEARCH_LENGTH)
    return { ok: false, message: `search takes at most ${MAX_SEARCH_LENGTH} characters.` };
  if (search !== '') params.search = search;

  const since = query.get('updated_since');
  if (since !== null && since !== '') {
    const time = RFC3339.test(since) ? Date.parse(since.toUpperCase()) : Number.NaN;
    if (Number.isNaN(time))
      return {
        ok: false,
        message: 'updated_since must be an RFC 3339 date-time such as 2025-08-07T13:15:04.280Z.',
      };
    params.updatedSince = new Date(time).toISOString();
    params.includeDeleted = true;
  }

  const version = query.get('version');
  if (version !== null && version !== '') {
    if (version.length > MAX_VERSION_LENGTH)
      return { ok: false, message: `version takes at most ${MAX_VERSION_LENGTH} characters.` };
    if (version === 'latest') params.latestOnly = true;
    else params.exactVersion = version;
  }

  const includeDeleted = query.get('include_deleted');
  if (includeDeleted !== null && includeDeleted !== '') {
    if (includeDeleted !== 'true' && includeDeleted !== 'false')
      return { ok: false, message: 'include_deleted must be true or false.' };
    if (includeDeleted === 'true') params.includeDeleted = true;
  }
  return { ok: true, params };
}

/** Opaque to clients: the position, as base64url JSON. */
export function encodeListCursor(position: ListPosition): string {
  return Buffer.from(JSON.stringify([position.name, position.version])).toString('base64url');
}

export function decodeListCursor(cursor: string): ListPosition | undefined {
  if (cursor.length > MAX_CURSOR_LENGTH || !/^[A-Za-z0-9_-]+$/.test(cursor)) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    return undefined;
  }
  if (!Array.isArray(parsed) || parsed.length !== 2) return undefined;
  const [name, version] = parsed as unknown[];
  if (typeof name !== 'string' || typeof version !== 'string') return undefined;
  if (!isValidPackName(name) || version === '' || version.length > MAX_VERSION_LENGTH)
    return undefined;
  return { name, version };
}

import { SEARCH_SORTS, type SearchSort, type StoreSearchQuery } from '../storage/metadata-store.ts';

export const DEFAULT_PAGE_SIZE = 20;
export const MAX_PAGE_SIZE = 100;
export const MAX_TAGS = 10;
const MAX_QUERY_LENGTH = 512;
const MAX_OFFSET = 1_000_000;

export type SearchParamsResult =
  { ok: true; query: StoreSearchQuery } | { ok: false; message: string };

/**
 * Reads `q`, `tag` (repeatable), `sort`, `cursor` and `limit` of `GET /v0/packs` (and of the gallery's
 * search page). `limit` above the cap is lowered to it; malformed values are refused.
 */
export function parseSearchParams(params: URLSearchParams): SearchParamsResult {
  const q = (params.get('q') ?? '').slice(0, MAX_QUERY_LENGTH).trim();
  const tags = [
    ...new Set(
      params
        .getAll('tag')
        .map((tag) => tag.trim().toLowerCase())
        .filter((tag) => tag !== ''),
    ),
  ];
  if (tags.length > MAX_TAGS)
    return { ok: false, message: `At most ${MAX_TAGS} tags can be combined.` };
  let limit = DEFAULT_PAGE_SIZE;
  const rawLimit = params.get('limit');
  if (rawLimit !== null && rawLimit !== '') {
    if (!/^\d{1,9}$/.test(rawLimit) || Number(rawLimit) < 1)
      return { ok: false, message: `limit must be a whole number from 1 to ${MAX_PAGE_SIZE}.` };
    limit = Math.min(MAX_PAGE_SIZE, Number(rawLimit));
  }
  const cursor = params.get('cursor');
  let offset = 0;
  if (cursor !== null && cursor !== '') {
    const decoded = decodeCursor(cursor);
    if (decoded === undefined)
      return {
        ok: false,
        message: 'cursor is not one this registry gave out; start again without it.',
      };
    offset = decoded;
  }
  const sort = params.get('sort') ?? '';
  if (sort !== '' && !(SEARCH_SORTS as readonly string[]).includes(sort))
    return { ok: false, message: `sort must be one of ${SEARCH_SORTS.join(', ')}.` };
  const query: StoreSearchQuery = { words: q === '' ? [] : q.split(/\s+/), tags, offset, limit };
  if (sort !== '') query.sort = sort as SearchSort;
  if (q !== '') query.exactName = q.toLowerCase();
  return { ok: true, query };
}

/** Opaque to clients; the same form `@toolpack/packs`' in-memory search uses. */
export function encodeCursor(offset: number): string {
  return Buffer.from(`o:${offset}`).toString('base64url');
}

export function decodeCursor(cursor: string): number | undefined {
  if (!/^[A-Za-z0-9_-]{1,32}$/.test(cursor)) return undefined;
  const match = /^o:(\d{1,7})$/.exec(Buffer.from(cursor, 'base64url').toString('utf8'));
  if (match?.[1] === undefined) return undefined;
  const offset = Number(match[1]);
  return offset <= MAX_OFFSET ? offset : undefined;
}

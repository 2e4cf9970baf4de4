import type { PackSummary, SearchQuery, SearchResponse } from './registry-types.ts';

export interface SearchablePack extends PackSummary {
  /** The tools of the pack's latest version: words match their names and descriptions too. */
  tools?: readonly { name: string; description: string }[];
}

const DEFAULT_SEARCH_LIMIT = 20;
export const MAX_SEARCH_LIMIT = 100;

/**
 * The search of a folder registry and of the test registry (`apps/registry` answers
 * `GET /v0/packs` from its own full-text index): every word must occur
 * (case-insensitively) in the name, description, a tag, or a tool's name or description; every tag must be
 * one of the pack's tags exactly, ignoring case. Name matches rank first, then by name.
 * The cursor is opaque to clients (an offset here).
 */
export function searchPacks(packs: readonly SearchablePack[], query: SearchQuery): SearchResponse {
  const words = (query.q ?? '')
    .toLowerCase()
    .split(/\s+/)
    .filter((word) => word !== '');
  const tags = (query.tags ?? []).map((tag) => tag.trim().toLowerCase()).filter((t) => t !== '');
  const matches = packs
    .filter((pack) => {
      const packTags = pack.tags.map((tag) => tag.toLowerCase());
      if (!tags.every((tag) => packTags.includes(tag))) return false;
      const tools = (pack.tools ?? []).flatMap((tool) => [tool.name, tool.description]);
      const haystack = [pack.name, pack.description, ...pack.tags, ...tools]
        .join('\n')
        .toLowerCase();
      return words.every((word) => haystack.includes(word));
    })
    .map((pack) => ({
      pack,
      score: words.filter((word) => pack.name.toLowerCase().includes(word)).length,
    }))
    .sort(
      (a, b) =>
        b.score - a.score || (a.pack.name < b.pack.name ? -1 : a.pack.name > b.pack.name ? 1 : 0),
    );
  // NaN would slip through Math.min/max and answer an empty page instead of the default one.
  const wanted = Number.isFinite(query.limit) ? query.limit! : DEFAULT_SEARCH_LIMIT;
  const limit = Math.min(MAX_SEARCH_LIMIT, Math.max(1, Math.floor(wanted)));
  const offset = decodeCursor(query.cursor);
  const page = matches.slice(offset, offset + limit).map(({ pack }) => ({
    name: pack.name,
    version: pack.version,
    description: pack.description,
    tags: [...pack.tags],
    toolCount: pack.toolCount,
  }));
  const next = offset + limit < matches.length ? encodeCursor(offset + limit) : null;
  return { packs: page, metadata: { count: page.length, nextCursor: next } };
}

function encodeCursor(offset: number): string {
  return Buffer.from(`o:${offset}`).toString('base64url');
}

function decodeCursor(cursor: string | undefined): number {
  if (cursor === undefined || cursor === '') return 0;
  const match = /^o:(\d{1,9})$/.exec(Buffer.from(cursor, 'base64url').toString('utf8'));
  return match?.[1] === undefined ? 0 : Number(match[1]);
}

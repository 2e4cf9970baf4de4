import { splitIndexTerms, splitSearchTerms } from './fts-query.ts';

/**
 * `ts_rank_cd` weights for the labels {D, C, B, A}: description, tool names, tags, name. The
 * same order and roughly the same ratios as the SQLite store's bm25 column weights.
 */
export const SEARCH_RANK_WEIGHTS = '{0.1, 0.3, 0.4, 1.0}';
/**
 * Divides the rank by 1 + log(document length): a shorter pack ranks higher among equals,
 * as bm25 ranks them. Of the normalizations tried against the SQLite store on a generated
 * catalogue, this kept the first pages closest (search-parity.test.ts).
 */
export const SEARCH_RANK_NORMALIZATION = 1;

/** What a pack is found by: the fields of its listed version. */
export interface SearchFields {
  name: string;
  tags: readonly string[];
  toolNames: readonly string[];
  description: string;
}

// PostgreSQL keeps at most 256 positions per lexeme and positions up to 16383.
const MAX_POSITIONS = 255;
const MAX_POSITION = 16_383;

/**
 * The pack's `tsvector`, written as a literal for `$1::tsvector`. The terms are cut here,
 * exactly as queries are ({@link buildSearchTsquery}), never by a text search parser or
 * dictionary: PostgreSQL's default parser would read `acme/jira` as a file path and
 * `jira-reports` as one hyphenated word, and its result would depend on the server's locale.
 * Name A, tags B, tool names C, description D.
 */
export function buildSearchVector(fields: SearchFields): string {
  const positions = new Map<string, string[]>();
  let position = 0;
  const add = (text: string, weight: 'A' | 'B' | 'C' | 'D') => {
    for (const term of splitDocumentTerms(text)) {
      position = Math.min(position + 1, MAX_POSITION);
      const list = positions.get(term) ?? [];
      if (list.length < MAX_POSITIONS) list.push(`${position}${weight}`);
      positions.set(term, list);
    }
  };
  add(fields.name, 'A');
  add(fields.tags.join(' '), 'B');
  add(fields.toolNames.join(' '), 'C');
  add(fields.description, 'D');
  return [...positions].map(([term, list]) => `${quoteLexeme(term)}:${list.join(',')}`).join(' ');
}

/**
 * A `tsvector` literal of every prefix of every term of `texts` (`j`, `ji`, `jir`, `jira`),
 * without positions: what search matches against. A prefix query then looks up exact
 * lexemes in the GIN index, which intersects their lists quickly; a `:*` prefix query
 * instead collects every posting of every lexeme in the prefix's range before intersecting,
 * several times slower for common words over 100 000 packs.
 */
export function buildPrefixVector(texts: readonly string[]): string {
  const prefixes = new Set<string>();
  for (const term of texts.flatMap(splitDocumentTerms)) {
    const characters = Array.from(term);
    for (let length = 1; length <= characters.length; length += 1)
      prefixes.add(characters.slice(0, length).join(''));
  }
  return [...prefixes].map(quoteLexeme).join(' ');
}

export interface SearchTsquery {
  /** Every term as an exact lexeme: for the prefix vectors ({@link buildPrefixVector}). */
  exact: string;
  /** Every term as a prefix (`:*`): for ranking on the search vector. */
  prefix: string;
}

/**
 * `tsquery` literals requiring every term of the user's words as a prefix (`jir` finds
 * `jira`), for `$1::tsquery`. Each term is a quoted lexeme, so `&`, `|`, `!`, `<->`, `:*`
 * and parentheses in user text are never operators (and splitting has removed them anyway).
 * Undefined when the words hold no searchable term.
 */
export function buildSearchTsquery(words: readonly string[]): SearchTsquery | undefined {
  const terms = [...new Set(splitSearchTerms(words.join(' ')).map(foldDiacritics))].filter(
    (term) => term !== '',
  );
  if (terms.length === 0) return undefined;
  const join = (suffix: string) => terms.map((term) => `${quoteLexeme(term)}${suffix}`).join(' & ');
  return { exact: join(''), prefix: join(':*') };
}

function splitDocumentTerms(text: string): string[] {
  return splitIndexTerms(text)
    .map(foldDiacritics)
    .filter((term) => term !== '');
}

/** `café` and `cafe` are one term, as with SQLite's `remove_diacritics`. */
function foldDiacritics(term: string): string {
  return term
    .normalize('NFD')
    .replace(/\p{Mn}/gu, '')
    .normalize('NFC');
}

function quoteLexeme(term: string): string {
  return `'${term.replaceAll('\\', '\\\\').replaceAll("'", "''")}'`;
}

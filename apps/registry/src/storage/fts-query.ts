/** More words than this add nothing to a pack search but cost time. */
export const MAX_QUERY_TERMS = 16;
const MAX_TERM_LENGTH = 64;

/**
 * Cuts user text into the terms FTS5's unicode61 tokenizer would index: runs of letters
 * and digits. Everything else (quotes, `*`, `(`, `:`, `-`, `^`) is a separator, exactly as
 * it is when the documents are indexed, so no user character ever reaches FTS5's syntax.
 */
export function splitSearchTerms(text: string): string[] {
  const terms: string[] = [];
  for (const term of splitIndexTerms(text)) {
    if (!terms.includes(term)) terms.push(term);
    if (terms.length === MAX_QUERY_TERMS) break;
  }
  return terms;
}

/**
 * Every term of a document in order, repeats kept, cut as {@link splitSearchTerms} cuts a
 * query: for a store that tokenizes documents itself (PostgreSQL), so that both sides of a
 * match always agree on what a term is.
 */
export function splitIndexTerms(text: string): string[] {
  return Array.from(text.normalize('NFKC').matchAll(/[\p{L}\p{N}\p{Co}]+/gu), (match) =>
    match[0].slice(0, MAX_TERM_LENGTH).toLowerCase(),
  );
}

/**
 * An FTS5 MATCH expression requiring every term (as a prefix, so `jir` finds `jira`).
 * Each term is also written as an FTS5 string: `OR`, `NEAR` and `AND` are words to search
 * for, not operators. Undefined when the text has no searchable term.
 */
export function buildFtsQuery(words: readonly string[]): string | undefined {
  const terms = splitSearchTerms(words.join(' '));
  if (terms.length === 0) return undefined;
  return terms.map((term) => `"${term.replaceAll('"', '""')}"*`).join(' ');
}

import fc from 'fast-check';
import { DatabaseSync } from 'node:sqlite';
import { describe, expect, it } from 'vitest';
import { ftsSyntaxPiece } from './fts-arbitraries.ts';
import { MAX_QUERY_TERMS, buildFtsQuery, splitSearchTerms } from './fts-query.ts';
import { fuzzRuns } from '@toolpack/fuzz-runs';

describe('splitSearchTerms', () => {
  it('keeps runs of letters and digits, lowercased and deduplicated', () => {
    expect(splitSearchTerms('Jira  issues, JIRA! get_issue v2')).toEqual([
      'jira',
      'issues',
      'get',
      'issue',
      'v2',
    ]);
    expect(splitSearchTerms('Ünïcode café 東京')).toEqual(['ünïcode', 'café', '東京']);
  });

  it('drops every FTS5 operator character', () => {
    expect(splitSearchTerms('"a" * (b) NEAR(c d) e:f ^g {h} -i +j')).toEqual([
      'a',
      'b',
      'near',
      'c',
      'd',
      'e',
      'f',
      'g',
      'h',
      'i',
      'j',
    ]);
    expect(splitSearchTerms('"*()":^-+{}')).toEqual([]);
  });

  it(`keeps at most ${MAX_QUERY_TERMS} terms`, () => {
    expect(splitSearchTerms(Array.from({ length: 40 }, (_, i) => `w${i}`).join(' '))).toHaveLength(
      MAX_QUERY_TERMS,
    );
  });
});

describe('buildFtsQuery', () => {
  it('quotes each term as an FTS5 string with a prefix star', () => {
    expect(buildFtsQuery(['jira', 'OR', 'NEAR(x'])).toBe('"jira"* "or"* "near"* "x"*');
    expect(buildFtsQuery(["'; DROP TABLE packs; --"])).toBe('"drop"* "table"* "packs"*');
    expect(buildFtsQuery(['"', '*'])).toBeUndefined();
  });

  it('always builds a MATCH expression FTS5 accepts (fuzz)', () => {
    const db = new DatabaseSync(':memory:');
    db.exec("CREATE VIRTUAL TABLE t USING fts5(a, tokenize = 'unicode61 remove_diacritics 2')");
    db.prepare('INSERT INTO t (a) VALUES (?)').run('alpha beta gamma');
    const match = db.prepare('SELECT count(*) AS n FROM t WHERE t MATCH ?');
    fc.assert(
      fc.property(
        fc.array(fc.oneof(fc.string(), fc.string({ unit: 'binary' }), ftsSyntaxPiece), {
          maxLength: 30,
        }),
        (parts) => {
          const query = buildFtsQuery([parts.join('')]);
          if (query !== undefined) expect(() => match.get(query)).not.toThrow();
        },
      ),
      { numRuns: fuzzRuns(3000) },
    );
    db.close();
  });
});

import { performance } from 'node:perf_hooks';
import type { ToolDefinition } from '@toolpack/core';
import { createToolSearchIndex } from '@toolpack/discovery';
import type { SearchQuery } from './make-queries.ts';
import { searchNaively } from './naive-search.ts';

/** A query whose tool did not come first: what an author reads to improve a description. */
export interface SearchMiss {
  query: string;
  expected: string;
  /** 1-based place of the expected tool among the first five, or null when it is not there. */
  place: number | null;
  /** The names ranked first, best first (at most five). */
  ranked: string[];
}

export interface RankerScore {
  /** Share of queries whose tool came first. */
  recallAt1: number;
  /** Share of queries whose tool was among the first five. */
  recallAt5: number;
  /** Mean time per query (the index is built beforehand); varies by machine. */
  msPerQuery: number;
  /** Only when asked for (`misses: true`), and only for find_tools. */
  misses?: SearchMiss[];
}

export interface SearchScores {
  findTools: RankerScore;
  naive: RankerScore;
  /** Building find_tools' index once, as the server does per reload. */
  indexMs: number;
}

function score(
  queries: readonly SearchQuery[],
  rank: (query: string) => string[],
  collectMisses: boolean,
): RankerScore {
  let first = 0;
  let topFive = 0;
  const ranked: string[][] = [];
  const started = performance.now();
  for (const { query, expected } of queries) {
    const names = rank(query);
    if (names[0] === expected) first++;
    if (names.includes(expected)) topFive++;
    if (collectMisses) ranked.push(names);
  }
  const elapsed = performance.now() - started;
  const share = (n: number) => (queries.length === 0 ? 0 : n / queries.length);
  const result: RankerScore = {
    recallAt1: share(first),
    recallAt5: share(topFive),
    msPerQuery: queries.length === 0 ? 0 : elapsed / queries.length,
  };
  // Collected after the clock stopped, so asking for misses does not change the timing.
  if (collectMisses) {
    result.misses = queries.flatMap(({ query, expected }, i) => {
      const names = ranked[i] ?? [];
      if (names[0] === expected) return [];
      const place = names.indexOf(expected);
      return [{ query, expected, place: place === -1 ? null : place + 1, ranked: names }];
    });
  }
  return result;
}

/** Recall@1 and recall@5 of find_tools' ranking and of the naive floor on the same queries. */
export function measureSearch(
  tools: readonly ToolDefinition[],
  queries: readonly SearchQuery[],
  options: { misses?: boolean } = {},
): SearchScores {
  const started = performance.now();
  const index = createToolSearchIndex(tools);
  const indexMs = performance.now() - started;
  return {
    findTools: score(
      queries,
      (query) => index.search(query, 5).map((match) => match.name),
      options.misses === true,
    ),
    naive: score(queries, (query) => searchNaively(tools, query, 5), false),
    indexMs,
  };
}

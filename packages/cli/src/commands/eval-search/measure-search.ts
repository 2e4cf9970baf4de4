import { performance } from 'node:perf_hooks';
import type { ToolDefinition } from '@toolpack/core';
import { createToolSearchIndex } from '@toolpack/discovery';
import type { SearchQuery } from './make-queries.ts';
import { searchNaively } from './naive-search.ts';

export interface RankerScore {
  /** Share of queries whose tool came first. */
  recallAt1: number;
  /** Share of queries whose tool was among the first five. */
  recallAt5: number;
  /** Mean time per query (the index is built beforehand); varies by machine. */
  msPerQuery: number;
}

export interface SearchScores {
  findTools: RankerScore;
  naive: RankerScore;
  /** Building find_tools' index once, as the server does per reload. */
  indexMs: number;
}

function score(queries: readonly SearchQuery[], rank: (query: string) => string[]): RankerScore {
  let first = 0;
  let topFive = 0;
  const started = performance.now();
  for (const { query, expected } of queries) {
    const names = rank(query);
    if (names[0] === expected) first++;
    if (names.includes(expected)) topFive++;
  }
  const elapsed = performance.now() - started;
  const share = (n: number) => (queries.length === 0 ? 0 : n / queries.length);
  return {
    recallAt1: share(first),
    recallAt5: share(topFive),
    msPerQuery: queries.length === 0 ? 0 : elapsed / queries.length,
  };
}

/** Recall@1 and recall@5 of find_tools' ranking and of the naive floor on the same queries. */
export function measureSearch(
  tools: readonly ToolDefinition[],
  queries: readonly SearchQuery[],
): SearchScores {
  const started = performance.now();
  const index = createToolSearchIndex(tools);
  const indexMs = performance.now() - started;
  return {
    findTools: score(queries, (query) => index.search(query, 5).map((match) => match.name)),
    naive: score(queries, (query) => searchNaively(tools, query, 5)),
    indexMs,
  };
}

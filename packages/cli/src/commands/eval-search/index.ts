import type { SourceSpec } from '@toolpack/core';
import type { CommandContext } from '../../io.ts';
import type { SourceFlagValues } from '../../source-flags.ts';
import { describeCorpus, loadCorpus, type CorpusSpec } from './load-corpus.ts';
import { makeQueries } from './make-queries.ts';
import { measureSearch, type SearchScores } from './measure-search.ts';

export interface EvalSearchOptions extends CommandContext {
  corpora: CorpusSpec[];
  /** Seeds the generated corpus and the queries; held-out queries use `seed + HELD_OUT_OFFSET`. */
  seed: number;
  sources: SourceSpec[];
  flags: SourceFlagValues;
  /** Measure at most this many queries per corpus, spread evenly over the tools. */
  maxQueries?: number;
  /** List the queries find_tools did not answer with their tool first. */
  misses?: boolean;
}

export interface CorpusResult extends SearchScores {
  corpus: string;
  /** `seed N`, or `held out (seed M)`: queries ranking was never tuned on. */
  queries: string;
  tools: number;
  queryCount: number;
}

export interface EvalSearchReport {
  results: CorpusResult[];
}

function sampleEvenly<T>(items: T[], max: number | undefined): T[] {
  if (max === undefined || items.length <= max) return items;
  return Array.from({ length: max }, (_, i) => items[Math.floor((i * items.length) / max)] as T);
}

/** Held-out queries differ in every random choice of the paraphrase. */
export const HELD_OUT_OFFSET = 1_000;

/**
 * Measures find_tools on each corpus: queries paraphrased from the tools' descriptions and
 * example descriptions, each expecting the tool it came from, ranked by find_tools and by the
 * naive floor. The generated corpus is also measured on held-out queries.
 */
export async function evalSearch(options: EvalSearchOptions): Promise<EvalSearchReport> {
  const results: CorpusResult[] = [];
  for (const spec of options.corpora) {
    const { tools, queried } = await loadCorpus(spec, options);
    const seeds = spec.kind.endsWith('generated')
      ? [options.seed, options.seed + HELD_OUT_OFFSET]
      : [options.seed];
    for (const [i, seed] of seeds.entries()) {
      const queries = sampleEvenly(makeQueries(queried, seed), options.maxQueries);
      results.push({
        corpus: describeCorpus(spec),
        queries: i === 0 ? `seed ${seed}` : `held out (seed ${seed})`,
        tools: tools.length,
        queryCount: queries.length,
        ...measureSearch(tools, queries, { misses: options.misses === true }),
      });
    }
  }
  return { results };
}

import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { splitWords } from '@toolpack/discovery';
import { generateCorpus } from './generate-corpus.ts';
import { evalSearch } from './index.ts';
import { parseCorpus } from './load-corpus.ts';
import { makeQueries, paraphrase } from './make-queries.ts';
import { searchNaively } from './naive-search.ts';
import { createSeededRandom } from './seeded-random.ts';

const repo = path.resolve(import.meta.dirname, '..', '..', '..', '..', '..');

describe('generateCorpus', () => {
  it('is the same for the same seed, with unique names in three naming styles', () => {
    const tools = generateCorpus({ size: 1_000, seed: 1 });
    expect(tools).toHaveLength(1_000);
    expect(generateCorpus({ size: 1_000, seed: 1 })).toEqual(tools);
    expect(new Set(tools.map((tool) => tool.name)).size).toBe(1_000);
    const names = tools.map((tool) => tool.name);
    expect(names.some((name) => /^[A-Z][a-z]+-[A-Za-z]+$/.test(name))).toBe(true);
    expect(names.some((name) => /^[a-z0-9]+(_[a-z0-9]+)+$/.test(name))).toBe(true);
    expect(names.some((name) => /^[a-z]+[A-Z][A-Za-z]+$/.test(name))).toBe(true);
    expect(generateCorpus({ size: 1_000, seed: 2 }).map((tool) => tool.name)).not.toEqual(names);
  });

  it('holds near-duplicates: the same verb and entity over several systems', () => {
    const tools = generateCorpus({ size: 1_000, seed: 1 });
    const createIssue = tools.filter((tool) => {
      const words = splitWords(tool.name);
      return words.includes('issue') && (words.includes('create') || words.includes('new'));
    });
    expect(createIssue.length).toBeGreaterThanOrEqual(3);
  });

  it('grows past 1,000 with more instances of each system, names still unique', () => {
    const tools = generateCorpus({ size: 10_000, seed: 3 });
    expect(new Set(tools.map((tool) => tool.name)).size).toBe(10_000);
  });
});

describe('queries', () => {
  it('paraphrase keeps some content words of the first sentence, never the text itself', () => {
    const text = 'Creates a new issue in the Jira project. Returns its key.';
    const query = paraphrase(text, createSeededRandom(1));
    const words = query.split(' ');
    expect(words.length).toBe(4);
    for (const word of words)
      expect(['creates', 'new', 'issue', 'jira', 'project']).toContain(word);
    expect(text.toLowerCase()).not.toContain(query);
    expect(paraphrase(text, createSeededRandom(1))).toBe(query);
  });

  it('makes one query per description and per example description, each expecting its tool', () => {
    const tools = generateCorpus({ size: 50, seed: 1 });
    const queries = makeQueries(tools, 1);
    const examples = tools.reduce((n, tool) => n + (tool.inputExamples?.length ?? 0), 0);
    expect(queries).toHaveLength(50 + examples);
    expect(queries[0]).toMatchObject({ expected: tools[0]?.name, from: 'description' });
    expect(makeQueries(tools, 2)).not.toEqual(queries);
  });
});

describe('searchNaively', () => {
  it('counts query words found as substrings, ties in catalogue order', () => {
    const tools = generateCorpus({ size: 30, seed: 1 });
    const found = searchNaively(tools, 'jira issue', 5);
    expect(found).toHaveLength(5);
    expect(searchNaively(tools, 'zebra', 5)).toEqual([]);
  });
});

describe('evalSearch', () => {
  it('find_tools reaches recall@5 >= 0.9 on the generated corpus, tuning and held-out queries, above the naive floor', async () => {
    const { results } = await evalSearch({
      cwd: repo,
      env: process.env,
      sources: [],
      flags: { cache: false },
      seed: 1,
      corpora: [parseCorpus('generated')],
    });
    expect(results.map((r) => r.queries)).toEqual(['seed 1', 'held out (seed 1001)']);
    for (const result of results) {
      expect(result.tools).toBe(1_000);
      expect(result.findTools.recallAt5).toBeGreaterThanOrEqual(0.9);
      expect(result.findTools.recallAt1).toBeGreaterThan(result.naive.recallAt1 + 0.1);
      expect(result.findTools.recallAt5).toBeGreaterThan(result.naive.recallAt5 + 0.05);
    }
  });

  it('queries only the official tools of official+generated, among all of them', async () => {
    const { results } = await evalSearch({
      cwd: repo,
      env: process.env,
      sources: [],
      flags: { cache: false },
      seed: 1,
      corpora: [parseCorpus('official'), parseCorpus('official+generated:300')],
    });
    const [official, mixed] = results;
    expect(mixed).toMatchObject({ corpus: 'official+generated:300', queries: 'seed 1' });
    expect(mixed?.tools).toBe((official?.tools ?? 0) + 300);
    expect(mixed?.queryCount).toBe(official?.queryCount);
    expect(mixed?.findTools.recallAt5).toBeGreaterThanOrEqual(0.9);
  });

  it('measures at most maxQueries queries, spread over the corpus', async () => {
    const { results } = await evalSearch({
      cwd: repo,
      env: process.env,
      sources: [],
      flags: {},
      seed: 1,
      maxQueries: 100,
      corpora: [parseCorpus('generated:200')],
    });
    expect(results.map((r) => [r.tools, r.queryCount])).toEqual([
      [200, 100],
      [200, 100],
    ]);
  });

  it('lists the misses when asked: each query find_tools did not answer with its tool first', async () => {
    const run = (misses: boolean) =>
      evalSearch({
        cwd: repo,
        env: process.env,
        sources: [],
        flags: {},
        seed: 1,
        maxQueries: 200,
        misses,
        corpora: [parseCorpus('generated:300')],
      });
    const [result] = (await run(true)).results;
    const misses = result?.findTools.misses ?? [];
    expect(misses.length).toBe(Math.round((1 - (result?.findTools.recallAt1 ?? 1)) * 200));
    expect(misses.length).toBeGreaterThan(0);
    for (const miss of misses) {
      expect(miss.ranked[0]).not.toBe(miss.expected);
      expect(miss.place === null ? -1 : miss.ranked[miss.place - 1]).toBe(
        miss.place === null ? -1 : miss.expected,
      );
    }
    // Not asked: no list, and the naive floor never carries one.
    const [plain] = (await run(false)).results;
    expect(plain?.findTools.misses).toBeUndefined();
    expect(result?.naive.misses).toBeUndefined();
  });

  it('refuses an unknown corpus with the names it takes', () => {
    expect(() => parseCorpus('offical')).toThrow(/Unknown corpus "offical"/);
    expect(() => parseCorpus('project:5')).toThrow(/Unknown corpus/);
    expect(parseCorpus('generated:5000')).toEqual({ kind: 'generated', size: 5_000 });
    expect(parseCorpus('official+generated')).toEqual({ kind: 'official+generated' });
  });
});

// Benchmark: how well and how fast find_tools ranks (issue 19). Runs `mcp eval-search` on the
// official corpus (first-party packs and examples), the generated 1,000-tool corpus with its
// held-out queries, the official tools among the generated ones, and a generated 10,000-tool
// corpus for the time per query, each beside the naive substring matcher measured on the
// same queries. Target: recall@5 >= 0.9.
//
//   pnpm --filter @toolpack/bench bench:search-quality
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const repo = path.join(import.meta.dirname, '..');
const cli = path.join(repo, 'packages', 'cli', 'src', 'bin.ts');

interface Ranker {
  recallAt1: number;
  recallAt5: number;
  msPerQuery: number;
}
interface CorpusResult {
  corpus: string;
  queries: string;
  tools: number;
  queryCount: number;
  findTools: Ranker;
  naive: Ranker;
  indexMs: number;
}

function evalSearch(corpora: string[], extra: string[] = []): CorpusResult[] {
  const run = spawnSync(
    process.execPath,
    [
      '--conditions=@toolpack/source',
      cli,
      '-C',
      repo,
      'eval-search',
      ...corpora.flatMap((corpus) => ['--corpus', corpus]),
      ...extra,
      '--json',
    ],
    { encoding: 'utf8', env: { ...process.env, NO_COLOR: '1' }, maxBuffer: 64 * 1024 * 1024 },
  );
  if (run.status !== 0) throw new Error(`mcp eval-search failed (${run.status}): ${run.stderr}`);
  return (JSON.parse(run.stdout) as { results: CorpusResult[] }).results;
}

const quality = evalSearch(['official', 'generated', 'official+generated']);
// 2,000 queries are plenty for a time per query; all 20,000 would take minutes of the naive matcher.
const scale = evalSearch(['generated:10000'], ['--queries', '2000']);
const percent = (n: number) => `${(n * 100).toFixed(1)}%`;
console.log(
  '| corpus | queries | tools | n | find_tools @1 | @5 | naive @1 | @5 | ms/query find / naive |',
);
console.log('|---|---|---|---|---|---|---|---|---|');
for (const r of [...quality, ...scale]) {
  console.log(
    `| ${r.corpus} | ${r.queries} | ${r.tools} | ${r.queryCount} | ${percent(r.findTools.recallAt1)} | ${percent(r.findTools.recallAt5)} | ${percent(r.naive.recallAt1)} | ${percent(r.naive.recallAt5)} | ${r.findTools.msPerQuery.toFixed(3)} / ${r.naive.msPerQuery.toFixed(3)} |`,
  );
}
const out = path.join(import.meta.dirname, 'out');
mkdirSync(out, { recursive: true });
writeFileSync(
  path.join(out, 'search-quality.json'),
  `${JSON.stringify({ date: new Date().toISOString(), cores: os.availableParallelism(), node: process.version, targetRecallAt5: 0.9, quality, scale }, null, 2)}\n`,
);

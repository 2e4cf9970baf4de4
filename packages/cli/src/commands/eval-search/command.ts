import { Command } from 'commander';
import type { SourceSpec } from '@toolpack/core';
import { EXIT_OK } from '../../exit-codes.ts';
import type { CliIo } from '../../io.ts';
import { collect, parseCount } from '../../option-parsers.ts';
import { renderTable } from '../../render-table.ts';
import { addSourceFlags, type SourceFlagValues } from '../../source-flags.ts';
import { evalSearch, type EvalSearchReport } from './index.ts';
import { parseCorpus } from './load-corpus.ts';

interface EvalSearchFlags extends SourceFlagValues {
  corpus?: string[];
  seed?: string;
  queries?: number;
  json?: boolean;
  misses?: boolean;
}

/** Misses printed per corpus in the table; --json lists them all. */
const MISSES_SHOWN = 20;

function renderMisses(report: EvalSearchReport): string {
  const parts: string[] = [];
  for (const result of report.results) {
    const misses = result.findTools.misses ?? [];
    if (misses.length === 0) continue;
    parts.push(
      `\n${result.corpus}, ${result.queries}: ${misses.length} queries did not find their tool first`,
    );
    for (const miss of misses.slice(0, MISSES_SHOWN)) {
      const place = miss.place === null ? 'not in the first five' : `#${miss.place}`;
      parts.push(
        `  "${miss.query}" -> ${miss.expected} ${place}; ranked: ${miss.ranked.join(', ') || '(nothing)'}`,
      );
    }
    if (misses.length > MISSES_SHOWN)
      parts.push(`  ... ${misses.length - MISSES_SHOWN} more (--json lists them all)`);
  }
  return parts.length === 0 ? '' : `${parts.join('\n')}\n`;
}

const percent = (share: number) => `${(share * 100).toFixed(1)}%`;

function renderReport(report: EvalSearchReport): string {
  const rows = report.results.map((r) => [
    r.corpus,
    r.queries,
    String(r.tools),
    String(r.queryCount),
    percent(r.findTools.recallAt1),
    percent(r.findTools.recallAt5),
    percent(r.naive.recallAt1),
    percent(r.naive.recallAt5),
    `${r.findTools.msPerQuery.toFixed(3)} / ${r.naive.msPerQuery.toFixed(3)}`,
  ]);
  return `${renderTable(
    [
      { title: 'CORPUS', max: 18 },
      { title: 'QUERIES', max: 24 },
      { title: 'TOOLS', max: 6 },
      { title: 'N', max: 6 },
      { title: 'FIND@1', max: 7 },
      { title: 'FIND@5', max: 7 },
      { title: 'NAIVE@1', max: 7 },
      { title: 'NAIVE@5', max: 7 },
      { title: 'MS/QUERY (FIND / NAIVE)', max: 24 },
    ],
    rows,
    Number.POSITIVE_INFINITY,
  )}\nFIND: find_tools' ranking; NAIVE: query words found as substrings of name and description (the floor).\n@1, @5: share of queries whose tool came first, among the first five.\n`;
}

export function createEvalSearchCommand(io: CliIo, done: (code: number) => void): Command {
  const sources: SourceSpec[] = [];
  const command = new Command('eval-search')
    .description(
      "Measure find_tools' ranking (recall@1, recall@5) against a naive substring matcher",
    )
    .option(
      '--corpus <name>',
      'project (what mcp list serves; the default), official (registry/packs/* and examples/ of a Toolpack checkout), generated[:N] (N tools, default 1000), official+generated[:N] (the official tools among N generated ones); repeatable',
      collect,
    )
    .option('--seed <n>', 'seeds the generated corpus and the queries (default 1)')
    .option(
      '--queries <n>',
      'measure at most n queries per corpus, spread evenly over its tools (default: all)',
      parseCount,
    )
    .option('--json', 'print {"results": [...]} instead of a table')
    .option(
      '--misses',
      "list the queries find_tools did not answer with their tool first, and what it ranked instead (to improve a tool's description)",
    );
  addSourceFlags(command, sources);
  command.addHelpText(
    'after',
    `
Each query is made from a tool's description or one of its input examples' descriptions: the
first sentence, its content words only, one of them dropped, the rest shuffled, at most five.
The right answer is that tool. find_tools' ranking and a naive substring matcher (the floor)
rank the same queries; recall@1 and @5 are the shares of queries whose tool came first or in
the first five. The generated corpus (20 systems x 5 entities x 10 verbs, snake_case,
camelCase and PowerShell names, near-duplicates differing in one word) is also measured on
held-out queries (seed + 1000), which the ranking was never tuned on; official+generated puts
the official tools among the generated ones and queries the official tools only. Times vary
by machine.

Examples:
  mcp eval-search                             # the tools of ./toolpack.yaml
  mcp -C ~/src/toolpack eval-search --corpus official --corpus generated --corpus official+generated
  mcp eval-search --corpus generated:10000 --queries 2000 --seed 7 --json
  mcp eval-search --misses                    # which of my tools a search does not find first

Exit codes: 0 measured, 1 a corpus has no tools, 2 bad flags.`,
  );
  command.action(async (flags: EvalSearchFlags) => {
    const seed = flags.seed === undefined ? 1 : Number(flags.seed);
    if (!Number.isSafeInteger(seed) || seed < 0) {
      command.error(`error: option '--seed <n>' expects a whole number >= 0, got ${flags.seed}`, {
        exitCode: 2,
      });
    }
    const report = await evalSearch({
      cwd: io.cwd,
      env: io.env,
      sources,
      flags,
      seed,
      ...(flags.queries === undefined ? {} : { maxQueries: flags.queries }),
      ...(flags.misses === true ? { misses: true } : {}),
      corpora: (flags.corpus ?? ['project']).map(parseCorpus),
    });
    io.stdout.write(
      flags.json
        ? `${JSON.stringify(report, null, 2)}\n`
        : `${renderReport(report)}${renderMisses(report)}`,
    );
    done(EXIT_OK);
  });
  return command;
}

import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { collectCorpusFacts, isolatedHome } from './collect-corpus-facts.ts';
import { compareCorpus, corpusEntries, type ItemOutcome } from './compare-corpus.ts';
import type { Baseline } from './corpus-report.ts';

export const baselinePath = path.join(import.meta.dirname, 'baseline.json');
export const reportPath = path.join(import.meta.dirname, '../../docs/powershell-corpus.md');

/** The whole corpus through pwsh can take a while on a loaded 2-core machine. */
export const CORPUS_TIMEOUT_MS = 10 * 60_000;

export function readBaseline(): Baseline {
  return JSON.parse(readFileSync(baselinePath, 'utf8')) as Baseline;
}

/**
 * The comparison of the whole corpus: one pwsh process for PowerShell's facts, then Toolpack's
 * reading of the same files, in a temporary folder that is removed afterwards.
 */
export async function runCorpusComparison(): Promise<{
  psVersion: string;
  engine: 'engine' | 'full';
  outcomes: ItemOutcome[];
}> {
  const work = mkdtempSync(path.join(tmpdir(), 'toolpack-corpus-'));
  try {
    const { entries, preludes } = corpusEntries();
    const facts = await collectCorpusFacts({
      entries,
      preludes,
      workDir: work,
      timeoutMs: CORPUS_TIMEOUT_MS,
    });
    // Toolpack imports some of these modules in pwsh too (the exports only the engine can tell),
    // with this process's environment: its home is the temporary one as well.
    const saved = Object.fromEntries(
      Object.keys(isolatedHome(work)).map((name) => [name, process.env[name]]),
    );
    Object.assign(process.env, isolatedHome(work));
    try {
      const outcomes = await compareCorpus(facts, { cwd: work });
      return { psVersion: facts.psVersion, engine: facts.engine, outcomes };
    } finally {
      for (const [name, value] of Object.entries(saved)) {
        if (value === undefined) delete process.env[name];
        else process.env[name] = value;
      }
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

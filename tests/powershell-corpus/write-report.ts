// `pnpm powershell-corpus [--update-baseline]`: runs the corpus comparison with the pwsh on PATH
// and rewrites docs/powershell-corpus.md (and, with the flag, baseline.json) from it.
import { existsSync, writeFileSync } from 'node:fs';
import { format, resolveConfig } from 'prettier';
import { buildBaseline, checkBaseline, renderReport } from './corpus-report.ts';
import { baselinePath, readBaseline, reportPath, runCorpusComparison } from './run-corpus.ts';

const update = process.argv.includes('--update-baseline');
const { psVersion, engine, outcomes } = await runCorpusComparison();
if (engine !== 'full') {
  console.error(`The corpus needs a full pwsh; the one on PATH is the bare engine ${psVersion}.`);
  process.exit(2);
}
const previous = existsSync(baselinePath) ? readBaseline() : undefined;
const baseline = update || previous === undefined ? buildBaseline(outcomes, previous) : previous;
// In the repository's own format, so `pnpm check` (prettier --check) passes as written.
if (update || previous === undefined)
  writeFileSync(
    baselinePath,
    await format(JSON.stringify(baseline, null, 2), {
      ...(await resolveConfig(baselinePath)),
      filepath: baselinePath,
    }),
  );
writeFileSync(reportPath, renderReport(outcomes, { psVersion, baseline }));
const { unexpected, gone } = checkBaseline(outcomes, baseline);
for (const outcome of outcomes)
  console.log(
    `${outcome.item.title}: pwsh ${outcome.pwshCommands}, Toolpack lists ${outcome.listed}, ${outcome.differences.length} disagreements`,
  );
console.log(
  `wrote ${reportPath}${update ? ` and ${baselinePath}` : ''}; not in the baseline: ${unexpected.length}, baselined but gone: ${gone.length}`,
);

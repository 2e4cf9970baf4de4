// `pnpm test`: vitest run (arguments passed on), then the summary as the last lines — the
// skipped tests and why, and the counts — with vitest's exit code.
import { spawnSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import path from 'node:path';

const root = path.join(import.meta.dirname, '..');
const results = path.join(root, '.vitest', 'results.json');
// A report left by an earlier run must not pass for this one's.
rmSync(results, { force: true });
const vitest = spawnSync(
  process.execPath,
  [path.join(root, 'node_modules', 'vitest', 'vitest.mjs'), 'run', ...process.argv.slice(2)],
  { cwd: root, stdio: 'inherit' },
);
spawnSync(process.execPath, [path.join(import.meta.dirname, 'print-test-summary.mjs'), results], {
  cwd: root,
  stdio: 'inherit',
});
process.exitCode = vitest.status ?? 1;

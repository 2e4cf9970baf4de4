// Benchmark: per-call latency through @toolpack/runners (p50/p99) for a JS module tool, a bash
// script tool and, where pwsh exists, a PowerShell script and module tool, side by side with
// their floors measured in the same run: a bare `bash echo_script.sh` spawn and a bare
// `pwsh -NoProfile -File` per call; plus 8 parallel PowerShell script calls against one.
//
//   pnpm build && pnpm --filter @toolpack/bench bench:runners [--calls 200]
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import type { DiscoveredTool } from '@toolpack/core';
import { discoverTools } from '@toolpack/discovery';
import { createToolRunner } from '@toolpack/runners';
import { percentile } from './measure.ts';

const { values } = parseArgs({
  args: process.argv.slice(2).filter((arg) => arg !== '--'),
  options: { calls: { type: 'string', default: '200' } },
});
const calls = Number(values.calls);
const fixtures = path.join(import.meta.dirname, 'fixtures');

async function measure(n: number, once: () => Promise<unknown>): Promise<number[]> {
  for (let i = 0; i < Math.min(10, n); i++) await once(); // warm-up
  const samples: number[] = [];
  for (let i = 0; i < n; i++) {
    const start = process.hrtime.bigint();
    await once();
    samples.push(Number(process.hrtime.bigint() - start) / 1e6);
  }
  return samples;
}

function spawnOnce(command: string, args: string[], input: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: ['pipe', 'pipe', 'ignore'] });
    child.stdout.resume();
    child.on('error', reject);
    child.on('close', () => resolve());
    child.stdin.end(input);
  });
}

const hasPwsh = spawnSync('pwsh', ['-v'], { encoding: 'utf8' }).status === 0;
const { tools } = await discoverTools({
  cwd: fixtures,
  cache: false,
  builtins: false,
  sources: [
    { module: 'echo-tool.mjs' },
    { scripts: '.' },
    ...(hasPwsh ? [{ module: 'EchoModule/EchoModule.psm1' }] : []),
  ],
});
const byKind = (predicate: (tool: DiscoveredTool) => boolean) => tools.find(predicate);
const jsTool = byKind((t) => t.invocation.runner === 'node-worker');
const bashTool = byKind((t) => t.invocation.runner === 'process');
const psScript = byKind((t) => t.invocation.runner === 'pwsh' && t.invocation.mode === 'script');
const psModule = byKind((t) => t.invocation.runner === 'pwsh' && t.invocation.mode === 'module');
if (jsTool === undefined || bashTool === undefined)
  throw new Error('bench fixtures were not discovered');

const runner = createToolRunner({ projectRoot: fixtures, warm: hasPwsh });
const rows: {
  scenario: string;
  p50: number;
  p99: number;
  floor?: string;
  floorP50?: number;
  target: string;
  met?: boolean;
}[] = [];
try {
  const js = await measure(calls, () => runner.call(jsTool, { text: 'hi' }));
  rows.push({
    scenario: 'JS module tool (worker)',
    p50: percentile(js, 50),
    p99: percentile(js, 99),
    target: 'reported',
  });

  const bash = await measure(calls, () => runner.call(bashTool, { text: 'hi' }));
  const bareBash = await measure(calls, () =>
    spawnOnce('bash', [path.join(fixtures, 'echo_script.sh')], '{"text":"hi"}'),
  );
  const bashRatio = percentile(bash, 50) / percentile(bareBash, 50);
  rows.push({
    scenario: 'bash script tool (process per call)',
    p50: percentile(bash, 50),
    p99: percentile(bash, 99),
    floor: 'bare `bash echo_script.sh` spawn',
    floorP50: percentile(bareBash, 50),
    target: `within 2x of the floor (${bashRatio.toFixed(2)}x)`,
    met: bashRatio <= 2,
  });

  if (hasPwsh && psScript && psModule) {
    const ps = await measure(calls, () => runner.call(psScript, { Text: 'hi' }));
    const bare = await measure(Math.min(calls, 20), () =>
      spawnOnce(
        'pwsh',
        [
          '-NoProfile',
          '-NonInteractive',
          '-File',
          path.join(fixtures, 'Echo-Text.ps1'),
          '-Text',
          'hi',
        ],
        '',
      ),
    );
    const speedup = percentile(bare, 50) / percentile(ps, 50);
    rows.push({
      scenario: 'PowerShell script tool (warm runspace)',
      p50: percentile(ps, 50),
      p99: percentile(ps, 99),
      floor: '`pwsh -NoProfile -File` per call',
      floorP50: percentile(bare, 50),
      target: `p50 < 10 ms and >= 30x faster than pwsh -File (${speedup.toFixed(0)}x)`,
      met: percentile(ps, 50) < 10 && speedup >= 30,
    });
    const mod = await measure(calls, () => runner.call(psModule, { Text: 'hi' }));
    rows.push({
      scenario: 'PowerShell module tool (shared runspace)',
      p50: percentile(mod, 50),
      p99: percentile(mod, 99),
      target: 'reported',
    });
    const one = await measure(20, () => runner.call(psScript, { Text: 'hi' }));
    const eight = await measure(20, () =>
      Promise.all(Array.from({ length: 8 }, () => runner.call(psScript, { Text: 'hi' }))),
    );
    const parallelRatio = percentile(eight, 50) / percentile(one, 50);
    rows.push({
      scenario: '8 parallel PowerShell script calls',
      p50: percentile(eight, 50),
      p99: percentile(eight, 99),
      floor: 'one call',
      floorP50: percentile(one, 50),
      target: `within 1.5x of one call (${parallelRatio.toFixed(2)}x)`,
      met: parallelRatio <= 1.5,
    });
  }
} finally {
  await runner.close();
}

console.log(
  `@toolpack/runners per-call latency, ${calls} calls each, ${os.cpus().length} cores, Node ${process.version}`,
);
console.log('| scenario | p50 ms | p99 ms | floor | floor p50 ms | target | met |');
console.log('| --- | ---: | ---: | --- | ---: | --- | --- |');
for (const row of rows) {
  console.log(
    `| ${row.scenario} | ${row.p50.toFixed(2)} | ${row.p99.toFixed(2)} | ${row.floor ?? ''} | ${row.floorP50?.toFixed(2) ?? ''} | ${row.target} | ${row.met === undefined ? '' : row.met ? 'yes' : 'no'} |`,
  );
}
if (!hasPwsh) console.log('PowerShell rows: not measured (pwsh is not installed on this machine).');
const out = path.join(import.meta.dirname, 'out');
mkdirSync(out, { recursive: true });
writeFileSync(
  path.join(out, 'runners.json'),
  JSON.stringify({ calls, cores: os.cpus().length, node: process.version, hasPwsh, rows }, null, 2),
);

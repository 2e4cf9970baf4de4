// Benchmark: `mcp list --json` whole-process time over 1,000 PowerShell scripts, 1,000 dotbot
// tool folders and 1,000 PARAM-header scripts, cold (no cache) and cached. Where pwsh exists,
// the same PowerShell scripts are also listed with Get-Help, side by side.
//
//   pnpm build && pnpm --filter @toolpack/bench bench:discovery [--count 1000] [--runs 5]
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { headerScript } from './measure.ts';

const { values } = parseArgs({
  args: process.argv.slice(2).filter((arg) => arg !== '--'),
  options: { count: { type: 'string', default: '1000' }, runs: { type: 'string', default: '5' } },
});
const count = Number(values.count);
const runs = Number(values.runs);
const cli = path.join(import.meta.dirname, '..', 'packages', 'cli', 'dist', 'bin.mjs');

function psScript(i: number): string {
  return `<#
.SYNOPSIS
Gets widget number ${i} from the store.

.DESCRIPTION
Looks the widget up by its id and returns it with its colour and size.

.PARAMETER Id
The widget id.

.PARAMETER Color
Only return widgets of this colour.

.PARAMETER Limit
How many widgets to return.

.PARAMETER Force
Return the widget even when it is archived.

.NOTES
ReadOnlyHint: true
#>
[CmdletBinding()]
param(
    [Parameter(Mandatory)]
    [string]$Id,

    [ValidateSet('red', 'green', 'blue')]
    [string]$Color = 'red',

    [ValidateRange(1, 100)]
    [int]$Limit = 10,

    [switch]$Force
)
Get-Widget -Id $Id | Select-Object -First $Limit
`;
}

function toolFolder(root: string, i: number): void {
  const dir = path.join(root, `widget-tool-${i}`);
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    path.join(dir, 'metadata.yaml'),
    `name: widget_tool_${i}
description: Does widget thing number ${i}.
inputSchema:
  type: object
  properties:
    id:
      type: string
      description: The widget id.
    limit:
      type: integer
      description: How many.
      minimum: 1
  required: [id]
`,
  );
  writeFileSync(path.join(dir, 'script.sh'), '#!/usr/bin/env bash\ncat\n');
}

function median(samples: number[]): number {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}

function timeList(cwd: string, args: string[], clearCache: boolean): { ms: number; tools: number } {
  if (clearCache) rmSync(path.join(cwd, '.toolpack'), { recursive: true, force: true });
  const start = process.hrtime.bigint();
  const result = spawnSync(
    process.execPath,
    [cli, 'list', '--json', '--max-tools', '100000', ...args],
    {
      cwd,
      encoding: 'utf8',
      maxBuffer: 512 * 1024 * 1024,
    },
  );
  const ms = Number(process.hrtime.bigint() - start) / 1e6;
  if (result.status !== 0) throw new Error(`mcp list failed: ${result.stderr}`);
  return { ms, tools: (JSON.parse(result.stdout) as { tools: unknown[] }).tools.length };
}

const work = mkdtempSync(path.join(os.tmpdir(), 'toolpack-bench-discovery-'));
try {
  const corpora: Record<string, { dir: string; flag: string }> = {
    'PowerShell scripts': { dir: path.join(work, 'ps'), flag: '--script-root' },
    'tool folders': { dir: path.join(work, 'folders'), flag: '--tools-dir' },
    'PARAM-header scripts': { dir: path.join(work, 'headers'), flag: '--script-root' },
  };
  for (const { dir } of Object.values(corpora)) mkdirSync(dir, { recursive: true });
  for (let i = 0; i < count; i++) {
    writeFileSync(path.join(corpora['PowerShell scripts']!.dir, `Get-Widget${i}.ps1`), psScript(i));
    toolFolder(corpora['tool folders']!.dir, i);
    writeFileSync(
      path.join(corpora['PARAM-header scripts']!.dir, `count-words-${i}.sh`),
      headerScript(i),
    );
  }

  const rows: { corpus: string; cold: number; cached: number; tools: number }[] = [];
  for (const [corpus, { dir, flag }] of Object.entries(corpora)) {
    const cold: number[] = [];
    const cached: number[] = [];
    let tools = 0;
    for (let r = 0; r < runs; r++) {
      const c = timeList(work, [flag, dir, '--no-cache'], false);
      cold.push(c.ms);
      tools = c.tools;
    }
    timeList(work, [flag, dir], true); // fills the cache
    timeList(work, [flag, dir], false); // settles entries stored within the racy-mtime window
    for (let r = 0; r < runs; r++) cached.push(timeList(work, [flag, dir], false).ms);
    rows.push({ corpus, cold: median(cold), cached: median(cached), tools });
  }

  let getHelpMs: number | undefined;
  const pwsh = spawnSync('pwsh', ['-v'], { encoding: 'utf8' });
  if (pwsh.status === 0) {
    const script = `Get-ChildItem -LiteralPath '${corpora['PowerShell scripts']!.dir}' -Filter *.ps1 | ForEach-Object { $h = Get-Help $_.FullName; $c = Get-Command $_.FullName; [pscustomobject]@{ name = $_.BaseName; synopsis = $h.Synopsis; parameters = @($c.Parameters.Keys) } } | ConvertTo-Json -Depth 5 | Out-Null`;
    const start = process.hrtime.bigint();
    execFileSync('pwsh', ['-NoProfile', '-NonInteractive', '-Command', script]);
    getHelpMs = Number(process.hrtime.bigint() - start) / 1e6;
  }

  const cores = os.cpus().length;
  console.log(
    `mcp list --json, whole process, median of ${runs} runs, ${cores} cores, Node ${process.version}`,
  );
  console.log('| corpus | tools | cold ms | cached ms | cached/cold | target |');
  console.log('| --- | ---: | ---: | ---: | ---: | --- |');
  for (const row of rows) {
    const target =
      row.corpus === 'PowerShell scripts'
        ? `cold < 1000 ms (${row.cold < 1000 ? 'met' : 'missed'}), cached < 300 ms (${row.cached < 300 ? 'met' : 'missed'})`
        : '';
    console.log(
      `| ${row.corpus} | ${row.tools} | ${row.cold.toFixed(0)} | ${row.cached.toFixed(0)} | ${(row.cached / row.cold).toFixed(2)} | ${target} |`,
    );
  }
  const ps = rows[0]!;
  console.log(
    getHelpMs === undefined
      ? 'Get-Help listing of the same PowerShell scripts: not measured (pwsh is not installed on this machine).'
      : `Get-Help listing of the same ${count} PowerShell scripts: ${getHelpMs.toFixed(0)} ms; mcp list cold is ${(getHelpMs / ps.cold).toFixed(1)}x faster, cached ${(getHelpMs / ps.cached).toFixed(1)}x.`,
  );
  const out = path.join(import.meta.dirname, 'out');
  mkdirSync(out, { recursive: true });
  writeFileSync(
    path.join(out, 'discovery-list.json'),
    JSON.stringify(
      { count, runs, cores, node: process.version, rows, getHelpMs: getHelpMs ?? null },
      null,
      2,
    ),
  );
} finally {
  rmSync(work, { recursive: true, force: true });
}

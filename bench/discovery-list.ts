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
import { pwshEngine } from '@toolpack/pwsh-probe';
import { headerScript } from './measure.ts';

/** Lists a folder's scripts with Get-Help and Get-Command and prints them as one JSON array. */
const GET_HELP_LISTING = `param([string]$Folder)
$ErrorActionPreference = 'Stop'
function ConvertTo-JsonString([string]$Text) { [System.Text.Json.JsonSerializer]::Serialize($Text, [string]) }
$builder = [System.Text.StringBuilder]::new('[')
$first = $true
foreach ($file in [System.IO.Directory]::GetFiles($Folder, '*.ps1')) {
    $help = Get-Help -Name $file -Full
    $command = Get-Command -Name $file
    $parameters = foreach ($p in $help.parameters.parameter) {
        '{"name":' + (ConvertTo-JsonString ($p.name)) +
        ',"type":' + (ConvertTo-JsonString ($command.Parameters[$p.name].ParameterType.Name)) +
        ',"required":' + ([string]$p.required).ToLowerInvariant() +
        ',"description":' + (ConvertTo-JsonString ((@($p.description | ForEach-Object { $_.Text }) -join ' '))) + '}'
    }
    if (-not $first) { [void]$builder.Append(',') }
    $first = $false
    [void]$builder.Append('{"name":' + (ConvertTo-JsonString ([System.IO.Path]::GetFileNameWithoutExtension($file))) +
        ',"description":' + (ConvertTo-JsonString ($help.Synopsis)) +
        ',"parameters":[' + (@($parameters) -join ',') + ']}')
}
[void]$builder.Append(']')
[Console]::Out.Write($builder.ToString())
`;

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

  // The same scripts listed the way PowerShell itself can: Get-Help for the description and
  // Get-Command for the parameters, as JSON, in one pwsh process (its start is in the figure,
  // as mcp list's process start is in ours). Core cmdlets and .NET only, so the bare engine
  // (tools/pwsh-engine) runs it as well as a full pwsh.
  let getHelpMs: number | undefined;
  let getHelpTools: number | undefined;
  if (pwshEngine !== undefined) {
    const listing = path.join(work, 'get-help-list.ps1');
    writeFileSync(listing, GET_HELP_LISTING);
    const samples: number[] = [];
    for (let r = 0; r < Math.max(1, Math.min(runs, 3)); r++) {
      const start = process.hrtime.bigint();
      const output = execFileSync(
        'pwsh',
        [
          '-NoLogo',
          '-NoProfile',
          '-NonInteractive',
          '-File',
          listing,
          corpora['PowerShell scripts']!.dir,
        ],
        { encoding: 'utf8', maxBuffer: 512 * 1024 * 1024 },
      );
      samples.push(Number(process.hrtime.bigint() - start) / 1e6);
      getHelpTools = (JSON.parse(output) as unknown[]).length;
    }
    getHelpMs = median(samples);
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
      ? 'Get-Help listing of the same PowerShell scripts: not measured (no pwsh on PATH).'
      : `Get-Help/Get-Command listing of the same ${count} PowerShell scripts (${getHelpTools} listed) on ${pwshEngine?.description}: ${getHelpMs.toFixed(0)} ms; mcp list cold is ${(getHelpMs / ps.cold).toFixed(1)}x faster, cached ${(getHelpMs / ps.cached).toFixed(1)}x (target >= 20x).`,
  );
  const out = path.join(import.meta.dirname, 'out');
  mkdirSync(out, { recursive: true });
  writeFileSync(
    path.join(out, 'discovery-list.json'),
    JSON.stringify(
      {
        count,
        runs,
        cores,
        node: process.version,
        rows,
        getHelpMs: getHelpMs ?? null,
        getHelpEngine: pwshEngine?.description ?? null,
      },
      null,
      2,
    ),
  );
} finally {
  rmSync(work, { recursive: true, force: true });
}

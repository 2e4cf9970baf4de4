// Benchmark: `mcp list --json --module` whole-process time on PowerShell modules as they ship
// (issue 29): the largest module (dbatools-sized: 717 public and 151 private functions
// dot-sourced from 868 files), uncached and cached, beside pwsh's own Import-Module +
// Get-Command of the same module; a ~150-function module (PowerShellForGitHub's layout)
// uncached and cached; and a module whose exports only the engine can tell, so discovery
// imports it in pwsh once and then serves the cached answer; and ImportExcel as the public
// corpus vendors it, read statically with pwsh asked only for what its files cannot tell (a
// dynamicparam block, the enums of its EPPlus.dll).
//
//   pnpm build && pnpm --filter @toolpack/bench bench:modules [--runs 5] [--dbatools DIR]
//     [--cli BIN] [--baseline-cli BIN]
//
// The modules are generated (the same on every machine). `--dbatools DIR` takes the largest
// module's function files from a dbatools checkout instead (public/ and private/functions/,
// with a .psm1 and .psd1 written here in dbatools' own layout).
import { execFileSync, spawnSync } from 'node:child_process';
import {
  appendFileSync,
  cpSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { pwshEngine } from '@toolpack/pwsh-probe';

const { values } = parseArgs({
  args: process.argv.slice(2).filter((arg) => arg !== '--'),
  options: {
    runs: { type: 'string', default: '5' },
    dbatools: { type: 'string' },
    cli: { type: 'string' },
    'baseline-cli': { type: 'string' },
  },
});
const runs = Number(values.runs);
// --cli: a copy of the built packages, for a checkout whose dist/ others keep rebuilding.
const cli =
  values.cli ?? path.join(import.meta.dirname, '..', 'packages', 'cli', 'dist', 'bin.mjs');
// --baseline-cli: the build the issue's targets are relative to ("its current time", "the same as
// today"), timed on the same modules in the same run, its runs interleaved with ours.
const baselineCli = values['baseline-cli'];

/** One module function file: comment help, a param block of four parameters, a body. */
function functionText(name: string, i: number): string {
  return `function ${name} {
    <#
    .SYNOPSIS
    Gets the widgets of store number ${i}.

    .DESCRIPTION
    Looks the widgets up by their id, filters them by colour and returns at most Limit of them,
    with their sizes in centimetres.

    .PARAMETER Id
    The widget id.

    .PARAMETER Color
    Only return widgets of this colour.

    .PARAMETER Limit
    How many widgets to return.

    .PARAMETER Force
    Return the widget even when it is archived.

    .EXAMPLE
    ${name} -Id w-1 -Limit 3
    Gets three widgets of w-1.
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
    begin {
        $found = [System.Collections.Generic.List[object]]::new()
    }
    process {
        foreach ($index in 1..$Limit) {
            if ($Force -or $index % 2 -eq 0) {
                $found.Add([pscustomobject]@{ Id = "$Id-$index"; Color = $Color; Size = $index * ${(i % 7) + 1} })
            }
        }
    }
    end {
        $found | Sort-Object -Property Size | Select-Object -First $Limit
    }
}
`;
}

/** A manifest listing its exports by name, as dbatools' and PowerShellForGitHub's do. */
function manifestText(
  rootModule: string,
  exported: readonly string[],
  nested: readonly string[] = [],
): string {
  return `@{
    ModuleVersion = '1.0.0'
    GUID = '8e8c1a4e-6f35-4c4a-9b8e-0c3f5d6a7b21'
    RootModule = '${rootModule}'
${nested.length === 0 ? '' : `    NestedModules = @(\n${nested.map((file) => `        '${file}'`).join(',\n')}\n    )\n`}    FunctionsToExport = @(
${exported.map((name) => `        '${name}'`).join(',\n')}
    )
}
`;
}

/**
 * dbatools' own layout: the function files of private/ and public/ dot-sourced by loops over
 * Get-ChildItem. (dbatools' own .psm1 also loads dbatools.library and runs private/configurations,
 * which need that library: the benchmark keeps to the function files.)
 */
const DBATOOLS_STYLE_PSM1 = `foreach ($file in Get-ChildItem -Path "$PSScriptRoot/private/functions" -Filter *.ps1 -Recurse) { . $file.FullName }
foreach ($file in Get-ChildItem -Path "$PSScriptRoot/public" -Filter *.ps1 -Recurse) { . $file.FullName }
`;

function writeLargestModule(root: string): {
  manifest: string;
  functions: number;
  files: number;
  /** The first exported function, whose file is edited. */
  edited: string;
} {
  const folder = path.join(root, 'Largest');
  mkdirSync(path.join(folder, 'public'), { recursive: true });
  mkdirSync(path.join(folder, 'private', 'functions'), { recursive: true });
  let exported: string[] = [];
  if (values.dbatools !== undefined) {
    cpSync(path.join(values.dbatools, 'public'), path.join(folder, 'public'), { recursive: true });
    cpSync(
      path.join(values.dbatools, 'private', 'functions'),
      path.join(folder, 'private', 'functions'),
      {
        recursive: true,
      },
    );
    exported = readdirSync(path.join(folder, 'public'))
      .filter((file) => file.endsWith('.ps1'))
      .map((file) => file.slice(0, -4));
  } else {
    // dbatools' counts: 717 public functions, 151 private function files.
    for (let i = 0; i < 717; i++) {
      const name = `Get-DbaWidget${i}`;
      exported.push(name);
      writeFileSync(path.join(folder, 'public', `${name}.ps1`), functionText(name, i));
    }
    for (let i = 0; i < 151; i++) {
      const name = `Get-DbaHelper${i}`;
      writeFileSync(
        path.join(folder, 'private', 'functions', `${name}.ps1`),
        functionText(name, i),
      );
    }
  }
  writeFileSync(path.join(folder, 'Largest.psm1'), DBATOOLS_STYLE_PSM1);
  writeFileSync(path.join(folder, 'Largest.psd1'), manifestText('Largest.psm1', exported));
  const files = execFileSync('find', [folder, '-name', '*.ps1'], { encoding: 'utf8' })
    .trim()
    .split('\n').length;
  return {
    manifest: path.join(folder, 'Largest.psd1'),
    functions: exported.length,
    files,
    edited: exported[0] ?? '',
  };
}

/** PowerShellForGitHub's layout: ~150 functions in 30 nested .ps1 modules named by the manifest. */
function writeMediumModule(root: string): { manifest: string; functions: number } {
  const folder = path.join(root, 'Medium');
  mkdirSync(folder, { recursive: true });
  const exported: string[] = [];
  const nested: string[] = [];
  for (let file = 0; file < 30; file++) {
    const names = Array.from({ length: 5 }, (_, j) => `Get-GitHubWidget${file * 5 + j}`);
    exported.push(...names);
    nested.push(`GitHubWidgets${file}.ps1`);
    writeFileSync(
      path.join(folder, `GitHubWidgets${file}.ps1`),
      names.map((name, j) => functionText(name, file * 5 + j)).join('\n'),
    );
  }
  writeFileSync(
    path.join(folder, 'Medium.psm1'),
    '# The functions come from the nested modules.\n',
  );
  writeFileSync(path.join(folder, 'Medium.psd1'), manifestText('Medium.psm1', exported, nested));
  return { manifest: path.join(folder, 'Medium.psd1'), functions: exported.length };
}

/** The medium module's functions, exported by a list the module reads when imported: only pwsh can tell. */
function writeEngineModule(root: string): { module: string; functions: number } {
  const folder = path.join(root, 'Engine');
  mkdirSync(path.join(folder, 'functions'), { recursive: true });
  const exported: string[] = [];
  for (let i = 0; i < 150; i++) {
    const name = `Get-EngineWidget${i}`;
    exported.push(name);
    writeFileSync(path.join(folder, 'functions', `${name}.ps1`), functionText(name, i));
  }
  writeFileSync(path.join(folder, 'exports.txt'), `${exported.join('\n')}\n`);
  writeFileSync(
    path.join(folder, 'Engine.psm1'),
    `foreach ($file in [System.IO.Directory]::GetFiles("$PSScriptRoot/functions", '*.ps1')) { . $file }
Export-ModuleMember -Function ([System.IO.File]::ReadAllLines("$PSScriptRoot/exports.txt"))
`,
  );
  return { module: path.join(folder, 'Engine.psm1'), functions: exported.length };
}

/**
 * The public corpus's ImportExcel (tests/powershell-corpus/fixtures), copied: its files are read
 * statically, and pwsh is asked for what they cannot tell (EPPlus's enums, Send-SQLDataToExcel's
 * dynamic parameters).
 */
function copyImportExcel(root: string): { manifest: string; functions: number } {
  const target = path.join(root, 'ImportExcel');
  cpSync(
    path.join(import.meta.dirname, '..', 'tests', 'powershell-corpus', 'fixtures', 'ImportExcel'),
    target,
    { recursive: true },
  );
  // The manifest's FunctionsToExport lists 69.
  return { manifest: path.join(target, 'ImportExcel.psd1'), functions: 69 };
}

function median(samples: readonly number[]): number {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}

interface Listing {
  ms: number;
  tools: number;
  errors: string[];
}

function timeList(bin: string, cwd: string, module: string, cached: boolean): Listing {
  const start = process.hrtime.bigint();
  const result = spawnSync(
    process.execPath,
    [
      bin,
      'list',
      '--json',
      '--max-tools',
      '100000',
      '--module',
      module,
      ...(cached ? [] : ['--no-cache']),
    ],
    { cwd, encoding: 'utf8', maxBuffer: 512 * 1024 * 1024 },
  );
  const ms = Number(process.hrtime.bigint() - start) / 1e6;
  let parsed: {
    tools: Array<{ source?: { kind?: string } }>;
    diagnostics?: Array<{ severity: string; code: string }>;
  };
  try {
    parsed = JSON.parse(result.stdout) as typeof parsed;
  } catch {
    throw new Error(`mcp list failed (${result.status}): ${result.stderr}`);
  }
  const errors = (parsed.diagnostics ?? [])
    .filter((d) => d.severity === 'error')
    .map((d) => d.code);
  // The module's tools, not the built-in find_tools and describe_tool.
  const tools = parsed.tools.filter((tool) => tool.source?.kind === 'ps-module').length;
  return { ms, tools, errors: [...new Set(errors)] };
}

interface Row {
  module: string;
  functions: number;
  tools: number;
  uncachedMs: number;
  cachedMs: number;
  /** A cached start after one file of the module changed. */
  editedMs: number;
  /** Error codes `mcp list` reported (a module that lists with errors is still timed). */
  errors: string[];
  /** pwsh's own Import-Module + Get-Command of the same module, whole process; null without pwsh. */
  pwshMs: number | null;
  pwshCommands: number | null;
  /** The same with --baseline-cli; null without it. */
  baseline: { tools: number; uncachedMs: number; cachedMs: number; errors: string[] } | null;
}

/** Whole-process time of pwsh importing the module and listing its commands, as a user would. */
function timePwsh(module: string): { ms: number; commands: number } | null {
  if (pwshEngine === undefined) return null;
  const samples: number[] = [];
  let commands = 0;
  for (let r = 0; r < Math.max(1, Math.min(runs, 3)); r++) {
    const start = process.hrtime.bigint();
    const output = execFileSync(
      'pwsh',
      [
        '-NoLogo',
        '-NoProfile',
        '-NonInteractive',
        '-Command',
        `$m = Import-Module -Name '${module.replaceAll("'", "''")}' -PassThru -DisableNameChecking -ErrorAction Stop; [Console]::Out.Write(@(Get-Command -Module $m.Name).Count)`,
      ],
      { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 },
    );
    samples.push(Number(process.hrtime.bigint() - start) / 1e6);
    // The count is written last: a module may warn on the console while it imports (ImportExcel
    // without libgdiplus does).
    commands = Number(output.trim().split('\n').at(-1));
  }
  return { ms: median(samples), commands };
}

function measure(
  work: string,
  label: string,
  module: string,
  functions: number,
  /** A file of the module that a developer edits: a cached start after each edit is timed. */
  edited: string,
): Row {
  const builds = [
    { bin: cli, cwd: path.join(work, 'ours') },
    ...(baselineCli === undefined ? [] : [{ bin: baselineCli, cwd: path.join(work, 'baseline') }]),
  ].map((build) => ({
    ...build,
    uncached: [] as number[],
    cached: [] as number[],
    last: undefined as Listing | undefined,
  }));
  for (const build of builds) {
    rmSync(build.cwd, { recursive: true, force: true });
    mkdirSync(build.cwd, { recursive: true });
  }
  for (let r = 0; r < runs; r++) {
    for (const build of builds) {
      build.last = timeList(build.bin, build.cwd, module, false);
      build.uncached.push(build.last.ms);
    }
  }
  for (const build of builds) {
    timeList(build.bin, build.cwd, module, true); // fills the cache
    timeList(build.bin, build.cwd, module, true); // settles entries stored within the racy-mtime window
  }
  for (let r = 0; r < runs; r++) {
    for (const build of builds) build.cached.push(timeList(build.bin, build.cwd, module, true).ms);
  }
  const [first] = builds;
  const afterEdit: number[] = [];
  for (let r = 0; r < runs && first !== undefined; r++) {
    appendFileSync(edited, `\n# edited ${r}\n`);
    afterEdit.push(timeList(first.bin, first.cwd, module, true).ms);
  }
  const pwsh = timePwsh(module);
  const [ours, baseline] = builds;
  return {
    module: label,
    functions,
    tools: ours?.last?.tools ?? 0,
    uncachedMs: median(ours?.uncached ?? []),
    cachedMs: median(ours?.cached ?? []),
    editedMs: median(afterEdit),
    errors: ours?.last?.errors ?? [],
    pwshMs: pwsh?.ms ?? null,
    pwshCommands: pwsh?.commands ?? null,
    baseline:
      baseline === undefined
        ? null
        : {
            tools: baseline.last?.tools ?? 0,
            uncachedMs: median(baseline.uncached),
            cachedMs: median(baseline.cached),
            errors: baseline.last?.errors ?? [],
          },
  };
}

const work = mkdtempSync(path.join(os.tmpdir(), 'toolpack-bench-modules-'));
try {
  const largest = writeLargestModule(work);
  const medium = writeMediumModule(work);
  const engine = writeEngineModule(work);
  const importExcel = copyImportExcel(work);
  const rows = [
    measure(
      work,
      `${values.dbatools === undefined ? 'generated' : 'dbatools'} module, ${largest.functions} exported functions in ${largest.files} files (dbatools' layout)`,
      largest.manifest,
      largest.functions,
      path.join(path.dirname(largest.manifest), 'public', `${largest.edited}.ps1`),
    ),
    measure(
      work,
      `module of ${medium.functions} functions in 30 nested .ps1 files (PowerShellForGitHub's layout)`,
      medium.manifest,
      medium.functions,
      path.join(path.dirname(medium.manifest), 'GitHubWidgets0.ps1'),
    ),
    measure(
      work,
      `module of ${engine.functions} functions exported by a list read at import (pwsh resolves them)`,
      engine.module,
      engine.functions,
      path.join(path.dirname(engine.module), 'functions', 'Get-EngineWidget0.ps1'),
    ),
    measure(
      work,
      `ImportExcel as vendored, ${importExcel.functions} functions (EPPlus enums and a dynamicparam block: pwsh asked)`,
      importExcel.manifest,
      importExcel.functions,
      path.join(path.dirname(importExcel.manifest), 'Public', 'Set-ExcelRange.ps1'),
    ),
  ];

  const cores = os.cpus().length;
  console.log(
    `mcp list --json --module, whole process, median of ${runs} runs, ${cores} cores, Node ${process.version}`,
  );
  console.log(
    '| module | tools | uncached ms | cached ms | cached/uncached | one file changed ms | pwsh Import-Module + Get-Command ms | errors |',
  );
  console.log('| --- | ---: | ---: | ---: | ---: | ---: | ---: | --- |');
  for (const row of rows) {
    console.log(
      `| ${row.module} | ${row.tools} | ${row.uncachedMs.toFixed(0)} | ${row.cachedMs.toFixed(0)} | ${(row.cachedMs / row.uncachedMs).toFixed(2)} | ${row.editedMs.toFixed(0)} | ${row.pwshMs === null ? 'no pwsh' : `${row.pwshMs.toFixed(0)} (${row.pwshCommands} commands)`} | ${row.errors.join(', ') || '-'} |`,
    );
    if (row.baseline !== null)
      console.log(
        `| ... with the baseline build | ${row.baseline.tools} | ${row.baseline.uncachedMs.toFixed(0)} | ${row.baseline.cachedMs.toFixed(0)} | ${(row.baseline.cachedMs / row.baseline.uncachedMs).toFixed(2)} | | | ${row.baseline.errors.join(', ') || '-'} |`,
      );
  }
  const out = path.join(import.meta.dirname, 'out');
  mkdirSync(out, { recursive: true });
  writeFileSync(
    path.join(out, 'powershell-modules.json'),
    JSON.stringify(
      {
        runs,
        cores,
        node: process.version,
        pwsh: pwshEngine?.description ?? null,
        source: values.dbatools === undefined ? 'generated' : 'dbatools',
        baselineCli: baselineCli ?? null,
        rows,
      },
      null,
      2,
    ),
  );
} finally {
  rmSync(work, { recursive: true, force: true });
}

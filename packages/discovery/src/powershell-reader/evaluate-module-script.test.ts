import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ModuleScriptEvaluator, findDotSourcingHelpers } from './evaluate-module-script.ts';
import type { ModuleScriptEffects } from './evaluate-module-script.ts';
import { readPowerShell } from './reader.ts';

describe('ModuleScriptEvaluator', () => {
  let root = '';
  beforeAll(() => {
    root = mkdtempSync(join(tmpdir(), 'toolpack-module-script-'));
    mkdirSync(join(root, 'Public', 'Sub'), { recursive: true });
    for (const file of ['Public/Get-A.ps1', 'Public/Get-A.Tests.ps1', 'Public/Sub/Get-B.ps1'])
      writeFileSync(join(root, file), '');
  });
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  async function evaluate(source: string): Promise<ModuleScriptEffects> {
    const document = readPowerShell(source);
    const helpers = new Map(
      findDotSourcingHelpers(document).map((helper) => [helper.name.toLowerCase(), helper]),
    );
    const scope = { variables: new Map(), helpers, budget: { remaining: 100 }, truncated: false };
    return new ModuleScriptEvaluator(document, source, join(root, 'M.psm1'), scope).evaluate();
  }
  const loaded = (effects: ModuleScriptEffects): string[] =>
    effects.loads.map((load) => load.path.slice(root.length + 1));

  it('filters listed files with Where-Object, in either form', async () => {
    const block = await evaluate(
      "Get-ChildItem $PSScriptRoot/Public -Recurse -File | Where-Object { -not $_.PSIsContainer -and $_.Name -notlike '*.Tests.ps1' } | ForEach-Object { . $_.FullName }",
    );
    expect(loaded(block)).toEqual(['Public/Get-A.ps1', 'Public/Sub/Get-B.ps1']);
    expect(block.gaps).toEqual([]);
    const simple = await evaluate(
      '$all = Get-ChildItem "$PSScriptRoot\\Public" -Filter *.ps1\nforeach ($f in ($all | ? Name -NotMatch \'tests\')) { . $f.FullName }',
    );
    expect(loaded(simple)).toEqual(['Public/Get-A.ps1']);
  });

  it("matches a module's -match and -like patterns against its file names in linear time", async () => {
    // 34 letters and a b: V8's backtracking engine would take about a minute on `^(a|a)*$`,
    // and the wildcard's stars backtrack polynomially, on the thread that serves.
    mkdirSync(join(root, 'Hostile'), { recursive: true });
    writeFileSync(join(root, 'Hostile', `${'a'.repeat(34)}b.ps1`), '');
    const effects = await evaluate(
      [
        "Get-ChildItem $PSScriptRoot/Hostile | Where-Object { $_.Name -notmatch '^(a|a)*$' } | ForEach-Object { . $_.FullName }",
        `Get-ChildItem $PSScriptRoot/Hostile | Where-Object { $_.Name -like '${'*a'.repeat(30)}*c' } | ForEach-Object { . $_.FullName }`,
      ].join('\n'),
    );
    expect(loaded(effects)).toEqual([`Hostile/${'a'.repeat(34)}b.ps1`]);
    expect(effects.gaps).toEqual([]);
  });

  it('finds its own folder the older ways: Split-Path and $MyInvocation.MyCommand.Path', async () => {
    const effects = await evaluate(
      [
        '$here = Split-Path -Parent $MyInvocation.MyCommand.Path',
        '. (Join-Path $here Public/Get-A.ps1)',
        '$root = Split-Path (Split-Path "$PSScriptRoot/Public/Sub/Get-B.ps1")',
        '. "$root/Sub/Get-B.ps1"',
      ].join('\n'),
    );
    expect(loaded(effects)).toEqual(['Public/Get-A.ps1', 'Public/Sub/Get-B.ps1']);
    expect(effects.gaps).toEqual([]);
  });

  it('reports what it cannot follow as gaps, with the construct and its line', async () => {
    const effects = await evaluate(
      [
        "foreach ($f in Get-ChildItem 'Public') { . $f.FullName }",
        'foreach ($p in (& "$PSScriptRoot\\list.ps1")) { . $p }',
        '$names = (Get-Content "$PSScriptRoot\\names.txt")',
        'Export-ModuleMember -Function $names',
      ].join('\n'),
    );
    expect(effects.loads).toEqual([]);
    expect(effects.gaps.map((gap) => [gap.line, gap.kind])).toEqual([
      [1, 'dot-source'],
      [2, 'dot-source'],
    ]);
    expect(effects.gaps[0]?.construct).toContain('relative to the current location');
    expect(effects.exports).toEqual([{ line: 4, patterns: [], dynamic: ['$names'] }]);
  });

  it('follows a dot-sourced helper call and nothing else of that helper', async () => {
    const effects = await evaluate(
      [
        'function Import-File {\n  param([string]$Path)\n  . $Path\n}',
        'function Initialize-Module { . "$PSScriptRoot/Public/Get-A.ps1" }',
        '. Import-File -Path "$PSScriptRoot/Public/Get-A.ps1"',
        'Import-File "$PSScriptRoot/Public/Sub/Get-B.ps1"',
        '. Initialize-Module',
      ].join('\n'),
    );
    expect(loaded(effects)).toEqual(['Public/Get-A.ps1']);
    expect(effects.gaps).toEqual([
      { line: 8, construct: '. Initialize-Module', kind: 'dot-source' },
    ]);
  });

  it('refuses an export list that holds an array, as PowerShell cannot bind it', async () => {
    const effects = await evaluate(
      "$Public = @(Get-ChildItem $PSScriptRoot/Public/*.ps1)\nExport-ModuleMember -Function $Public.BaseName, 'Get-X'\nExport-ModuleMember -Function $Public.BaseName",
    );
    expect(effects.gaps.map((gap) => [gap.line, gap.kind])).toEqual([[2, 'export']]);
    expect(effects.exports).toEqual([{ line: 3, patterns: ['Get-A', 'Get-A.Tests'], dynamic: [] }]);
  });
});

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { discoverScriptRoot } from './discover-script-root.ts';

const TOOL = `<#
.SYNOPSIS
Says hello.
.PARAMETER Name
Who to greet.
#>
param([string]$Name)
"Hello $Name"
`;

describe('discoverScriptRoot', () => {
  let root = '';
  beforeEach(() => {
    root = mkdtempSync(path.join(tmpdir(), 'toolpack-script-root-'));
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it('says which files it skips and by which rule, and stays quiet about files it never serves', async () => {
    for (const name of ['Get-Greeting.ps1', 'Get-Greeting.Tests.ps1', '.Get-Hidden.ps1'])
      writeFileSync(path.join(root, name), TOOL);
    writeFileSync(path.join(root, 'format.spec.js'), '// DESCRIPTION "x"\n');
    writeFileSync(path.join(root, 'README.md'), '# scripts\n');

    const result = await discoverScriptRoot({ root, cwd: root });

    expect(result.tools.map((tool) => tool.originalName)).toEqual(['Get-Greeting']);
    const skipped = result.diagnostics.filter((d) => d.code === 'I_SKIPPED_FILE');
    expect(skipped.map((d) => [d.severity, path.basename(d.path)])).toEqual([
      ['info', '.Get-Hidden.ps1'],
      ['info', 'Get-Greeting.Tests.ps1'],
      ['info', 'format.spec.js'],
    ]);
    expect(skipped[1]?.message).toMatch(
      /Get-Greeting\.Tests\.ps1 is not served: .*test and spec files/,
    );
    expect(skipped[0]?.message).toMatch(/starts with a dot/);
    expect(result.diagnostics.some((d) => d.path.endsWith('README.md'))).toBe(false);
  });
});

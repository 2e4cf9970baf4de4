import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FileParseCache } from '../../cache/file-parse-cache.ts';
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

  it("reads a script's .EXTERNALHELP file on every listing, though the cache holds the script", async () => {
    const help = (synopsis: string) =>
      `<?xml version="1.0" encoding="utf-8"?>
<helpItems schema="maml" xmlns="http://msh">
  <command:command xmlns:maml="http://schemas.microsoft.com/maml/2004/10" xmlns:command="http://schemas.microsoft.com/maml/dev/command/2004/10">
    <command:details>
      <command:name>Get-Part.ps1</command:name>
      <maml:description><maml:para>${synopsis}</maml:para></maml:description>
    </command:details>
    <command:parameters>
      <command:parameter><maml:name>Name</maml:name><maml:description><maml:para>The part.</maml:para></maml:description></command:parameter>
    </command:parameters>
  </command:command>
</helpItems>
`;
    writeFileSync(
      path.join(root, 'Get-Part.ps1'),
      '<#\n.SYNOPSIS\nFrom the comments.\n.PARAMETER Name\nThe part.\n.EXTERNALHELP Parts-help.xml\n#>\nparam([string]$Name)\n$Name\n',
    );
    mkdirSync(path.join(root, 'en-US'));
    writeFileSync(path.join(root, 'en-US', 'Parts-help.xml'), help('Gets a part.'));
    const cache = new FileParseCache({ dir: path.join(root, '.cache'), parser: 'test' });
    const list = async () =>
      (await discoverScriptRoot({ root, cwd: root, cache })).tools.map((tool) => tool.description);

    expect(await list()).toEqual(['Gets a part.']);
    writeFileSync(path.join(root, 'en-US', 'Parts-help.xml'), help('Gets a spare part.'));
    expect(await list()).toEqual(['Gets a spare part.']);
  });
});

import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { hasPwsh, PWSH_TEST_TAG, pwshEngine } from '@toolpack/pwsh-probe';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describePowerShellScriptContent } from './describe-script.ts';
import { findIntendedAttribute } from './find-misspelled-attributes.ts';

function script(attribute: string): string {
  return `<#\n.SYNOPSIS\nSays which colour.\n.PARAMETER Colour\nThe colour.\n#>\nparam(\n    ${attribute}\n    [string]$Colour\n)\n"colour $Colour"\n`;
}

const key = (name: string) => {
  const short = name.slice(name.lastIndexOf('.') + 1).toLowerCase();
  return short.endsWith('attribute') && short !== 'attribute' ? short.slice(0, -9) : short;
};

describe('findMisspelledAttributes', () => {
  it('refuses a script whose parameter attribute is a misspelling, naming the attribute it means', () => {
    const result = describePowerShellScriptContent({
      path: '/scripts/Get-Colour.ps1',
      content: script("[VaildateSet('red', 'green')]"),
    });
    expect(result.tools).toEqual([]);
    expect(result.diagnostics).toContainEqual(
      expect.objectContaining({
        severity: 'error',
        code: 'E_UNRESOLVED_TYPE',
        line: 8,
        message: expect.stringMatching(/\[VaildateSet\(\)\] on \$Colour .*custom attribute/),
        hint: expect.stringMatching(/\[ValidateSet\(\)\]/),
      }),
    );
  });

  it('leaves real and namespaced attributes alone', () => {
    for (const attribute of [
      "[ValidateSet('red')]",
      "[ValidateSetAttribute('red')]",
      "[System.Management.Automation.ValidateSet('red')]",
      "[System.ComponentModel.DefaultValue('red')]",
      "[DefaultValue('red')]",
      "[MyModule.VaildateSet('red')]",
      "[PsfValidateSet('red')]",
      "[Alias('c')]",
    ]) {
      const result = describePowerShellScriptContent({
        path: '/scripts/Get-Colour.ps1',
        content: script(attribute),
      });
      expect(
        result.diagnostics.filter((d) => d.code === 'E_UNRESOLVED_TYPE'),
        attribute,
      ).toEqual([]);
    }
    expect(findIntendedAttribute({ name: 'CmdletBindnig', key: 'cmdletbindnig' })).toBe(
      'CmdletBinding',
    );
    expect(findIntendedAttribute({ name: 'Paramter', key: 'paramter' })).toBe('Parameter');
  });
});

describe.skipIf(!hasPwsh)(`misspelled attributes on ${pwshEngine?.description ?? 'pwsh'}`, () => {
  let work = '';
  let loaded: string[] = [];
  let runs: string[] = [];

  beforeAll(() => {
    work = mkdtempSync(join(tmpdir(), 'toolpack-attributes-'));
    writeFileSync(join(work, 'Misspelled.ps1'), script("[VaildateSet('red', 'green')]"));
    writeFileSync(join(work, 'Spelled.ps1'), script("[ValidateSet('red', 'green')]"));
    const probe = join(work, 'probe.ps1');
    writeFileSync(
      probe,
      [
        '$names = foreach ($assembly in [System.AppDomain]::CurrentDomain.GetAssemblies()) {',
        '  try { $types = $assembly.GetExportedTypes() } catch { continue }',
        '  foreach ($type in $types) { if ($type.IsSubclassOf([System.Attribute])) { $type.FullName } }',
        '}',
        "[Console]::Out.WriteLine('names ' + (@($names) -join ' '))",
        `foreach ($name in 'Misspelled', 'Spelled') {`,
        `  try { $out = & (Join-Path '${work.replace(/'/g, "''")}' "$name.ps1") -Colour red; [Console]::Out.WriteLine("$name ran: $out") }`,
        '  catch { [Console]::Out.WriteLine("$name failed: $_") }',
        '}',
      ].join('\n'),
    );
    const output = execFileSync(
      'pwsh',
      ['-NoLogo', '-NoProfile', '-NonInteractive', '-File', probe],
      {
        encoding: 'utf8',
        timeout: 120_000,
        maxBuffer: 16 * 1024 * 1024,
      },
    ).split('\n');
    loaded = (output.find((line) => line.startsWith('names '))?.slice(6) ?? '').split(' ');
    runs = output.filter((line) => / (ran|failed): /.test(line));
  }, 130_000);

  afterAll(() => {
    if (work !== '') rmSync(work, { recursive: true, force: true });
  });

  it(`${PWSH_TEST_TAG} calls no attribute type pwsh has loaded a misspelling`, () => {
    expect(loaded.length).toBeGreaterThan(200);
    const flagged = loaded.flatMap((fullName) => {
      const short = fullName.slice(fullName.lastIndexOf('.') + 1);
      return [short, short.replace(/Attribute$/, '')]
        .filter((name) => findIntendedAttribute({ name, key: key(name) }) !== undefined)
        .map((name) => `${fullName} as [${name}()]`);
    });
    expect(flagged).toEqual([]);
  });

  it(`${PWSH_TEST_TAG} matches pwsh: the misspelled script fails on every run, the spelled one runs`, () => {
    expect(runs).toEqual([
      expect.stringMatching(
        /^Misspelled failed: Cannot find the type for custom attribute 'VaildateSet'/,
      ),
      'Spelled ran: colour red',
    ]);
  });
});

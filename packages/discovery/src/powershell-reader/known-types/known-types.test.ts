import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { hasPwsh, PWSH_TEST_TAG } from '@toolpack/pwsh-probe';
import { describe, expect, it } from 'vitest';
import { KNOWN_TYPE_NAMESPACES, KNOWN_TYPES, TYPE_ACCELERATORS } from './known-types.ts';

const here = import.meta.dirname;
const table = readFileSync(join(here, 'known-types.ts'), 'utf8');
const tableVersion = /with PowerShell (\S+);/.exec(table)?.[1];

/** The quoted entries of each exported list of a generated table, as written. */
function readLists(text: string): Record<string, string[]> {
  const lists: Record<string, string[]> = {};
  for (const match of text.matchAll(/export const (\w+)[^=]*= \[([^\]]*)\];/g))
    lists[match[1] as string] = [...(match[2] as string).matchAll(/'([^']*)'/g)].map(
      (entry) => entry[1] as string,
    );
  return lists;
}

describe('KNOWN_TYPES', () => {
  it('lists full names without generic arity, each in a listed namespace', () => {
    expect(KNOWN_TYPES).toContain('System.String');
    expect(KNOWN_TYPES).toContain('System.Collections.Generic.List');
    expect(KNOWN_TYPES).toContain('System.Environment+SpecialFolder');
    expect(TYPE_ACCELERATORS).toContain('pscredential');
    const namespaces = new Set(KNOWN_TYPE_NAMESPACES);
    for (const name of KNOWN_TYPES) {
      expect(name).not.toMatch(/`/);
      const outer = name.split('+')[0] as string;
      expect(namespaces.has(outer.slice(0, Math.max(0, outer.lastIndexOf('.')))), name).toBe(true);
    }
  });
});

describe.skipIf(!hasPwsh)('KNOWN_TYPES against PowerShell', () => {
  it(`${PWSH_TEST_TAG} is what generate-known-types.ps1 writes with the pwsh on PATH`, () => {
    const version = execFileSync(
      'pwsh',
      [
        '-NoLogo',
        '-NoProfile',
        '-NonInteractive',
        '-Command',
        '$PSVersionTable.PSVersion.ToString()',
      ],
      { encoding: 'utf8', timeout: 60_000 },
    ).trim();
    const work = mkdtempSync(join(tmpdir(), 'toolpack-known-types-'));
    try {
      const out = join(work, 'known-types.ts');
      execFileSync(
        'pwsh',
        [
          '-NoLogo',
          '-NoProfile',
          '-NonInteractive',
          '-File',
          join(here, 'generate-known-types.ps1'),
          '-OutFile',
          out,
        ],
        { encoding: 'utf8', timeout: 120_000 },
      );
      const fresh = readLists(readFileSync(out, 'utf8'));
      const checkedIn = readLists(table);
      expect(Object.keys(checkedIn).sort()).toEqual([
        'KNOWN_TYPES',
        'KNOWN_TYPE_NAMESPACES',
        'TYPE_ACCELERATORS',
      ]);
      if (version === tableVersion) {
        expect(fresh).toEqual(checkedIn);
      } else {
        // Another pwsh: what it resolves of the table must still resolve (types are rarely removed).
        const missing = (checkedIn.KNOWN_TYPES ?? []).filter(
          (name) => !(fresh.KNOWN_TYPES ?? []).includes(name),
        );
        expect(missing.length, `${version} lacks ${missing.slice(0, 5).join(', ')}`).toBeLessThan(
          20,
        );
      }
    } finally {
      rmSync(work, { recursive: true, force: true });
    }
  }, 180_000);

  it(`${PWSH_TEST_TAG} every listed name and accelerator resolves as a param block type`, () => {
    // Generic names resolve with their arity (List`1), as PowerShell looks them up for List[T].
    // The built-in modules' own types (Microsoft.PowerShell.Commands.*) resolve once the module
    // is loaded, as in any session that has run one of its cmdlets: the probe loads them first.
    const script = [
      'Import-Module Microsoft.PowerShell.Management, Microsoft.PowerShell.Utility, Microsoft.PowerShell.Security',
      `$names = @(${[...KNOWN_TYPES, ...TYPE_ACCELERATORS].map((name) => `'${name}'`).join(', ')})`,
      '$missing = foreach ($name in $names) {',
      '  $found = $null -ne ($name -as [type])',
      '  for ($arity = 1; -not $found -and $arity -le 16; $arity++) { $found = $null -ne ("$name``$arity" -as [type]) }',
      '  if (-not $found) { $name }',
      '}',
      'ConvertTo-Json -InputObject @($missing) -Compress',
    ].join('\n');
    const work = mkdtempSync(join(tmpdir(), 'toolpack-known-types-'));
    let missing: string[];
    try {
      const probe = join(work, 'probe.ps1');
      writeFileSync(probe, script);
      missing = JSON.parse(
        execFileSync('pwsh', ['-NoLogo', '-NoProfile', '-NonInteractive', '-File', probe], {
          encoding: 'utf8',
          timeout: 120_000,
          maxBuffer: 16 * 1024 * 1024,
        }),
      ) as string[];
    } finally {
      rmSync(work, { recursive: true, force: true });
    }
    expect(missing).toEqual([]);
  }, 130_000);
});

import { execFileSync } from 'node:child_process';
import { hasPwsh, PWSH_TEST_TAG } from '@toolpack/pwsh-probe';
import { describe, expect, it } from 'vitest';
import { DOTNET_ENUMS } from './dotnet-enums.ts';

describe('DOTNET_ENUMS', () => {
  it('keys types as a script writes them, lower-cased, without System.', () => {
    expect(DOTNET_ENUMS.dayofweek?.names).toContain('Friday');
    expect(DOTNET_ENUMS['io.fileattributes']?.flags).toBe(true);
    expect(DOTNET_ENUMS['data.commandtype']?.names).toEqual([
      'Text',
      'StoredProcedure',
      'TableDirect',
    ]);
    for (const key of Object.keys(DOTNET_ENUMS)) expect(key).toBe(key.toLowerCase());
  });
});

describe.skipIf(!hasPwsh)('DOTNET_ENUMS against PowerShell', () => {
  it(`${PWSH_TEST_TAG} names every enum as the running pwsh resolves it`, () => {
    const script = [
      `$keys = @(${Object.keys(DOTNET_ENUMS)
        .map((key) => `'${key}'`)
        .join(', ')})`,
      '$answer = [ordered]@{}',
      'foreach ($key in $keys) {',
      '  $type = $key -as [type]',
      '  if ($null -eq $type -or -not $type.IsEnum) { $answer[$key] = $null; continue }',
      '  $answer[$key] = @{ flags = $type.IsDefined([System.FlagsAttribute], $false); names = @([enum]::GetNames($type)) }',
      '}',
      '$answer | ConvertTo-Json -Depth 4 -Compress',
    ].join('\n');
    const output = execFileSync(
      'pwsh',
      ['-NoLogo', '-NoProfile', '-NonInteractive', '-Command', script],
      { encoding: 'utf8', timeout: 120_000 },
    );
    const engine = JSON.parse(output) as Record<string, { flags: boolean; names: string[] } | null>;
    // The engine without built-in modules lacks some assemblies' types: those it has must agree.
    const resolved = Object.entries(engine).filter(([, value]) => value !== null);
    expect(resolved.length).toBeGreaterThan(Object.keys(DOTNET_ENUMS).length / 2);
    for (const [key, value] of resolved) expect(DOTNET_ENUMS[key], key).toEqual(value);
  });
});

import { execFileSync } from 'node:child_process';
import { hasPwsh, PWSH_TEST_TAG } from '@toolpack/pwsh-probe';
import { describe, expect, it } from 'vitest';
import { mapPowerShellType } from './map-powershell-type.ts';
import { compileWildcard, matchesAnyWildcard } from './wildcard.ts';

describe('mapPowerShellType', () => {
  it.each([
    ['string', { type: 'string' }],
    ['System.String', { type: 'string' }],
    ['switch', { type: 'boolean' }],
    ['bool', { type: 'boolean' }],
    ['int', { type: 'integer' }],
    ['Int64', { type: 'integer' }],
    ['byte', { type: 'integer', minimum: 0, maximum: 255 }],
    ['uint32', { type: 'integer', minimum: 0, maximum: 4294967295 }],
    ['double', { type: 'number' }],
    ['decimal', { type: 'number' }],
    ['single', { type: 'number' }],
    ['hashtable', { type: 'object' }],
    ['PSCustomObject', { type: 'object' }],
    ['ordered', { type: 'object' }],
    ['datetime', { type: 'string', format: 'date-time' }],
    ['guid', { type: 'string', format: 'uuid' }],
    ['uri', { type: 'string', format: 'uri' }],
    ['string[]', { type: 'array', items: { type: 'string' } }],
    ['int[]', { type: 'array', items: { type: 'integer' } }],
    ['object[]', { type: 'array' }],
    ['array', { type: 'array' }],
    ['string[][]', { type: 'array', items: { type: 'array', items: { type: 'string' } } }],
    ['System.Collections.Generic.List[int]', { type: 'array', items: { type: 'integer' } }],
    [
      'System.Collections.Generic.HashSet[string]',
      { type: 'array', items: { type: 'string' }, uniqueItems: true },
    ],
    ['System.Collections.Generic.Dictionary[string,object]', { type: 'object' }],
    ['Nullable[double]', { type: 'number' }],
    ['timespan', { type: 'string' }],
  ])('maps [%s]', (typeName, spec) => {
    const mapping = mapPowerShellType(typeName);
    expect(mapping.kind).toBe('known');
    expect(mapping.spec).toEqual(spec);
  });

  it('says when a parameter has no type', () => {
    expect(mapPowerShellType(undefined).kind).toBe('untyped');
    expect(mapPowerShellType('object').kind).toBe('untyped');
  });

  it('describes other .NET types as strings PowerShell converts', () => {
    expect(mapPowerShellType('Microsoft.Foo.Bar')).toEqual({
      kind: 'as-string',
      spec: { type: 'string' },
    });
  });

  it('refuses types no JSON value can stand for', () => {
    for (const typeName of [
      'scriptblock',
      'pscredential',
      'System.Security.SecureString',
      'scriptblock[]',
    ]) {
      expect(mapPowerShellType(typeName).kind, typeName).toBe('unsupported');
    }
  });
});

describe('PowerShell wildcards', () => {
  it('match names without regard to case', () => {
    expect(compileWildcard('Get-*').test('get-widget')).toBe(true);
    expect(compileWildcard('Get-?').test('Get-AB')).toBe(false);
    expect(compileWildcard('[gs]et-x').test('Set-X')).toBe(true);
    expect(compileWildcard('a`*').test('a*')).toBe(true);
    expect(compileWildcard('a`*').test('ab')).toBe(false);
    expect(matchesAnyWildcard('Remove-Item', ['Get-*', '*-Item'])).toBe(true);
    expect(matchesAnyWildcard('x', [])).toBe(false);
    expect(compileWildcard('[').test('[')).toBe(true);
  });
});

/** Types Toolpack refuses as unrepresentable, as a script would write them. */
const UNREPRESENTABLE = [
  'scriptblock',
  'psmoduleinfo',
  'System.Management.Automation.PSModuleInfo',
  'System.Management.Automation.Runspaces.Runspace',
  'System.Management.Automation.Runspaces.PSSession',
  'powershell',
  'System.Management.Automation.CommandInfo',
  'System.Management.Automation.FunctionInfo',
  'System.Management.Automation.Job',
  'System.Management.Automation.ProviderInfo',
  'System.Management.Automation.PSDriveInfo',
  'System.Management.Automation.ErrorRecord',
  'System.Diagnostics.Process',
  'System.Reflection.Assembly',
  'System.IO.Stream',
  'System.Threading.CancellationToken',
  'System.Delegate',
  'System.Action',
  'System.Func[int]',
];
/** Types that look just as "live" but bind from a string a client can send. */
const FROM_A_STRING = ['System.Type', 'xml', 'version', 'System.IO.FileInfo', 'ipaddress'];

describe.skipIf(!hasPwsh)('unrepresentable types, against PowerShell', () => {
  it(`${PWSH_TEST_TAG} are exactly those pwsh binds from no JSON value`, () => {
    // Every JSON value the host can hand a script: strings, numbers, booleans, arrays, hashtables.
    const script = [
      "$values = @('int', 'abc', '<a/>', '1.2', '127.0.0.1', '/', 5, 1.5, $true, @(1, 'a'), @{ Name = 'a' })",
      '$answer = [ordered]@{}',
      `foreach ($t in @(${[...UNREPRESENTABLE, ...FROM_A_STRING].map((t) => `'${t}'`).join(', ')})) {`,
      '  $probe = [scriptblock]::Create("param([$t]`$X) `$null")',
      '  $answer[$t] = @(0..($values.Count - 1) | Where-Object { try { & $probe -X $values[$_]; $true } catch { $false } })',
      '}',
      '$answer | ConvertTo-Json -Compress',
    ].join('\n');
    const output = execFileSync(
      'pwsh',
      ['-NoLogo', '-NoProfile', '-NonInteractive', '-Command', script],
      { encoding: 'utf8', timeout: 120_000 },
    );
    const bound = JSON.parse(output) as Record<string, number[]>;
    // Value 8 is $true: PSModuleInfo's (bool linkToGlobal) constructor turns it into an empty
    // module, which binds but carries nothing a client could mean. Nothing else binds.
    expect(bound.psmoduleinfo).toEqual([8]);
    for (const typeName of UNREPRESENTABLE) {
      expect(
        bound[typeName]?.filter((index) => index !== 8),
        typeName,
      ).toEqual([]);
      expect(mapPowerShellType(typeName).kind, typeName).toBe('unsupported');
    }
    for (const typeName of FROM_A_STRING) {
      expect(bound[typeName]?.length, typeName).toBeGreaterThan(0);
      expect(mapPowerShellType(typeName).kind, typeName).not.toBe('unsupported');
    }
  });
});

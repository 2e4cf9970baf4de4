import { execFileSync } from 'node:child_process';
import { hasPwsh, PWSH_TEST_TAG } from '@toolpack/pwsh-probe';
import { describe, expect, it } from 'vitest';
import { findCredentialType, mapPowerShellType } from './map-powershell-type.ts';
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

describe('enum types', () => {
  it('lists the names of a well-known enum, matched in any case', () => {
    expect(mapPowerShellType('System.DayOfWeek')).toEqual({
      kind: 'known',
      spec: {
        type: 'string',
        enum: ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'],
        enumIgnoresCase: true,
      },
    });
    expect(mapPowerShellType('Data.CommandType').spec?.enum).toEqual([
      'Text',
      'StoredProcedure',
      'TableDirect',
    ]);
    expect(mapPowerShellType('ConsoleColor[]').spec?.items?.enum).toContain('DarkCyan');
  });

  it("takes a module's own enum, and a comma list of names for a flags enum", () => {
    const enums = new Map([
      ['color', { name: 'Color', line: 1, names: ['Red', 'Green'], flags: false }],
      ['shade', { name: 'Shade', line: 2, names: ['Light', 'Dark'], flags: true }],
    ]);
    expect(mapPowerShellType('Color', { enums }).spec).toEqual({
      type: 'string',
      enum: ['Red', 'Green'],
      enumIgnoresCase: true,
    });
    const shade = new RegExp(mapPowerShellType('Shade', { enums }).spec?.pattern as string, 'u');
    expect(['Light', 'dark, LIGHT', ' light ,dark '].every((s) => shade.test(s))).toBe(true);
    expect(['', 'Light,', 'Lighter', 'Light Dark'].some((s) => shade.test(s))).toBe(false);
    expect(mapPowerShellType('Color').kind).toBe('as-string');
  });
});

describe.skipIf(!hasPwsh)('enum types, against PowerShell', () => {
  it(`${PWSH_TEST_TAG} accept what PowerShell binds to them, by name`, () => {
    const types = [
      'System.DayOfWeek',
      'System.IO.FileAttributes',
      'Microsoft.PowerShell.ExecutionPolicy',
    ];
    const values = [
      'friday',
      'FRIDAY',
      'Fri',
      'ReadOnly',
      'readonly, hidden',
      'ReadOnly,Bogus',
      'Bypass',
      'bypass ',
      '',
    ];
    const script = [
      `$values = @(${values.map((v) => `'${v}'`).join(', ')})`,
      '$answer = [ordered]@{}',
      `foreach ($t in @(${types.map((t) => `'${t}'`).join(', ')})) {`,
      '  $probe = [scriptblock]::Create("param([$t]`$X) `$null")',
      '  $answer[$t] = @($values | ForEach-Object { try { $null = & $probe -X $_; $true } catch { $false } })',
      '}',
      '$answer | ConvertTo-Json -Compress',
    ].join('\n');
    const output = execFileSync(
      'pwsh',
      ['-NoLogo', '-NoProfile', '-NonInteractive', '-Command', script],
      { encoding: 'utf8', timeout: 120_000 },
    );
    const binds = JSON.parse(output) as Record<string, boolean[]>;
    const looser: string[] = [];
    for (const typeName of types) {
      const spec = mapPowerShellType(typeName).spec as {
        enum?: string[];
        pattern?: string;
        enumIgnoresCase?: boolean;
      };
      const accepts = (value: string) =>
        spec.pattern !== undefined
          ? new RegExp(spec.pattern, 'u').test(value)
          : (spec.enum ?? []).some((name) => name.toLowerCase() === value.toLowerCase());
      values.forEach((value, index) => {
        // Never accepts what PowerShell refuses.
        if (accepts(value)) expect(binds[typeName]?.[index], `${typeName} ${value}`).toBe(true);
        else if (binds[typeName]?.[index] === true)
          looser.push(`${typeName} ${JSON.stringify(value)}`);
      });
    }
    // What PowerShell binds besides the names: an unambiguous abbreviation, surrounding blanks,
    // an empty flags value (0). The schema lists the names only.
    expect(looser).toEqual([
      'System.DayOfWeek "Fri"',
      'System.IO.FileAttributes ""',
      'Microsoft.PowerShell.ExecutionPolicy "bypass "',
    ]);
  });
});

describe('findCredentialType', () => {
  it('knows the credential types in every spelling, and nothing else, arrays of them included', () => {
    expect(
      [
        'pscredential',
        'PSCredential',
        'System.Management.Automation.PSCredential',
        'Management.Automation.PSCredential',
        'securestring',
        'System.Security.SecureString',
        ' SecureString ',
      ].map(findCredentialType),
    ).toEqual([
      'pscredential',
      'pscredential',
      'pscredential',
      'pscredential',
      'securestring',
      'securestring',
      'securestring',
    ]);
    expect(
      ['pscredential[]', 'List[pscredential]', 'string', 'scriptblock', undefined].map(
        findCredentialType,
      ),
    ).toEqual([undefined, undefined, undefined, undefined, undefined]);
  });
});

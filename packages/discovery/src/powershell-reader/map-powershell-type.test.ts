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

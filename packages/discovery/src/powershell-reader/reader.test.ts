import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { evaluateConstant, parseNumberLiteral } from './constant-value.ts';
import { readPowerShell } from './reader.ts';

function constant(expression: string): unknown {
  const document = readPowerShell(`param($x = ${expression})`);
  const value = document.paramBlock?.parameters[0]?.defaultValue?.value;
  return value?.constant ? value.value : 'NOT CONSTANT';
}

describe('evaluateConstant', () => {
  it('evaluates literals, arrays, hashtables, negation and casts', () => {
    expect(constant('5')).toBe(5);
    expect(constant('-5')).toBe(-5);
    expect(constant('- 2.5')).toBe(-2.5);
    expect(constant('0x1F')).toBe(31);
    expect(constant('1kb')).toBe(1024);
    expect(constant("'a'")).toBe('a');
    expect(constant('"a`nb"')).toBe('a\nb');
    expect(constant('$true')).toBe(true);
    expect(constant('$FALSE')).toBe(false);
    expect(constant('$null')).toBe(null);
    expect(constant("@('a', 'b')")).toEqual(['a', 'b']);
    expect(constant("@(\n  'a'\n  'b'\n)")).toEqual(['a', 'b']);
    expect(constant('@()')).toEqual([]);
    expect(constant("@{ a = 1; 'b c' = @(2) }")).toEqual({ a: 1, 'b c': [2] });
    expect(constant("[string[]]'x'")).toEqual(['x']);
    expect(constant("[int]'42'")).toBe(42);
    expect(constant('[int]::MaxValue')).toBe(2147483647);
    expect(constant('[ordered]@{ z = 1 }')).toEqual({ z: 1 });
    expect(constant("('a', 'b')")).toEqual(['a', 'b']);
  });

  it('refuses anything that would run code', () => {
    for (const expression of [
      '$env:HOME',
      '(Get-Date)',
      '"$HOME/x"',
      '"$(1)"',
      "'a' + 'b'",
      '[math]::PI',
      '$x.y',
      '1..3',
    ]) {
      expect(constant(expression), expression).toBe('NOT CONSTANT');
    }
  });

  it('does not let a hashtable key reach the prototype', () => {
    expect(Object.getPrototypeOf(constant("@{ '__proto__' = 1 }"))).toBe(Object.prototype);
  });

  it('survives very deep nesting', () => {
    const deep = '@('.repeat(500) + ')'.repeat(500);
    const document = readPowerShell(`param($x = ${deep})`);
    const range = document.paramBlock?.parameters[0]?.defaultValue?.value;
    expect(range?.constant).toBe(false);
    expect(evaluateConstant(document.tokens, 0, 0).constant).toBe(false);
  });

  it('parses number literals', () => {
    expect(parseNumberLiteral('1.5e3')).toBe(1500);
    expect(parseNumberLiteral('10L')).toBe(10);
    expect(parseNumberLiteral('\u20133')).toBe(-3);
    expect(parseNumberLiteral('abc')).toBeUndefined();
  });
});

const validSyntax = fileURLToPath(new URL('./fixtures/valid-syntax/', import.meta.url));

describe('readPowerShell', () => {
  it.each(readdirSync(validSyntax))('reports no syntax error for valid PowerShell: %s', (name) => {
    expect(readPowerShell(readFileSync(validSyntax + name, 'utf8')).errors).toEqual([]);
  });

  it('finds the functions among classes, enums and scripts blocks', () => {
    const document = readPowerShell(readFileSync(`${validSyntax}structures.ps1`, 'utf8'));
    expect(document.functions.map((fn) => [fn.name, fn.topLevel])).toEqual([
      ['Get-Thing', true],
      ['Get-OneLiner', true],
      ['Get-Short', true],
      ['Select-Even', true],
    ]);
  });

  it('reads a script param block with attributes, types and defaults', () => {
    const document = readPowerShell(
      "using namespace System.IO\n[CmdletBinding(SupportsShouldProcess)]\n[OutputType([string])]\nparam(\n  [Parameter(Mandatory, Position = 0)]\n  [ValidateSet('a', 'b')]\n  [string[]] $Name = @('a'),\n  $Plain\n)\n'body'",
    );
    expect(document.errors).toEqual([]);
    const block = document.paramBlock;
    expect(block?.line).toBe(4);
    expect(block?.attributes.map((a) => a.key)).toEqual(['cmdletbinding', 'outputtype']);
    const [name, plain] = block?.parameters ?? [];
    expect(name?.name).toBe('Name');
    expect(name?.line).toBe(7);
    expect(name?.typeNames).toEqual(['string[]']);
    expect(name?.attributes.map((a) => a.key)).toEqual(['parameter', 'validateset']);
    expect(name?.attributes[0]?.named.get('mandatory')?.value).toEqual({
      constant: true,
      value: true,
    });
    expect(name?.attributes[0]?.named.get('position')?.value).toEqual({ constant: true, value: 0 });
    expect(name?.attributes[1]?.positional.map((a) => a.value)).toEqual([
      { constant: true, value: 'a' },
      { constant: true, value: 'b' },
    ]);
    expect(name?.defaultValue?.value).toEqual({ constant: true, value: ['a'] });
    expect(plain?.typeNames).toEqual([]);
  });

  it('allows a line break between param and its parenthesis', () => {
    expect(readPowerShell('param\n(\n$a\n)').paramBlock?.parameters.map((p) => p.name)).toEqual([
      'a',
    ]);
  });

  it('finds no param block in a script without one', () => {
    const document = readPowerShell("[Console]::WriteLine('x')\nparam($notAtTheTop)");
    expect(document.paramBlock).toBeUndefined();
  });

  it('reads functions, their param blocks and short parameter lists', () => {
    const document = readPowerShell(
      'function Get-A {\n  param([int]$n)\n}\nfunction Get-B([string]$s, $t = 1) { }\nfilter Get-C { $_ }\nfunction Outer { function Inner { } }',
    );
    expect(document.functions.map((f) => [f.name, f.line, f.topLevel])).toEqual([
      ['Get-A', 1, true],
      ['Get-B', 4, true],
      ['Get-C', 5, true],
      ['Outer', 6, true],
      ['Inner', 6, false],
    ]);
    expect(document.functions[0]?.paramBlock?.parameters.map((p) => p.name)).toEqual(['n']);
    expect(document.functions[1]?.shortParameters?.parameters.map((p) => p.name)).toEqual([
      's',
      't',
    ]);
  });

  it('knows which functions are at the top level', () => {
    const document = readPowerShell(
      [
        'if ($a) { function InIf { } } else { function InElse { } }',
        'try { function InTry { } } catch { }',
        '$sb = { function InBlock { } }',
        '& { function InCall { } }',
        '$x = @(function InArray { })',
        'foreach ($i in 1..2) { function InLoop { } }',
      ].join('\n'),
    );
    expect(document.functions.map((f) => [f.name, f.topLevel])).toEqual([
      ['InIf', true],
      ['InElse', true],
      ['InTry', true],
      ['InBlock', false],
      ['InCall', false],
      ['InArray', false],
      ['InLoop', true],
    ]);
  });

  it('reads Export-ModuleMember in all its forms', () => {
    const document = readPowerShell(
      [
        'Export-ModuleMember -Function Get-A, Get-B -Alias *',
        "Export-ModuleMember -Function @('Get-C', 'Get-D')",
        "Export-ModuleMember 'Get-E'",
        'Export-ModuleMember -Func Get-F,',
        '  Get-G -Verbose',
        'Export-ModuleMember -Function $names',
        'Export-ModuleMember -Variable x',
        'function f { Export-ModuleMember -Function Inside }',
      ].join('\n'),
    );
    expect(document.exports.map((e) => [e.patterns, e.dynamic])).toEqual([
      [['Get-A', 'Get-B'], []],
      [['Get-C', 'Get-D'], []],
      [['Get-E'], []],
      [['Get-F', 'Get-G'], []],
      [[], ['$names']],
      [[], []],
    ]);
  });

  it('reads dot-sourced files, literal or not', () => {
    const document = readPowerShell(
      '. $PSScriptRoot\\Private\\a.ps1\n. "$PSScriptRoot/b.ps1"\n. ./c.ps1\n. $file.FullName\n.\\not-dot-sourced.ps1',
    );
    expect(document.dotSources.map((d) => d.path ?? `dynamic:${d.text}`)).toEqual([
      '$PSScriptRoot\\Private\\a.ps1',
      '$PSScriptRoot/b.ps1',
      './c.ps1',
      'dynamic:$file.FullName',
    ]);
  });

  it('reports a missing comma, a trailing comma and a missing variable', () => {
    expect(readPowerShell('param([string]$a\n[int]$b)').errors[0]?.message).toContain(
      'a comma is missing after the parameter $a',
    );
    expect(readPowerShell('param($a,\n)').errors[0]?.message).toContain(
      'comma after the last parameter',
    );
    expect(readPowerShell('param([string])').errors[0]?.message).toContain(
      'expected a parameter variable',
    );
    expect(readPowerShell('param($a = )').errors[0]?.message).toContain('no default value');
    expect(readPowerShell('function f($a) { param($b) }').errors[0]?.message).toContain(
      'both after its name and in a param block',
    );
    expect(readPowerShell('function { }').errors[0]?.message).toContain(
      'must be followed by a function name',
    );
  });

  it('accepts empty parentheses after a function name together with a param block, as PowerShell does', () => {
    const document = readPowerShell('function F() {\n  param([string]$Text)\n  $Text\n}');
    expect(document.errors).toEqual([]);
    expect(document.functions[0]?.paramBlock?.parameters.map((p) => p.name)).toEqual(['Text']);
    expect(readPowerShell('function F( <# none #> ) { param() }').errors).toEqual([]);
  });

  it('does not take hashtable keys or enum members for the filter or function keyword', () => {
    const document = readPowerShell(
      "$params = @{\n  Path = '.'\n  Filter = '*.ps1'\n  Function = 'x'\n}\nenum Kind { Function; Filter }\nGet-ChildItem @params",
    );
    expect(document.errors).toEqual([]);
    expect(document.functions).toEqual([]);
  });

  it('records the script-level facts the help rules need', () => {
    expect(readPowerShell('param()\nfunction f { }').firstStatementFunctionLine).toBe(2);
    expect(readPowerShell('param()\nbegin { }\nend { }').namedBlocks).toBe(true);
    expect(readPowerShell('Get-Date').firstStatementFunctionLine).toBeUndefined();
  });
});

import { describe, expect, it } from 'vitest';
import { describePowerShellScriptContent } from './describe-script.ts';

const PARAMS = `[CmdletBinding()]
param(
    # The name.
    [Parameter(Mandatory, Position = 0)][Alias('N')][string]$Name,
    # How many.
    [Parameter(Position = 1)][ValidateRange(1, 10)][int]$Count = 1,
    # Labels.
    [string[]]$Tags,
    # Options.
    [hashtable]$Options,
    # Force it.
    [switch]$Force
)`;

function examples(...lines: string[]) {
  const help = [
    '<#',
    '.SYNOPSIS',
    'Gets a widget.',
    ...lines.flatMap((l) => ['.EXAMPLE', l]),
    '#>',
  ];
  return describePowerShellScriptContent({
    path: '/x/Get-Widget.ps1',
    content: `${help.join('\n')}\n${PARAMS}\n'ok'`,
  });
}

describe('input examples from .EXAMPLE', () => {
  it('binds named, prefixed, aliased, switch and positional arguments with their types', () => {
    const result = examples(
      "Get-Widget -Name 'a' -Count 3 -Force\nGets a.\n\nThree of them.",
      'PS C:\\> .\\Get-Widget.ps1 b 2 -Fo:$false',
      '& ./get-widget.ps1 -N c -Tags x,y',
      "Get-Widget -Name d -Tags @('p', 'q') -Options @{ Depth = 2 }",
      'Get-Widget -Name 42 -Count:4',
    );
    expect(result.diagnostics.filter((d) => d.severity !== 'info')).toEqual([]);
    expect(result.tools[0]?.inputExamples).toEqual([
      { arguments: { Name: 'a', Count: 3, Force: true }, description: 'Gets a. Three of them.' },
      { arguments: { Force: false, Name: 'b', Count: 2 } },
      { arguments: { Name: 'c', Tags: ['x', 'y'] } },
      { arguments: { Name: 'd', Tags: ['p', 'q'], Options: { Depth: 2 } } },
      { arguments: { Name: '42', Count: 4 } },
    ]);
  });

  it('keeps examples that do not call the command or are read at run time out, silently', () => {
    const result = examples(
      'Get-Other -Name a',
      'Get-Widget -Name $env:USER',
      'Get-Widget -Name a | Format-List',
      'Get-Widget -Name (Get-Date)',
      'Get-Widget -Name a -Verbose',
      'Get-Widget -Name a `\n  -Count 2',
    );
    expect(result.tools[0]?.inputExamples).toBeUndefined();
    expect(result.diagnostics.filter((d) => d.code === 'W_EXAMPLE_IGNORED')).toEqual([]);
  });

  it('warns, with the line, about an example whose arguments do not fit the schema', () => {
    const result = examples(
      'Get-Widget -Name a -Count 99',
      'Get-Widget -Colour red',
      'Get-Widget -Count 2',
    );
    expect(result.tools[0]?.inputExamples).toBeUndefined();
    expect(
      result.diagnostics
        .filter((d) => d.code === 'W_EXAMPLE_IGNORED')
        .map((d) => [d.line, d.message]),
    ).toEqual([
      [5, expect.stringContaining('/Count must be <= 10')],
      [7, expect.stringContaining('-Colour, which is not a parameter')],
      [9, expect.stringContaining('Name')],
    ]);
  });

  it('gives no implicit positions once a parameter names a parameter set, as the engine does', () => {
    const content = [
      '<#',
      '.SYNOPSIS',
      'Gets a widget.',
      '.EXAMPLE',
      'Get-Widget 3 red',
      '.EXAMPLE',
      'Get-Widget -Count 3 -Color red',
      '#>',
      'param(',
      "    # How many.\n    [Parameter(ParameterSetName = 'ByCount')][int]$Count,",
      '    # The colour.\n    [string]$Color',
      ')',
    ].join('\n');
    const result = describePowerShellScriptContent({ path: '/x/Get-Widget.ps1', content });
    expect(result.tools[0]?.inputExamples).toEqual([{ arguments: { Count: 3, Color: 'red' } }]);
    expect(result.diagnostics.find((d) => d.code === 'W_EXAMPLE_IGNORED')?.message).toContain(
      'only 0 parameters take one',
    );
  });
});

import { describe, expect, it } from 'vitest';
import { findHashLiteralErrors } from './check-hash-literals.ts';
import { describePowerShellScriptContent } from './describe-script.ts';
import { tokenizePowerShell } from './tokenizer.ts';

const lines = (source: string) =>
  findHashLiteralErrors(tokenizePowerShell(source).tokens).map((problem) => problem.line);

describe('findHashLiteralErrors', () => {
  it('finds a key without its = on the line PowerShell names', () => {
    expect(lines('@{ a = 1; b }')).toEqual([1]);
    expect(lines('@{\n  a = 1\n  b\n}')).toEqual([3]);
    expect(lines('@{ a b = 1 }')).toEqual([1]);
    expect(lines('@{ Display-Name = 1 }')).toEqual([1]);
    expect(lines('$x = 1\n@{ ($x | Select-Object).name }')).toEqual([2]);
    expect(lines('@{ a = { x }\n  b }')).toEqual([2]);
  });

  it('reads valid literals without a word', () => {
    for (const source of [
      '@{}',
      '@{ a = 1; b = 2 }',
      "@{ 'a' = 1; \"b\" = 2; 3 = 'c'; (1 + 1) = 2; $k.Name = 1 }",
      '@{ a = @{ b = 1 }\n  c = 2 }',
      '@{ a = if ($x) { 1 }\n  else { 2 } }',
      '@{ a = 1 +\n  2; b = 3 }',
      '@{ a = Get-Item x\n  | Select-Object y; b = 1 }',
      '@{ a = 1 `\n  b = 2 }',
      '@{ $a.1 = 1 }',
    ])
      expect(lines(source), source).toEqual([]);
  });

  it('stops judging a literal at a value it cannot follow', () => {
    // `$a, $b` is an error for PowerShell too; a comma after a key is not one this reads for certain.
    expect(lines('@{ $a, $b = 1 }')).toEqual([]);
    expect(lines('@{ a = try { 1 }\n  catch { 2 }\n  b }')).toEqual([]);
  });

  it('refuses a script whose hash literal is a script block in disguise (E_PARSE with the line)', () => {
    // The shape of lazywinadmin's Get-PolicyComplianceData.ps1 (line 76 there).
    const content = [
      '<#',
      '.SYNOPSIS',
      'Adds a computed property.',
      '#>',
      'param()',
      'Get-Item . | Select-Object -Property *, @{',
      "    Label = 'Parent'",
      '    Expression = @{',
      '        $current = $_',
      '        ($current | Get-Item).Parent',
      '    }',
      '}',
      '',
    ].join('\n');
    const result = describePowerShellScriptContent({ path: '/scripts/Get-Parent.ps1', content });
    expect(result.tools).toEqual([]);
    expect(result.diagnostics).toContainEqual(
      expect.objectContaining({
        code: 'E_PARSE',
        line: 10,
        message: expect.stringMatching(/Missing '=' operator after key in hash literal/),
      }),
    );
  });
});

import { describe, expect, it } from 'vitest';
import { tokenizePowerShell } from './tokenizer.ts';
import type { Token } from './tokenizer.ts';

function kinds(source: string): string[] {
  return tokenizePowerShell(source)
    .tokens.filter((token) => token.kind !== 'end')
    .map((token) => `${token.kind}:${token.text}`);
}

function only(source: string, kind: Token['kind']): Token[] {
  return tokenizePowerShell(source).tokens.filter((token) => token.kind === kind);
}

describe('tokenizePowerShell', () => {
  it('splits a param block into brackets, words, variables and separators', () => {
    expect(kinds('param([Parameter(Mandatory=$true)][string]$Name, $x = 5)')).toEqual([
      'word:param',
      'open:(',
      'open:[',
      'word:Parameter',
      'open:(',
      'word:Mandatory',
      'equals:=',
      'variable:$true',
      'close:)',
      'close:]',
      'open:[',
      'word:string',
      'close:]',
      'variable:$Name',
      'comma:,',
      'variable:$x',
      'equals:=',
      'word:5',
      'close:)',
    ]);
  });

  it('reads line and block comments, with their lines', () => {
    const comments = only('# one\n<# two\nthree #>\n$x # four', 'comment');
    expect(comments.map((c) => [c.text, c.line, c.endLine])).toEqual([
      ['# one', 1, 1],
      ['<# two\nthree #>', 2, 3],
      ['# four', 4, 4],
    ]);
  });

  it('keeps # inside a bare word (PowerShell only starts a comment at a token start)', () => {
    expect(kinds('Write-Output a#b')).toEqual(['word:Write-Output', 'word:a#b']);
  });

  it('decodes single-quoted strings, doubled quotes and smart quotes', () => {
    const strings = only("'it''s' \u2018curly\u2019 'a#>b'", 'string');
    expect(strings.map((s) => s.value)).toEqual(["it's", 'curly', 'a#>b']);
  });

  it('decodes double-quoted escapes and marks interpolation', () => {
    const [plain, escaped, interpolated, sub] = only(
      '"a`tb" "`$x ""q""" "hi $name" "n: $(Get-X "inner)")"',
      'string',
    );
    expect(plain?.value).toBe('a\tb');
    expect(plain?.expandable).toBe(false);
    expect(escaped?.value).toBe('$x "q"');
    expect(escaped?.expandable).toBe(false);
    expect(interpolated?.expandable).toBe(true);
    expect(interpolated?.value).toBe('hi $name');
    expect(sub?.expandable).toBe(true);
    expect(tokenizePowerShell('"n: $(Get-X "inner)")"').errors).toEqual([]);
  });

  it('reads here-strings whose content looks like comments or param blocks', () => {
    const source = '$a = @\'\n#> param(\n\'@\n$b = @"\n<# $x\n"@\nparam()';
    const { tokens, errors } = tokenizePowerShell(source);
    expect(errors).toEqual([]);
    const strings = tokens.filter((t) => t.kind === 'string');
    expect(strings.map((s) => [s.value, s.expandable ?? false, s.line, s.endLine])).toEqual([
      ['#> param(', false, 1, 3],
      ['<# $x', true, 4, 6],
    ]);
    expect(tokens.filter((t) => t.kind === 'comment')).toEqual([]);
    expect(tokens.find((t) => t.text === 'param')?.line).toBe(7);
  });

  it('treats a backtick before a line break as a continuation', () => {
    expect(kinds('Get-Item `\n  -Path x')).toEqual(['word:Get-Item', 'word:-Path', 'word:x']);
    expect(only('a `\nb', 'word').map((t) => t.line)).toEqual([1, 2]);
  });

  it('reads scoped, braced and special variables', () => {
    expect(
      only('$env:PATH ${my var} $_ $script:x $$ @splat', 'variable').map((v) => v.value),
    ).toEqual(['env:PATH', 'my var', '_', 'script:x', '$', 'splat']);
  });

  it('pairs brackets', () => {
    const { tokens, errors } = tokenizePowerShell('@{ a = @(1, $(2)) }');
    expect(errors).toEqual([]);
    const open = tokens[0] as Token;
    expect(tokens[open.match as number]?.text).toBe('}');
  });

  it('reports unbalanced braces and parentheses with their lines', () => {
    expect(tokenizePowerShell('if ($x) {\n  1\n').errors).toEqual([
      { message: '"{" is never closed', line: 1 },
    ]);
    expect(tokenizePowerShell('1\n)').errors).toEqual([
      { message: '")" has no matching opening bracket', line: 2 },
    ]);
    expect(tokenizePowerShell('( }').errors[0]?.message).toBe(
      '"}" does not close "(" opened on line 1',
    );
  });

  it('leaves a stray [ or ] of a command argument alone', () => {
    expect(tokenizePowerShell('Write-Host [\nWrite-Host ]\nfunction f { [ }').errors).toEqual([]);
  });

  it('reports unterminated strings, here-strings and comments', () => {
    expect(tokenizePowerShell("'abc").errors).toEqual([
      { message: 'the string that starts here has no closing quote', line: 1 },
    ]);
    expect(tokenizePowerShell('x\n"abc').errors[0]?.line).toBe(2);
    expect(tokenizePowerShell('<# never').errors[0]?.message).toContain('"#>"');
    expect(tokenizePowerShell("@'\nnever").errors[0]?.message).toContain('"\'@"');
    expect(tokenizePowerShell('@" trailing\n"@').errors[0]?.message).toContain(
      'nothing may follow',
    );
  });

  it('ignores a byte order mark and handles CRLF', () => {
    const { tokens } = tokenizePowerShell('\uFEFFparam(\r\n$a\r\n)');
    expect(tokens.find((t) => t.kind === 'variable')?.line).toBe(2);
    expect(tokens[0]?.text).toBe('param');
  });

  it('reads the stop-parsing token to the end of its line', () => {
    expect(kinds('cmd --% a ( b\nx')).toEqual([
      'word:cmd',
      'word:--% a ( b',
      'newline:\n',
      'word:x',
    ]);
  });
});

import { describe, expect, it } from 'vitest';
import { compileLinearPattern, findPatternProblem } from './linear-pattern.ts';

/** What ECMAScript's own engine says, for patterns too small to backtrack for long. */
function testNative(pattern: string, text: string): boolean {
  return new RegExp(pattern, 'u').test(text);
}

describe('compileLinearPattern', () => {
  it('answers the ReDoS pattern in linear time: 34 letters and a b, and a million', () => {
    // The backtracking engine needs about a minute for 34 letters (tests/system/redos.test.ts
    // measures it beside the server); the linear one reads each letter once.
    const linear = compileLinearPattern('^(a|a)*$');
    expect(linear.test(`${'a'.repeat(34)}b`)).toBe(false);
    expect(linear.test('a'.repeat(34))).toBe(true);
    expect(linear.test(`${'a'.repeat(1_000_000)}b`)).toBe(false);
    expect(String(linear)).toBe('^(a|a)*$');
  });

  it.each([
    ['^[a-z]+$', ['abc', 'aBc', '', 'é']],
    ['\\d{3}-\\d{4}', ['555-1234', 'x555-1234y', '55-1234']],
    ['^\\s*$', [' \t\n', '\u00a0', '\u3000', '\ufeff', 'x', '\u200b']],
    ['^\\S+$', ['abc', 'a\u00a0b', '\u2028', 'x\u180ey']],
    ['^.$', ['a', '\n', '\r', '\u2028', '😀', '\u0085']],
    ['^[^]$', ['a', '\n']],
    ['^[]$', ['a', '']],
    ['^[\\s\\S]+$', ['anything\n\r']],
    ['^[a-c-e]+$', ['a-e', 'd', 'b']],
    ['^[-a]$', ['-', 'a', 'b']],
    ['^[\\w.+-]+@[\\w-]+\\.[\\w.]+$', ['a.b+c@d-e.fg', 'a@b', 'a b@c.d']],
    ['^\\p{L}+$', ['héllo', 'αβγ', 'a1']],
    ['^\\p{Letter}\\P{Lu}$', ['ab', 'aB']],
    ['^\\p{Script=Greek}+$', ['αβγ', 'abc']],
    ['^(?<year>\\d{4})-(?:\\d{2})$', ['2024-01', '24-01']],
    ['^\\u00e9\\u{1F600}\\x41\\cJ$', ['é😀A\n', 'é😀A']],
    ['^\\uD83D\\uDE00$', ['😀', '\ud83d']],
    ['^[\\b]$', ['\b', 'b']],
    ['\\bword\\b', ['a word here', 'swordfish']],
    ['^\\/\\.\\*\\{\\}\\[\\]\\(\\)\\|\\^\\$\\\\$', ['/.*{}[]()|^$\\']],
    ['^a{2,3}?b*?c+?$', ['aac', 'aaabbc', 'ac']],
    ['^[#&~ ]$', ['#', '&', '~', ' ', 'x']],
    ['^\\0$', ['\0', '0']],
  ])('matches as ECMAScript does: %s', (pattern, texts) => {
    const linear = compileLinearPattern(pattern);
    for (const text of texts)
      expect([text, linear.test(text)]).toEqual([text, testNative(pattern, text)]);
  });

  it.each([
    ['(a)\\1', 'a back-reference (\\1)'],
    ['(?<x>a)\\k<x>', 'a back-reference (\\k<x>)'],
    ['^(?=.*\\d)', 'a lookahead ((?=…)'],
    ['^(?!admin)', 'a lookahead ((?!…)'],
    ['(?<=@)x', 'a lookbehind ((?<=…)'],
    ['(?<!@)x', 'a lookbehind ((?<!…)'],
    [
      '\\p{Script_Extensions=Greek}',
      'the Unicode property \\p{Script_Extensions=Greek} (RE2 knows general categories such as \\p{L} and scripts such as \\p{Greek})',
    ],
  ])('refuses %s, saying it uses %s', (pattern, what) => {
    expect(findPatternProblem(pattern)).toBe(
      `the pattern ${JSON.stringify(pattern)} uses ${what}, which the linear-time engine (RE2) cannot run`,
    );
    expect(() => compileLinearPattern(pattern)).toThrow(what);
  });

  it('refuses what RE2 itself cannot run, and what is not ECMAScript at all', () => {
    expect(findPatternProblem('a{1001}')).toMatch(
      /^the pattern "a\{1001\}" cannot be run by the linear-time engine \(RE2\): .*invalid repeat count/,
    );
    expect(findPatternProblem('(a')).toMatch(/is not a valid ECMAScript regular expression/);
    // Valid for RE2 but not for ECMAScript with the `u` flag: JSON Schema's meaning wins.
    expect(findPatternProblem('\\Z')).toMatch(/is not a valid ECMAScript regular expression/);
    expect(findPatternProblem('^(a|a)*$')).toBeUndefined();
  });

  it('ignores case when asked, as the `i` flag does', () => {
    const folded = compileLinearPattern('^get-[a-z]+\\.ps1$', { ignoreCase: true });
    expect(folded.test('Get-Widget.PS1')).toBe(true);
    expect(new RegExp('^get-[a-z]+\\.ps1$', 'iu').test('Get-Widget.PS1')).toBe(true);
    expect(compileLinearPattern('^get-[a-z]+\\.ps1$').test('Get-Widget.PS1')).toBe(false);
  });
});

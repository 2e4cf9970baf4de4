import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fuzzRuns, fuzzTimeout } from '@toolpack/fuzz-runs';
import { hasPwsh, PWSH_TEST_TAG } from '@toolpack/pwsh-probe';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { convertDotNetPattern } from './dotnet-regex.ts';

function convert(pattern: string, ignoreCase = true): string | undefined {
  return convertDotNetPattern(pattern, { ignoreCase }).pattern;
}

describe('convertDotNetPattern', () => {
  it('spells letters both ways when matching ignores case', () => {
    expect(convert('^ab$')).toBe('^[aA][bB]$');
    expect(convert('^[a-c]+x$')).toBe('^[a-cA-C]+[xX]$');
    expect(convert('^[A-Z0-9_]+$')).toBe('^[A-Z0-9_a-z]+$');
    expect(convert('^[^a-z]$')).toBe('^[^a-zA-Z]$');
    expect(convert('^é$')).toBe('^[éÉ]$');
    expect(convert('^ab$', false)).toBe('^ab$');
  });

  it('leaves escapes, classes and quantifiers alone', () => {
    expect(convert('^\\d{3}-\\w+\\s*$')).toBe('^\\d{3}-\\w+\\s*$');
    expect(convert('^\\p{L}+$')).toBe('^\\p{L}+$');
    expect(convert('(?<year>\\d{4})-\\k<year>')).toBe('(?<year>\\d{4})-\\k<year>');
    expect(convert("(?'n'x)\\k'n'", false)).toBe('(?<n>x)\\k<n>');
    expect(convert('(?:a|b)(?=c)(?!d)(?<=e)(?<!f)', false)).toBe('(?:a|b)(?=c)(?!d)(?<=e)(?<!f)');
    expect(convert('a{2,}?b*?', false)).toBe('a{2,}?b*?');
  });

  it('rewrites .NET-only escapes', () => {
    expect(convert('\\Aabc\\z', false)).toBe('^abc$');
    expect(convert('abc\\Z', false)).toBe('abc(?=\\n?$)');
    expect(convert('\\e\\a', false)).toBe('\\x1b\\x07');
    expect(convert('\\#\\ \\-\\.\\@', false)).toBe('# -\\.@');
    expect(convert('[\\#\\-]', false)).toBe('[#\\-]');
    expect(convert('\\012', false)).toBe('\\x0a');
  });

  it('escapes braces that are not quantifiers and a leading ] in a class', () => {
    expect(convert('^{x}$', false)).toBe('^\\{x\\}$');
    expect(convert('[]a]', false)).toBe('[\\]a]');
  });

  it('keeps a literal - at either end of a class a literal when letters are folded', () => {
    // The PowerShell Gallery's date-format pattern: folded naively it became [dMyE,./ -DmYe].
    const converted = convert('^[dMyE,./ -]+$') as string;
    expect(converted).toBe('^[dMyE,./ \\-DmYe]+$');
    const regex = new RegExp(converted, 'u');
    expect(regex.test('dd-MM yyyy')).toBe(true);
    expect(regex.test('A')).toBe(false);
    expect(new RegExp(convert('^[-a]$') as string, 'u').test('B')).toBe(false);
  });

  it('drops comments', () => {
    expect(convert('a(?#why)b', false)).toBe('ab');
  });

  it('drops a leading (?i) with a warning', () => {
    const converted = convertDotNetPattern('(?i)^ab$', { ignoreCase: false });
    expect(converted.pattern).toBe('^[aA][bB]$');
    expect(converted.warnings[0]).toContain('(?i) was dropped');
    expect(convertDotNetPattern('(?-i)^ab$', { ignoreCase: true }).pattern).toBe('^ab$');
  });

  it('gives up on constructs ECMAScript lacks', () => {
    for (const pattern of [
      '(?>a)',
      '(?(a)b|c)',
      'a(?i)b',
      '(?m)^a',
      '[a-z-[aeiou]]',
      '\\G',
      '\\p{IsGreek}',
      '(?<a-b>x)',
      'abc\\',
      '[abc',
      '\\q',
    ]) {
      const converted = convertDotNetPattern(pattern, { ignoreCase: true });
      expect(converted.pattern, pattern).toBeUndefined();
      expect(converted.warnings.length, pattern).toBeGreaterThan(0);
    }
  });

  it('always produces a pattern that compiles with the u flag', () => {
    for (const pattern of [
      '^[a-zA-Z0-9._%+-]+@[a-z0-9.-]+\\.[a-z]{2,}$',
      '^\\d+(\\.\\d+){2}$',
      '^[\\w\\-\\.]+$',
      '^(https?|ftp)://[^\\s/$.?#].[^\\s]*$',
    ]) {
      const converted = convert(pattern);
      expect(converted, pattern).toBeDefined();
      expect(() => new RegExp(converted as string, 'u')).not.toThrow();
    }
  });

  it('keeps the meaning of the case-insensitive pattern', () => {
    const converted = new RegExp(convert('^[a-f0-9]{4}-ID$') as string, 'u');
    expect(converted.test('AbC1-id')).toBe(true);
    expect(converted.test('abcg-id')).toBe(false);
  });
});

/** Pieces a generated .NET pattern is made of: letters of both cases, class edges, `-`, quantifiers. */
const PATTERN_PIECES = [
  'a',
  'B',
  'd',
  'M',
  'y',
  'E',
  'z',
  '0',
  '9',
  ',',
  '.',
  '/',
  ' ',
  '-',
  '_',
  ':',
  '[',
  ']',
  '[^',
  'a-f',
  'A-F',
  '0-9',
  '-]',
  '[-',
  '\\d',
  '\\w',
  '\\s',
  '\\-',
  '\\.',
  '*',
  '+',
  '?',
  '{2}',
  '{1,3}',
  '|',
  '(',
  ')',
  '(?:',
  '^',
  '$',
];
const SUBJECT_CHARACTERS = 'aAbBdDeEfFmMyYzZ09,./ -_:[]^x'.split('');

/**
 * The converted pattern must accept exactly the strings .NET's Regex (IgnoreCase, as
 * ValidatePattern builds it) accepts. One pwsh process judges every pattern: the strings are
 * ASCII without line breaks, where .NET's `\d`/`\w`/`$` and ECMAScript's agree.
 */
describe.skipIf(!hasPwsh)('convertDotNetPattern against .NET', () => {
  it(
    `${PWSH_TEST_TAG} accepts what .NET's Regex accepts, with and without IgnoreCase`,
    () => {
      const cases = fc.sample(
        fc.record({
          pattern: fc
            .array(fc.constantFrom(...PATTERN_PIECES), { minLength: 1, maxLength: 8 })
            .map((pieces) => pieces.join('')),
          ignoreCase: fc.boolean(),
          subjects: fc.array(
            fc
              .array(fc.constantFrom(...SUBJECT_CHARACTERS), { maxLength: 6 })
              .map((chars) => chars.join('')),
            { minLength: 8, maxLength: 8 },
          ),
        }),
        { numRuns: fuzzRuns(1500), seed: 29 },
      );
      // Hand-picked edge cases always go along.
      cases.push(
        { pattern: '^[dMyE,./ -]+$', ignoreCase: true, subjects: ['dd-MM', 'A', 'D', ' ', '-'] },
        { pattern: '^[-a-c]$', ignoreCase: true, subjects: ['-', 'B', 'D', 'b'] },
        { pattern: '^[^-x]$', ignoreCase: true, subjects: ['-', 'X', 'y'] },
      );
      const work = mkdtempSync(join(tmpdir(), 'toolpack-regex-'));
      try {
        const input = join(work, 'cases.json');
        const output = join(work, 'verdicts.json');
        writeFileSync(input, JSON.stringify(cases), 'utf8');
        const script = [
          `$cases = Get-Content -Raw -LiteralPath '${input}' | ConvertFrom-Json`,
          '$verdicts = foreach ($case in $cases) {',
          "  $options = if ($case.ignoreCase) { 'IgnoreCase' } else { 'None' }",
          '  try { $regex = [regex]::new($case.pattern, $options) } catch { ,$null; continue }',
          '  ,@($case.subjects | ForEach-Object { $regex.IsMatch([string]$_) })',
          '}',
          `ConvertTo-Json -InputObject @($verdicts) -Depth 4 -Compress | Set-Content -LiteralPath '${output}'`,
        ].join('\n');
        execFileSync('pwsh', ['-NoLogo', '-NoProfile', '-NonInteractive', '-Command', script], {
          timeout: 300_000,
        });
        const verdicts = JSON.parse(readFileSync(output, 'utf8')) as Array<boolean[] | null>;
        expect(verdicts).toHaveLength(cases.length);
        let compared = 0;
        const differences: string[] = [];
        cases.forEach((testCase, index) => {
          const expected = verdicts[index];
          const converted = convertDotNetPattern(testCase.pattern, {
            ignoreCase: testCase.ignoreCase,
          }).pattern;
          if (expected === null || expected === undefined || converted === undefined) return;
          const regex = new RegExp(converted, 'u');
          testCase.subjects.forEach((subject, at) => {
            compared += 1;
            if (regex.test(subject) !== expected[at])
              differences.push(
                `${JSON.stringify(testCase.pattern)} (${testCase.ignoreCase ? 'IgnoreCase' : 'None'}) -> ${JSON.stringify(converted)} on ${JSON.stringify(subject)}: .NET ${String(expected[at])}`,
              );
          });
        });
        expect(differences.slice(0, 10)).toEqual([]);
        // Most generated patterns are valid .NET and convertible: the comparison is not empty.
        expect(compared).toBeGreaterThan(cases.length * 2);
      } finally {
        rmSync(work, { recursive: true, force: true });
      }
    },
    Math.max(fuzzTimeout(), 300_000),
  );
});

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

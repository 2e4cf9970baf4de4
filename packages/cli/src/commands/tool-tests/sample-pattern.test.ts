import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { samplePattern } from './sample-pattern.ts';
import { fuzzRuns, fuzzTimeout } from '@toolpack/fuzz-runs';

describe('samplePattern', { timeout: fuzzTimeout() }, () => {
  it.each([
    ['^\\d+\\.\\d+\\.\\d+$', '0.0.0'],
    ['^[a-z][a-z0-9-]*$', 'a'],
    ['^(?:GET|POST)$', 'GET'],
    ['^(?<year>\\d{4})-\\d{2}$', '0000-00'],
    ['^[^abc]x?y+$', 'xy'],
    ['^\\w{2,5}@\\w+\\.com$', 'aa@a.com'],
    ['^\\u0041\\x42$', 'AB'],
    ['^a{2}b{1,}c{0,3}$', 'aab'],
    ['[A-Z]{2}[0-9]', 'AA0'],
    // JavaScript, not POSIX: `[]` is an empty class, so `[][_-]` is `[]` then `[_-]`.
    ['^[^][_-]$', 'a_'],
  ])('samples %s as %s', (pattern, sample) => {
    expect(samplePattern(pattern)).toBe(sample);
    expect(new RegExp(pattern, 'u').test(sample)).toBe(true);
  });

  it('gives up on look-arounds, back-references and broken patterns', () => {
    for (const pattern of ['(?=a)b', '(a)\\1', '[abc', '(ab', 'a)', '*a', '\\p{L}', '[][_-]']) {
      expect(samplePattern(pattern)).toBeUndefined();
    }
  });

  it('never throws, and what it returns matches when the pattern compiles (fuzz)', () => {
    const piece = fc.constantFrom(
      'a',
      'Z',
      '0',
      '.',
      '\\d',
      '\\w',
      '\\s',
      '\\.',
      '[a-z]',
      '[^0-9]',
      '[_-]',
      '(',
      ')',
      '(?:',
      '|',
      '?',
      '*',
      '+',
      '{2}',
      '{1,3}',
      '^',
      '$',
      '[',
      ']',
      '\\',
      '-',
      '{',
      '}',
    );
    fc.assert(
      fc.property(
        fc.array(piece, { maxLength: 12 }).map((parts) => parts.join('')),
        (pattern) => {
          const sample = samplePattern(pattern);
          if (sample === undefined) return;
          let regex: RegExp;
          try {
            regex = new RegExp(pattern, 'u');
          } catch {
            return;
          }
          // Anchors in the middle can make a branch impossible; the caller re-checks, so only
          // a well-formed pattern without inner anchors must match.
          if (/.[\^]|\$./.test(pattern)) return;
          expect(regex.test(sample)).toBe(true);
        },
      ),
      { numRuns: fuzzRuns(3_000) },
    );
    fc.assert(
      fc.property(fc.string({ maxLength: 40 }), (pattern) => void samplePattern(pattern)),
      {
        numRuns: fuzzRuns(2_000),
      },
    );
  });
});

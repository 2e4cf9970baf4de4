import { describe, expect, it } from 'vitest';
import { parseDuration } from './parse-duration.ts';

describe('parseDuration', () => {
  const seconds = { defaultUnitMs: 1000 };

  it('reads numbers and bare text in the default unit', () => {
    expect(parseDuration(60, seconds)).toBe(60_000);
    expect(parseDuration('90', seconds)).toBe(90_000);
    expect(parseDuration(250, { defaultUnitMs: 1 })).toBe(250);
  });

  it('reads ms, s, m and h in any case, spaced or not', () => {
    expect(parseDuration('500ms', seconds)).toBe(500);
    expect(parseDuration(' 30 S ', seconds)).toBe(30_000);
    expect(parseDuration('2m', seconds)).toBe(120_000);
    expect(parseDuration('1H', seconds)).toBe(3_600_000);
    expect(parseDuration('0.0004s', seconds)).toBeCloseTo(0.4);
    expect(parseDuration('0', seconds)).toBe(0);
  });

  it('refuses what is not a duration', () => {
    for (const value of ['soon', '-5s', '5 days', '', '1e3', null, undefined, true, -1, Infinity])
      expect(parseDuration(value, seconds)).toBeUndefined();
  });

  it('refuses a long run of spaces before a wrong unit without backtracking through it', () => {
    // Quadratic before: 80 000 spaces took 7 s; a metadata timeout or TIMEOUT line is user text.
    expect(parseDuration(`1${' '.repeat(100_000)}x`, seconds)).toBeUndefined();
    expect(parseDuration(`1${' '.repeat(100_000)}m`, seconds)).toBe(60_000);
  });
});

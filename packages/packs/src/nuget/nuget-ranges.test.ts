import { describe, expect, it } from 'vitest';
import { toSemverRange } from './nuget-ranges.ts';

describe('NuGet version ranges as semver ranges', () => {
  it.each([
    [undefined, '*'],
    ['2.0', '>=2.0.0'],
    ['[2.0]', '2.0.0'],
    ['[1.0,2.0)', '>=1.0.0 <2.0.0'],
    ['(1.0,2.0]', '>1.0.0 <=2.0.0'],
    ['[1.0,)', '>=1.0.0'],
    ['(,2.0)', '<2.0.0'],
    ['(1.0)', undefined],
    ['[1.0.0.1,)', undefined],
  ])('range %s is %s', (nuget, semver) => {
    expect(toSemverRange(nuget)).toBe(semver);
  });
});

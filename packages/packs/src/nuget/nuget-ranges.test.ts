import { describe, expect, it } from 'vitest';
import { toSemverFromNuGetVersion, toPackNameFromNuGetId } from './nuget-names.ts';
import { toSemverRange } from './nuget-ranges.ts';

describe('NuGet versions, ranges and ids as semver and pack names', () => {
  it.each([
    ['1.0', '1.0.0'],
    ['1.2.3', '1.2.3'],
    ['1.2.3.0', '1.2.3'],
    ['01.02.03', '1.2.3'],
    ['1.0.0-beta.1', '1.0.0-beta.1'],
    ['1.0.0+build.5', '1.0.0'],
    ['1.0.0.1', undefined],
    ['one', undefined],
  ])('version %s is %s', (nuget, semver) => {
    expect(toSemverFromNuGetVersion(nuget)).toBe(semver);
  });

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

  it.each([
    ['EchoTools', 'echotools'],
    ['jira-tools', 'jira-tools'],
    ['Az.Accounts', undefined],
    ['Some_Module', undefined],
  ])('id %s is the pack %s', (id, name) => {
    expect(toPackNameFromNuGetId(id)).toBe(name);
  });
});

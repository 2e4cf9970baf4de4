import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fuzzRuns } from '@toolpack/fuzz-runs';
import { isValidPackName, isValidVersion } from '../names/pack-names.ts';
import {
  toNuGetIdFromPackName,
  toPackNameFromNuGetId,
  toSemverFromNuGetVersion,
} from './nuget-names.ts';

describe('NuGet ids as pack names', () => {
  // Ids as the PowerShell Gallery spells them.
  it.each([
    ['dbatools', 'dbatools'],
    ['PSFramework', 'psframework'],
    ['posh-git', 'posh-git'],
    ['Az.Accounts', 'az--accounts'],
    ['Microsoft.PowerShell.SecretManagement', 'microsoft--powershell--secretmanagement'],
    ['AWS.Tools.Common', 'aws--tools--common'],
    ['PnP.PowerShell', 'pnp--powershell'],
    ['Posh_Git', 'posh---git'],
    ['Some_Module.Core-Tools', 'some---module--core-tools'],
  ])('%s is the pack %s, and back', (id, name) => {
    expect(toPackNameFromNuGetId(id)).toBe(name);
    expect(toNuGetIdFromPackName(name)).toBe(id.toLowerCase());
  });

  it.each([
    // `_` next to another separator would give a run of hyphens that reads back as another id.
    ['Some__Module', 'some------module reads back as nothing'],
    ['A_.B', 'a-----b reads back as nothing'],
    ['_Private', 'a pack name cannot start with a hyphen'],
    ['Trailing_', 'a trailing --- reads back as nothing'],
    [`A.${'b'.repeat(62)}`, 'longer than 64 once written'],
    ['Über', 'pack names are ASCII'],
  ])('%s has no pack name (%s)', (id) => {
    expect(toPackNameFromNuGetId(id)).toBeUndefined();
  });

  it.each(['a----b', 'a-', 'owner/name', 'A', '-a'])('%s names no NuGet id', (name) => {
    expect(toNuGetIdFromPackName(name)).toBeUndefined();
  });

  it('keeps a plain pack name as its own id: every pack name without "--" is unchanged', () => {
    expect(toNuGetIdFromPackName('jira-tools')).toBe('jira-tools');
    expect(toPackNameFromNuGetId('jira-tools')).toBe('jira-tools');
  });

  // NuGet's own grammar for an id (NuGet.Packaging's PackageIdValidator, ASCII letters):
  // words of letters, digits and `_`, joined by single `.` or `-`.
  const word = fc.stringMatching(/^[A-Za-z0-9_]{1,6}$/);
  const nugetId = fc
    .tuple(word, fc.array(fc.tuple(fc.constantFrom('.', '-'), word), { maxLength: 5 }))
    .map(([first, rest]) => first + rest.map(([sep, w]) => sep + w).join(''));

  it('never gives two ids one pack name, and every name reads back as its id', () => {
    fc.assert(
      fc.property(nugetId, nugetId, (a, b) => {
        const nameA = toPackNameFromNuGetId(a);
        const nameB = toPackNameFromNuGetId(b);
        if (nameA !== undefined) {
          expect(isValidPackName(nameA)).toBe(true);
          expect(toNuGetIdFromPackName(nameA)).toBe(a.toLowerCase());
        }
        if (nameA !== undefined && nameA === nameB) expect(a.toLowerCase()).toBe(b.toLowerCase());
      }),
      { numRuns: fuzzRuns(2000) },
    );
  });

  it('is shown to collide without the read-back check: a bare replacement maps a._b and a_.b to one name', () => {
    const bare = (id: string) =>
      id.toLowerCase().replace(/[-._]/g, (s) => ({ '-': '-', '.': '--', _: '---' })[s]!);
    expect(bare('a._b')).toBe(bare('a_.b'));
    expect(toPackNameFromNuGetId('a._b')).toBeUndefined();
    expect(toPackNameFromNuGetId('a_.b')).toBeUndefined();
  });
});

describe("NuGet versions as semver, by NuGet's normalisation rules", () => {
  it.each([
    // Padded to three parts; a fourth part of 0 dropped.
    ['1.0', '1.0.0'],
    ['1', '1.0.0'],
    ['1.2.3', '1.2.3'],
    ['1.2.3.0', '1.2.3'],
    ['1.2.3.00', '1.2.3'],
    // Leading zeros are no part of a number.
    ['01.02.03', '1.2.3'],
    ['1.00.0', '1.0.0'],
    ['2.010.0.0', '2.10.0'],
    // Prerelease labels as Publish-PSResource writes them (ModuleVersion + PSData.Prerelease)
    // and as SemVer 2 packages carry them; their case is kept.
    ['1.2.0-preview1', '1.2.0-preview1'],
    ['1.2.0-Beta2', '1.2.0-Beta2'],
    ['1.0.0-beta.1', '1.0.0-beta.1'],
    ['1.0.0.0-rc1', '1.0.0-rc1'],
    ['1.0-alpha', '1.0.0-alpha'],
    // Build metadata is no part of a version's identity.
    ['1.0.0+build.5', '1.0.0'],
    ['1.0.0-rc.1+sha.abc', '1.0.0-rc.1'],
    [' 1.0.0 ', '1.0.0'],
    // What semver cannot spell.
    ['1.0.0.1', undefined],
    ['1.2.3.4-beta', undefined],
    ['1.0.0-beta.01', undefined],
    ['1.0.0-', undefined],
    ['2147483648.0.0', undefined],
    ['2147483647.0.0', '2147483647.0.0'],
    ['1.2.3.4.5', undefined],
    ['1..2', undefined],
    ['v1.0.0', undefined],
    ['one', undefined],
    ['', undefined],
  ])('%s is %s', (nuget, semver) => {
    expect(toSemverFromNuGetVersion(nuget)).toBe(semver);
  });

  it('gives a valid, already normal semver or nothing, for any four numbers and label', () => {
    const part = fc.oneof(fc.nat({ max: 30 }).map(String), fc.stringMatching(/^0{0,3}[0-9]{1,4}$/));
    fc.assert(
      fc.property(
        fc.array(part, { minLength: 1, maxLength: 4 }),
        fc.option(fc.stringMatching(/^[A-Za-z0-9.]{1,8}$/), { nil: undefined }),
        (parts, label) => {
          const nuget = `${parts.join('.')}${label === undefined ? '' : `-${label}`}`;
          const semver = toSemverFromNuGetVersion(nuget);
          if (semver === undefined) return;
          expect(isValidVersion(semver)).toBe(true);
          expect(toSemverFromNuGetVersion(semver)).toBe(semver);
          const numbers = parts.map(Number);
          expect(semver.split('-')[0]).toBe(
            [numbers[0], numbers[1] ?? 0, numbers[2] ?? 0].join('.'),
          );
        },
      ),
      { numRuns: fuzzRuns(2000) },
    );
  });
});

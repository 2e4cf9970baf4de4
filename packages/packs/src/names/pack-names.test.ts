import { describe, expect, it } from 'vitest';
import {
  defaultAlias,
  isValidPackName,
  parsePackSpecifier,
  readPackDependency,
  toServedToolName,
  writePackDependency,
} from './pack-names.ts';

describe('pack names', () => {
  it('accepts [a-z0-9-]{1,64}, optionally owner/name', () => {
    for (const name of ['jira', 'a', 'json-tools', 'acme/jira', '0x', 'a'.repeat(64)])
      expect(isValidPackName(name), name).toBe(true);
    for (const name of [
      'Jira',
      'ji ra',
      'a/b/c',
      '/jira',
      'jira/',
      '-jira',
      'a'.repeat(65),
      '',
      'jira_x',
      '../x',
    ])
      expect(isValidPackName(name), name).toBe(false);
  });

  it('aliases an owner/name pack by its name', () => {
    expect(defaultAlias('acme/jira')).toBe('jira');
    expect(defaultAlias('jira')).toBe('jira');
  });
});

describe('parsePackSpecifier', () => {
  it('reads name, name@range and owner/name@range', () => {
    expect(parsePackSpecifier('jira')).toEqual({ name: 'jira' });
    expect(parsePackSpecifier('jira@^1.2.0')).toEqual({ name: 'jira', range: '^1.2.0' });
    expect(parsePackSpecifier('acme/jira@1.x')).toEqual({ name: 'acme/jira', range: '1.x' });
  });

  it('refuses a bad name or range with a usage error', () => {
    expect(() => parsePackSpecifier('Jira')).toThrow(/not a valid pack name/);
    expect(() => parsePackSpecifier('jira@^x')).toThrow(/"\^x" is not a valid semver range/);
  });
});

describe('packs: entries', () => {
  it('reads name: range and alias: name@range, and writes them back', () => {
    const plain = readPackDependency('jira', '^1.2.0');
    expect(plain).toEqual({ alias: 'jira', name: 'jira', range: '^1.2.0' });
    const aliased = readPackDependency('tracker', 'acme/jira@~2.1');
    expect(aliased).toEqual({ alias: 'tracker', name: 'acme/jira', range: '~2.1' });
    const owned = readPackDependency('acme/wiki', '1.x');
    expect(owned).toEqual({ alias: 'wiki', name: 'acme/wiki', range: '1.x' });
    for (const d of [plain, aliased, owned]) {
      if (typeof d === 'string') throw new Error(d);
      const { key, value } = writePackDependency(d);
      expect(readPackDependency(key, value)).toEqual(d);
    }
  });

  it('explains what is wrong', () => {
    expect(readPackDependency('jira', '^x')).toBe('"^x" is not a valid semver range');
    expect(readPackDependency('Jira', '1.0.0')).toMatch(/"Jira" is not a valid pack name/);
    expect(readPackDependency('t', 'jira@')).toBe('"" is not a valid semver range');
  });
});

describe('toServedToolName', () => {
  it('prefixes with the alias, never twice', () => {
    expect(toServedToolName('jira', 'search_issues')).toBe('jira_search_issues');
    expect(toServedToolName('jira', 'jira_search_issues')).toBe('jira_search_issues');
    expect(toServedToolName('jira', 'Get-Issue')).toBe('jira_Get_Issue');
  });
});

import { describe, expect, it } from 'vitest';
import type { PackDoc, VersionDoc } from '../registry/registry-types.ts';
import { buildPackDoc } from '../registry/version-doc.ts';
import { selectVersion } from './resolve-version.ts';

function pack(versions: Record<string, { yanked?: boolean }>): PackDoc {
  return buildPackDoc(
    Object.entries(versions).map(
      ([version, extra]) =>
        ({
          name: 'jira',
          version,
          description: '',
          tags: [],
          tools: [],
          env: [],
          dist: { tarball: 'x', integrity: 'x', size: 0, fileCount: 0 },
          ...extra,
        }) satisfies VersionDoc,
    ),
  );
}

describe('selectVersion', () => {
  const jira = pack({
    '1.0.0': {},
    '1.2.0': {},
    '1.3.0': { yanked: true },
    '1.4.0-beta.1': {},
    '2.0.0': {},
  });

  it('takes the highest satisfying version', () => {
    expect(selectVersion(jira, '^1.0.0')).toBe('1.2.0');
    expect(selectVersion(jira, '>=1.0.0')).toBe('2.0.0');
    expect(selectVersion(jira, '1.0.0')).toBe('1.0.0');
  });

  it('leaves out yanked versions and prereleases the range does not name', () => {
    expect(() => selectVersion(jira, '~1.3.0')).toThrow(
      /No version of jira matches ~1\.3\.0 \(1\.3\.0 was yanked\); available: 2\.0\.0, 1\.4\.0-beta\.1, 1\.2\.0, 1\.0\.0/,
    );
    expect(selectVersion(jira, '^1.4.0-beta.0')).toBe('1.4.0-beta.1');
  });

  it('takes latest without a range', () => {
    expect(jira.latest).toBe('2.0.0');
    expect(selectVersion(jira)).toBe('2.0.0');
    expect(selectVersion(pack({ '1.0.0': {}, '2.0.0': { yanked: true } }))).toBe('1.0.0');
  });

  it('explains when nothing can be installed', () => {
    expect(() => selectVersion(pack({ '1.0.0': { yanked: true } }))).toThrow(
      /no installable version \(all yanked\)/,
    );
    expect(() => selectVersion(pack({ '1.0.0-rc.1': {} }))).toThrow(/only prerelease versions/);
    expect(() => selectVersion(jira, '^3.0.0')).toThrow(
      expect.objectContaining({
        code: 'E_NO_MATCHING_VERSION',
        hint: expect.stringMatching(/jira@\^2\.0\.0/),
      }),
    );
  });
});

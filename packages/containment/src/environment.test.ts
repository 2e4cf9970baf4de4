import { describe, expect, it } from 'vitest';
import { buildToolEnvironment, findWithheldAllowListEntries } from './environment.ts';

describe('buildToolEnvironment', () => {
  const source = {
    PATH: '/bin',
    HOME: '/home/ada',
    LC_ALL: 'C.UTF-8',
    GITHUB_TOKEN: 'secret',
    AWS_SECRET_ACCESS_KEY: 'secret',
    JIRA_API_TOKEN: 'jira',
    MY_APP_URL: 'https://example.test',
    MY_APP_MODE: 'dev',
  };

  it('passes the allow-list only, never the whole environment', () => {
    expect(buildToolEnvironment({ source, platform: 'linux' })).toEqual({
      PATH: '/bin',
      HOME: '/home/ada',
      LC_ALL: 'C.UTF-8',
    });
  });

  it('adds names and prefixes from the options, then explicit values', () => {
    const environment = buildToolEnvironment({
      source,
      platform: 'linux',
      allowList: ['JIRA_API_TOKEN', 'MY_APP_*'],
      values: { EXTRA: '1', PATH: '/custom' },
    });
    expect(environment).toEqual({
      PATH: '/custom',
      HOME: '/home/ada',
      LC_ALL: 'C.UTF-8',
      JIRA_API_TOKEN: 'jira',
      MY_APP_URL: 'https://example.test',
      MY_APP_MODE: 'dev',
      EXTRA: '1',
    });
  });

  it('matches names case-insensitively on Windows', () => {
    const environment = buildToolEnvironment({
      source: { Path: 'C:\\bin', SystemRoot: 'C:\\Windows', Secret: 'x' },
      platform: 'win32',
    });
    expect(environment).toEqual({ Path: 'C:\\bin', SystemRoot: 'C:\\Windows' });
  });
});

describe('withheld names', () => {
  const source = {
    PATH: '/bin',
    TOOLPACK_TOKEN: 'bearer',
    TOOLPACK_REGISTRY: 'https://user:pass@registry.test',
    TOOLPACK_PROJECT_ROOT: '/p',
  };

  it('never passes the server’s own secrets, even when a pattern matches them', () => {
    const warnings: string[] = [];
    const environment = buildToolEnvironment({
      source,
      platform: 'linux',
      allowList: ['TOOLPACK_*', 'TOOLPACK_TOKEN'],
      onWarning: (message) => warnings.push(message),
    });
    expect(environment).toEqual({ PATH: '/bin', TOOLPACK_PROJECT_ROOT: '/p' });
    expect(warnings).toHaveLength(2);
    expect(warnings[1]).toContain('"TOOLPACK_TOKEN"');
  });

  it('withholds them whatever their case on Windows', () => {
    const environment = buildToolEnvironment({
      source: { Path: 'C:\\bin', Toolpack_Token: 'bearer' },
      platform: 'win32',
      allowList: ['toolpack_*'],
    });
    expect(environment).toEqual({ Path: 'C:\\bin' });
  });

  it('still lets the runner set one explicitly for its own child', () => {
    const environment = buildToolEnvironment({
      source,
      platform: 'linux',
      values: { TOOLPACK_HOST_TOKEN: 'per-host' },
    });
    expect(environment.TOOLPACK_HOST_TOKEN).toBe('per-host');
    expect(environment.TOOLPACK_TOKEN).toBeUndefined();
  });

  it('lists the allow-list entries that name a withheld variable', () => {
    expect(findWithheldAllowListEntries(['JIRA_*', 'TOOLPACK_T*'], 'linux')).toEqual([
      { entry: 'TOOLPACK_T*', names: ['TOOLPACK_TOKEN', 'TOOLPACK_TEST_TOKEN'] },
    ]);
  });
});

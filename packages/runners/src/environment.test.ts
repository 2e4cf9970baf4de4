import { describe, expect, it } from 'vitest';
import { buildToolEnvironment } from './environment.ts';

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

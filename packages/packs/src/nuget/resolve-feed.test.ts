import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { resolveFeed } from './resolve-feed.ts';

const projectDir = path.resolve('/work/project');
const feeds = {
  corp: { url: 'https://pkgs.example.com/v3/index.json', usernameEnv: 'U', passwordEnv: 'P' },
  token: { url: 'https://nuget.example.com/v3/index.json', passwordEnv: 'TOKEN' },
  local: { url: './modules' },
};

describe('resolveFeed', () => {
  it('a feed of toolpack.yaml by name, with its login from the variables it names', () => {
    expect(
      resolveFeed({
        source: 'corp',
        feeds,
        env: { U: 'me', P: 'pw' },
        cwd: '/elsewhere',
        projectDir,
      }),
    ).toEqual({
      location: 'https://pkgs.example.com/v3/index.json',
      source: 'corp',
      credentials: { username: 'me', password: 'pw' },
    });
    // A token feed takes any user name.
    expect(
      resolveFeed({ source: 'token', feeds, env: { TOKEN: 't' }, cwd: projectDir, projectDir })
        .credentials,
    ).toEqual({ username: 'toolpack', password: 't' });
    // A named folder is the project's.
    expect(resolveFeed({ source: 'local', feeds, env: {}, cwd: '/elsewhere', projectDir })).toEqual(
      {
        location: path.join(projectDir, 'modules'),
        source: 'local',
      },
    );
  });

  it('refuses a named feed whose login variables are not set, naming them', () => {
    expect(() =>
      resolveFeed({ source: 'corp', feeds, env: { U: 'me' }, cwd: projectDir, projectDir }),
    ).toThrow(/The feed corp in toolpack\.yaml logs in with P, which is not set/);
  });

  it('a URL as given; a folder from where it was typed, recorded relative to the project', () => {
    expect(
      resolveFeed({
        source: 'https://www.powershellgallery.com/api/v2',
        env: {},
        cwd: projectDir,
        projectDir,
      }),
    ).toEqual({
      location: 'https://www.powershellgallery.com/api/v2',
      source: 'https://www.powershellgallery.com/api/v2',
    });
    expect(
      resolveFeed({ source: '../repo', env: {}, cwd: path.join(projectDir, 'sub'), projectDir }),
    ).toEqual({ location: path.join(projectDir, 'repo'), source: 'repo' });
    // A name that only looks like a feed's, on a prototype, is a folder.
    expect(
      resolveFeed({ source: 'constructor', feeds, env: {}, cwd: projectDir, projectDir }).source,
    ).toBe('constructor');
  });
});

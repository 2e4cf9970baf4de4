import { describe, expect, it } from 'vitest';
import { parseManifest } from './parse-manifest.ts';

describe('feeds: in toolpack.yaml', () => {
  it('reads named NuGet feeds: a URL or folder alone, or with the variables of its login', () => {
    const { manifest, diagnostics } = parseManifest(
      [
        'feeds:',
        '  psgallery: https://www.powershellgallery.com/api/v2',
        '  local: ./modules',
        '  corp:',
        '    url: https://pkgs.example.com/nuget/v3/index.json',
        '    usernameEnv: CORP_USER',
        '    passwordEnv: CORP_TOKEN',
        '',
      ].join('\n'),
      { path: 'toolpack.yaml' },
    );
    expect(diagnostics).toEqual([]);
    expect(manifest?.feeds).toEqual({
      psgallery: { url: 'https://www.powershellgallery.com/api/v2' },
      local: { url: './modules' },
      corp: {
        url: 'https://pkgs.example.com/nuget/v3/index.json',
        usernameEnv: 'CORP_USER',
        passwordEnv: 'CORP_TOKEN',
      },
    });
  });

  it('refuses a login written into the file, a bad variable name and a bad feed name, at their lines', () => {
    const { manifest, diagnostics } = parseManifest(
      [
        'feeds:',
        '  corp:',
        '    url: https://pkgs.example.com/nuget/v3/index.json',
        '    password: hunter2',
        '  other:',
        '    url: https://example.com/api/v2',
        '    passwordEnv: not-a-variable',
        '  "bad name": https://example.com/api/v2',
        '',
      ].join('\n'),
      { path: 'toolpack.yaml' },
    );
    expect(manifest).toBeUndefined();
    expect(diagnostics.map((d) => [d.line, d.message])).toEqual(
      expect.arrayContaining([
        [4, expect.stringMatching(/feeds\.corp.*password/)],
        [7, expect.stringMatching(/"not-a-variable" is not an environment variable name/)],
        [8, expect.stringMatching(/"bad name" is not a feed name/)],
      ]),
    );
  });
});

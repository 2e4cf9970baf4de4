import { describe, expect, it } from 'vitest';
import { buildTarball, packManifestText } from '../testing/build-tarball.ts';
import { classifyNameCharacter, escapeFileName } from './file-name-characters.ts';
import { inspectTarball } from './read-tarball.ts';

function inspect(names: string[]) {
  return inspectTarball(
    buildTarball([
      { path: 'package/toolpack.yaml', data: packManifestText('names', '1.0.0') },
      ...names.map((name) => ({ path: `package/${name}`, data: 'x' })),
    ]),
    { label: 'The tarball' },
  );
}
const range = (from: number, to: number) =>
  Array.from({ length: to - from + 1 }, (_, i) => from + i);

describe('file names a pack may hold', () => {
  it('refuses every bidirectional control, as one', () => {
    const bidi = [0x061c, 0x200e, 0x200f, ...range(0x202a, 0x202e), ...range(0x2066, 0x2069)];
    for (const code of bidi)
      expect(classifyNameCharacter(String.fromCodePoint(code)), code.toString(16)).toBe(
        'a bidirectional control',
      );
  });

  it('refuses control, invisible and space-like characters', () => {
    const refused = [
      ...range(0x00, 0x1f),
      ...range(0x7f, 0x9f),
      0x00a0, // no-break space
      0x00ad, // soft hyphen
      0x034f, // combining grapheme joiner
      0x115f,
      0x1160,
      0x3164,
      0xffa0, // Hangul fillers
      0x180e, // Mongolian vowel separator
      ...range(0x2000, 0x200d), // spaces, zero-width space and joiners
      0x2028,
      0x2029,
      0x202f,
      0x205f,
      ...range(0x2060, 0x2064),
      ...range(0x206a, 0x206f),
      0x2800, // blank Braille pattern
      0x3000,
      ...range(0xfe00, 0xfe0f), // variation selectors
      0xfeff,
      ...range(0xfff9, 0xfffb),
      0xfffd,
      0xe0001,
      ...range(0xe0020, 0xe007f), // tag characters
      0xe0100,
    ];
    for (const code of refused)
      expect(classifyNameCharacter(String.fromCodePoint(code)), code.toString(16)).toBeDefined();
  });

  it('allows names in any script, with plain spaces', () => {
    const names = [
      'README.md',
      'scripts/my tool.sh',
      'docs/日本語.md',
      'docs/Ελληνικά.txt',
      'docs/العربية.txt',
      'docs/עברית.txt',
      'docs/हिन्दी.txt',
      'docs/café.md',
      'docs/😀.md',
    ];
    expect(inspect(names).problems).toEqual([]);
  });

  it('names the entry, each character found and what it is, and escapes the name', () => {
    const [problem, ...others] = inspect(['ok.sh', 'scripts/a\u202Eb\u200Bc\u202E.sh']).problems;
    expect(others).toEqual([]);
    expect(problem).toMatchObject({
      severity: 'error',
      code: 'E_TARBALL_PATH_CHARACTER',
      path: 'The tarball:package/scripts/a\\u{202E}b\\u{200B}c\\u{202E}.sh',
    });
    expect(problem?.message).toMatch(
      /^package\/scripts\/a\\u\{202E\}b\\u\{200B\}c\\u\{202E\}\.sh has U\+202E RIGHT-TO-LEFT OVERRIDE \(a bidirectional control\), U\+200B ZERO WIDTH SPACE \(an invisible character\) in its name/,
    );
    expect(escapeFileName('plain name.md')).toBe('plain name.md');
  });

  it('refuses a folder entry with such a name too', () => {
    const result = inspectTarball(
      buildTarball([
        { path: 'package/toolpack.yaml', data: packManifestText('names', '1.0.0') },
        { path: 'package/doc\u202Es/', type: 'Directory' },
      ]),
    );
    expect(result.problems.map((p) => p.code)).toEqual(['E_TARBALL_PATH_CHARACTER']);
  });

  it('refuses two names that are one once normalised', () => {
    const { problems } = inspect(['caf\u00e9.md', 'CAFE\u0301.md']);
    expect(problems.map((p) => p.code)).toEqual(['E_TARBALL_DUPLICATE']);
  });
});

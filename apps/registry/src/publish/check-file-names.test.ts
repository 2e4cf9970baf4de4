import { describe, expect, it } from 'vitest';
import { checkFileNames, classifyNameCharacter, escapeFileName } from './check-file-names.ts';

const file = (path: string) => ({ path, data: Buffer.from('x') });
const range = (from: number, to: number) =>
  Array.from({ length: to - from + 1 }, (_, i) => from + i);

describe('checkFileNames', () => {
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
    expect(checkFileNames(names.map(file), 'The tarball')).toEqual([]);
  });

  it('names the entry, each character found and what it is, and escapes the name', () => {
    const [problem, ...others] = checkFileNames(
      [file('ok.sh'), file('scripts/a\u202Eb\u200Bc\u202E.sh')],
      'The tarball',
    );
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

  it('refuses two names that are one once normalised', () => {
    const problems = checkFileNames([file('caf\u00e9.md'), file('CAFE\u0301.md')], 'The tarball');
    expect(problems.map((p) => p.code)).toEqual(['E_TARBALL_DUPLICATE']);
  });
});

import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  compileIgnorePattern,
  findIgnoreFileProblems,
  isIgnored,
  parseIgnoreFile,
} from './ignore-rules.ts';

const readFixture = (name: string) =>
  readFileSync(path.join(import.meta.dirname, 'fixtures', 'ignore', name), 'utf8');

describe('.toolpackignore rules', () => {
  const rules = parseIgnoreFile(`
# comment
*.log
!keep.log
/build
docs/**/*.tmp
cache/
a?c.txt
[Tt]mp*
`);
  const cases: [string, boolean, boolean][] = [
    ['x.log', false, true],
    ['deep/x.log', false, true],
    ['keep.log', false, false],
    ['build', true, true],
    ['src/build', true, false],
    ['docs/a/b/c.tmp', false, true],
    ['docs/c.tmp', false, true],
    ['cache', true, true],
    ['cache', false, false],
    ['abc.txt', false, true],
    ['abbc.txt', false, false],
    ['Tmp1', false, true],
    ['tmp', false, true],
    ['script.ps1', false, false],
  ];
  it.each(cases)('%s (folder: %s) ignored: %s', (file, isDirectory, expected) => {
    expect(isIgnored(file, isDirectory, rules)).toBe(expected);
  });

  it('always leaves out secrets and foreign folders, whatever the rules say', () => {
    const reinclude = parseIgnoreFile('!.env\n!*.pem\n!node_modules\n');
    for (const [file, dir] of [
      ['.git', true],
      ['sub/node_modules', true],
      ['.toolpack', true],
      ['.env', false],
      ['.env.local', false],
      ['certs/server.pem', false],
      ['deploy.key', false],
      ['id_rsa', false],
      ['id_rsa.pub', false],
      ['old-1.0.0.tgz', false],
    ] as const) {
      expect(isIgnored(file, dir, reinclude), file).toBe(true);
    }
  });
});

describe('a realistic .toolpackignore (answers checked against git 2.39)', () => {
  const rules = parseIgnoreFile(readFixture('realistic.toolpackignore'));
  const cases: [string, boolean, boolean][] = [
    ['dist/index.js', false, true],
    ['src/dist/index.js', false, false],
    ['coverage', false, true],
    ['coverage/lcov.info', false, true],
    ['server.log', false, true],
    ['logs/a/server.log', false, true],
    ['important.log', false, false],
    ['sub/important.log', false, false],
    ['tmp', false, false],
    ['tmp', true, true],
    ['tmp/x.txt', false, true],
    ['src/tmp/x.txt', false, true],
    ['pkg/__pycache__/m.pyc', false, true],
    ['__pycache__/m.txt', false, true],
    ['m.pyc', false, true],
    ['m.pyo', false, true],
    ['m.pyd', false, true],
    ['m.py', false, false],
    ['.vscode/settings.json', false, true],
    ['.notes.swp', false, true],
    ['.notes.swpx', false, false],
    ['file~', false, true],
    ['tests/data/big.bin', false, true],
    ['tests/data/x/sample-1.json', false, false],
    ['tests/data/sample-2.json', false, false],
    ['tests/data/x/other.json', false, true],
    ['tests/data/x', true, false],
    ['tests/run.ts', false, false],
    ['docs/guide.md', false, true],
    ['docs/README.md', false, false],
    ['docs/img', true, true],
    ['docs/img/a.png', false, true],
    ['#notes.md', false, true],
    ['!draft.txt', false, true],
    ['trailing-space ', false, true],
    ['trailing-space', false, false],
    ['literal*.txt', false, true],
    ['literalX.txt', false, false],
    ['12-old.bak', false, true],
    ['1a-old.bak', false, false],
    ['scratch1', true, true],
    ['scratch1', false, false],
    ['scratch1/x.txt', false, true],
    ['scratchs/x.txt', false, false],
    ['src', true, false],
    ['tools/get-thing/script.ps1', false, false],
  ];
  it.each(cases)('%s (folder: %s) ignored: %s', (file, isDirectory, expected) => {
    expect(isIgnored(file, isDirectory, rules)).toBe(expected);
  });
});

describe('wildcards, classes and escapes as git reads them', () => {
  const decide = (pattern: string, file: string, isDirectory = false) =>
    isIgnored(file, isDirectory, parseIgnoreFile(pattern));

  it.each([
    // `**` spans folders only as a whole segment; elsewhere it is a `*`.
    ['a/**', 'a/b/c', true],
    ['a/**', 'a', false],
    ['a/**/b', 'a/b', true],
    ['a/**/b', 'a/x/y/b', true],
    ['a/**/b', 'a/xb', false],
    ['**/b', 'b', true],
    ['**/b', 'x/y/b', true],
    ['***/b', 'x/y/b', true],
    ['a/**b', 'a/xb', true],
    ['a/**b', 'a/x/b', false],
    ['**\\/b', 'b', false],
    ['**\\/b', 'x/b', true],
    ['**\\/b', 'x/y/b', true],
    ['a/**\\/b', 'a/b', false],
    ['a/**\\/b', 'a/x/y/b', true],
    [`${'**/'.repeat(5)}b`, 'b', true],
    ['/**', 'any/thing', true],
    ['a*', 'x/abc', true],
    ['x/a*', 'x/a/b', true],
    ['x/a*', 'x/b/a', false],
    ['a?c', 'a/c', false],
    ['d/a?c', 'd/a/c', false],
    // Classes: `]` first is a member, `!`/`^` negate, `\` escapes, POSIX names, never `/`.
    ['[]]', ']', true],
    ['[]a]', 'a', true],
    ['[!]]', ']', false],
    ['[!]]', 'x', true],
    ['[\\]]', ']', true],
    ['[^a]', 'b', true],
    ['[^a]', 'a', false],
    ['[a-c]x', 'bx', true],
    ['[a-c]x', 'dx', false],
    ['[a-]', '-', true],
    ['[[:digit:][:upper:]]', '7', true],
    ['[[:digit:][:upper:]]', 'Q', true],
    ['[[:digit:][:upper:]]', 'q', false],
    ['[[:space:]]x', ' x', true],
    ['[[:a]', ':', true],
    ['d/a[/]b', 'd/a/b', false],
    ['d/a[!x]b', 'd/a/b', false],
    // Escapes
    ['\\*', '*', true],
    ['\\*', 'x', false],
    ['\\?', '?', true],
    ['\\[x]', '[x]', true],
    ['a\\/b', 'a/b', true],
    ['\\a', 'a', true],
    // One character, even beyond the BMP (git compares bytes and would need `????`).
    ['?.txt', '😀.txt', true],
    ['[😀]', '😀', true],
    ['[é-ë😀α-γ]x', 'êx', true],
    ['[é-ë😀α-γ]x', 'βx', true],
    ['[é-ë😀α-γ]x', 'δx', false],
    ['[!é-ëα-γ]x', 'δx', true],
    ['[!é-ëα-γ]x', 'ëx', false],
    ['[α-γβ-δ]', 'δ', true],
    ['[α-γβ-δ]', 'ε', false],
    ['[γα]', 'γ', true],
    ['[γα]', 'β', false],
  ] as const)('%s against %s: %s', (pattern, file, expected) => {
    expect(decide(pattern, file)).toBe(expected);
  });

  it('matches nothing for a pattern git cannot complete: a lone `[` or a trailing `\\`', () => {
    for (const pattern of ['x[', '[!', '[]', 'x\\', '[a\\', '[[:nope:]]', '[[:alpha:']) {
      const rules = parseIgnoreFile(pattern);
      for (const file of ['x[', 'x', '[', 'x\\', 'a', '[]']) {
        expect(isIgnored(file, false, rules), `${pattern} / ${file}`).toBe(false);
      }
    }
  });

  it('trims unescaped trailing spaces and keeps escaped ones, as git does', () => {
    expect(decide('a  ', 'a')).toBe(true);
    expect(decide('a\\ ', 'a ')).toBe(true);
    expect(decide('a\\ ', 'a')).toBe(false);
    // git trims spaces only; Toolpack has always trimmed any trailing whitespace.
    expect(decide('a\\  \t', 'a ')).toBe(true);
    // `\\` is an escaped backslash, so the space after it is trailing.
    expect(decide('a\\\\ ', 'a\\')).toBe(true);
  });

  it('reads comments, blank lines, `!` and escaped leading `#`/`!`', () => {
    expect(compileIgnorePattern('# comment')).toBeUndefined();
    expect(compileIgnorePattern('   ')).toBeUndefined();
    expect(compileIgnorePattern('!')).toBeUndefined();
    expect(compileIgnorePattern('/')).toBeUndefined();
    expect(compileIgnorePattern('!x')).toMatchObject({ negate: true, pattern: 'x' });
    expect(decide('\\#x', '#x')).toBe(true);
    expect(decide('\\!x', '!x')).toBe(true);
    expect(decide('*\r\n!keep\r\n', 'keep')).toBe(false);
  });

  it('keeps a path inside an excluded folder excluded, even when a later rule names it', () => {
    const rules = parseIgnoreFile('build/\n!build/keep.txt\nlogs\n!logs/*.md');
    expect(isIgnored('build/keep.txt', false, rules)).toBe(true);
    expect(isIgnored('logs/x/readme.md', false, rules)).toBe(true);
    expect(isIgnored('node_modules/pkg/index.js', false, [])).toBe(true);
    expect(isIgnored('src/.git/config', false, [])).toBe(true);
  });

  it('re-includes a folder and then files inside it (`*`, `!*/`, `!*.js`)', () => {
    const rules = parseIgnoreFile('*\n!*/\n!*.js');
    expect(isIgnored('src/deep/a.js', false, rules)).toBe(false);
    expect(isIgnored('src/deep/a.ts', false, rules)).toBe(true);
    expect(isIgnored('src', true, rules)).toBe(false);
  });
});

describe('findIgnoreFileProblems', () => {
  it('warns, with file and line, about each pattern that can never match', () => {
    const problems = findIgnoreFileProblems(
      'ok.txt\nsecret[\n# fine\n[z-a].key\nlast\\\n[[:nope:]]\n',
      'pack/.toolpackignore',
    );
    expect(problems.map((p) => [p.line, p.code, p.severity])).toEqual([
      [2, 'W_IGNORE_PATTERN_NEVER_MATCHES', 'warning'],
      [4, 'W_IGNORE_PATTERN_NEVER_MATCHES', 'warning'],
      [5, 'W_IGNORE_PATTERN_NEVER_MATCHES', 'warning'],
      [6, 'W_IGNORE_PATTERN_NEVER_MATCHES', 'warning'],
    ]);
    expect(problems[0]!.message).toContain('pack/.toolpackignore:2');
    expect(problems[0]!.message).toContain('no closing `]`');
    expect(problems[1]!.message).toContain('z-a is reversed');
    expect(problems[2]!.message).toContain('lone `\\`');
    expect(problems[3]!.message).toContain('[:nope:]');
    expect(findIgnoreFileProblems(readFixture('realistic.toolpackignore'), 'x')).toEqual([]);
  });
});

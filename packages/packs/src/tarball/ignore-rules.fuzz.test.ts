import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isIgnored, parseIgnoreFile } from './ignore-rules.ts';

// FC_RUNS_SCALE=10 explores ten times as many inputs (a longer run on demand).
const scale = Math.max(1, Number(process.env.FC_RUNS_SCALE ?? 1) || 1);
const runs = (n: number) => Math.round(n * scale);

const globPiece = fc.oneof(
  fc.constantFrom(
    '*',
    '**',
    '?',
    '/',
    '!',
    '#',
    '\\',
    '[',
    ']',
    '[!',
    '-',
    '.',
    ' ',
    '\t',
    'a',
    'z',
    '^',
    '$',
    '(',
    ')',
    '{',
    '}',
    '|',
    '+',
  ),
  fc.stringMatching(/^[a-z0-9._-]{1,6}$/),
);
const line = fc.array(globPiece, { maxLength: 12 }).map((pieces) => pieces.join(''));
const ignoreFile = fc
  .tuple(
    fc.array(fc.oneof(line, fc.string({ maxLength: 20 })), { maxLength: 10 }),
    fc.constantFrom('\n', '\r\n'),
  )
  .map(([lines, eol]) => lines.join(eol));
const relativePath = fc
  .array(
    fc.oneof(
      fc.stringMatching(/^[a-z0-9._-]{1,8}$/),
      fc.constantFrom('.git', 'node_modules', '.env', 'a', 'x.key'),
    ),
    {
      minLength: 1,
      maxLength: 8,
    },
  )
  .map((segments) => segments.join('/'));

describe('.toolpackignore under fuzzing', () => {
  it('compiles any text into rules and decides any path, never an exception', () => {
    fc.assert(
      fc.property(ignoreFile, relativePath, fc.boolean(), (text, file, isDirectory) => {
        const rules = parseIgnoreFile(text);
        expect(typeof isIgnored(file, isDirectory, rules)).toBe('boolean');
      }),
      { numRuns: runs(3000) },
    );
  });

  it('reads a class with a reversed range as matching nothing, as git does, instead of throwing', () => {
    const rules = parseIgnoreFile('[z-a].txt\n[!_-*]\nkeep/[a-.]\n*.log');
    expect(isIgnored('b.txt', false, rules)).toBe(false);
    expect(isIgnored('-', false, rules)).toBe(false);
    expect(isIgnored('debug.log', false, rules)).toBe(true);
  });

  it('never lets a rule re-include what is always left out (secrets, .git, node_modules)', () => {
    fc.assert(
      fc.property(
        ignoreFile,
        fc.constantFrom(
          '.git',
          'node_modules',
          '.env',
          '.env.local',
          'id_rsa',
          'x.pem',
          'a/b.key',
          'p.tgz',
        ),
        (text, file) => {
          const rules = parseIgnoreFile(`${text}\n!${file}\n!**`);
          expect(isIgnored(file, false, rules)).toBe(true);
        },
      ),
      { numRuns: runs(1000) },
    );
  });

  it('decides long paths quickly whatever the pattern (no regular-expression blow-up)', () => {
    const deepPath = `${'a/'.repeat(60)}b`;
    for (const pattern of [
      `${'**/'.repeat(30)}c`,
      `a/${'**/'.repeat(30)}c`,
      `${'*'.repeat(200)}c`,
      `${'**'.repeat(100)}/c`,
      `${'?'.repeat(100)}`,
      '*a*a*ac',
    ]) {
      const rules = parseIgnoreFile(pattern);
      const started = performance.now();
      isIgnored(deepPath, false, rules);
      isIgnored('a'.repeat(300), false, rules);
      expect(performance.now() - started, pattern.slice(0, 30)).toBeLessThan(500);
    }
  });

  // Each `*x` of a pattern nests one more backtracking loop of the translated regex: five
  // of them against a 300-character name take about 90 s. Needs a segment-wise matcher.
  it.skip('KNOWN ISSUE, not fixed: many `*x` in one pattern backtrack polynomially on long names', () => {
    const rules = parseIgnoreFile('*a*a*a*a*ac');
    const started = performance.now();
    isIgnored('a'.repeat(300), false, rules);
    expect(performance.now() - started).toBeLessThan(500);
  });
});

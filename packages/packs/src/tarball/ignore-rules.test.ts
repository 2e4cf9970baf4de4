import { describe, expect, it } from 'vitest';
import { isIgnored, parseIgnoreFile } from './ignore-rules.ts';

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

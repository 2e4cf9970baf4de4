import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { fuzzRuns, fuzzTimeout } from '@toolpack/fuzz-runs';
import { isIgnored, parseIgnoreFile } from './ignore-rules.ts';

const hasGit = spawnSync('git', ['--version']).status === 0;
// Names such as `*` and `\b` cannot be created on Windows.
const canRun = hasGit && process.platform !== 'win32';

// Only the repository's own exclude file may count: no user or system ignore settings.
const gitEnv = {
  ...process.env,
  GIT_CONFIG_GLOBAL: os.devNull,
  GIT_CONFIG_NOSYSTEM: '1',
};

const folders = ['', 'a', 'b', 'ab', 'a/a', 'a/b', 'b/ab', 'a/b/a', 'a/b/a/b', '*', 'b/*', ']'];
const names = ['f', 'a.x', 'bb', ']a', 'c*', 'aa', '\\b', '!a', '#a'];

describe('.toolpackignore against git itself', () => {
  const root = mkdtempSync(path.join(os.tmpdir(), 'toolpack-ignore-git-'));
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it.skipIf(!canRun)(
    'ignores exactly the files `git ls-files --ignored` lists [needs git on PATH]',
    () => {
      execFileSync('git', ['init', '-q', root], { env: gitEnv });
      const files: string[] = [];
      for (const folder of folders) {
        mkdirSync(path.join(root, folder), { recursive: true });
        for (const name of names) {
          const file = folder === '' ? name : `${folder}/${name}`;
          writeFileSync(path.join(root, file), '');
          files.push(file);
        }
      }
      const piece = fc.constantFrom(
        'a',
        'b',
        '.',
        '/',
        '*',
        '**',
        '?',
        '[ab]',
        '[!a]',
        '[^b]',
        '[a-b]',
        '[]a]',
        '[',
        ']',
        '\\*',
        '\\/',
        '\\',
        '!',
        '#',
        ' ',
        '\\ ',
        'f',
        '[[:alpha:]]',
        '[[:a]',
      );
      const line = fc.array(piece, { maxLength: 7 }).map((pieces) => pieces.join(''));
      fc.assert(
        fc.property(fc.array(line, { minLength: 1, maxLength: 4 }), (lines) => {
          // Known, kept differences: Toolpack strips every leading and trailing `/` (git
          // one, leaving a line that matches nothing), and git's literal-prefix shortcut
          // turns `a**/f` into `a` + `**/f`, against its own documentation.
          fc.pre(lines.every((l) => !/^!?\/\/|\/\/ *$/.test(l)));
          fc.pre(lines.every((l) => !(l.includes('/') && /[^/]\*\*/.test(l))));
          const text = `${lines.join('\n')}\n`;
          writeFileSync(path.join(root, '.git', 'info', 'exclude'), text);
          const listed = execFileSync(
            'git',
            ['-C', root, 'ls-files', '-z', '--others', '--ignored', '--exclude-standard'],
            { encoding: 'utf8', env: gitEnv },
          );
          const gitIgnored = new Set(listed.split('\0').filter(Boolean));
          const rules = parseIgnoreFile(text);
          for (const file of files) {
            expect(isIgnored(file, false, rules), `${file} with ${JSON.stringify(text)}`).toBe(
              gitIgnored.has(file),
            );
          }
        }),
        { numRuns: fuzzRuns(100) },
      );
    },
    // Each run starts git once; a loaded machine can be much slower than a quiet one.
    3 * fuzzTimeout(),
  );
});

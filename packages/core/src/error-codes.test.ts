import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ERROR_CODES, describeErrorCode, type ToolpackErrorCode } from './error-codes.ts';

const repo = path.resolve(import.meta.dirname, '..', '..', '..');
const CODE_LITERAL = /['"`]([EWI]_[A-Z0-9_]+)['"`]/g;
const SOURCE_FILE = /\.(?:[cm]?ts|[cm]?js)$/;

/** Runtime sources of every package and app: tests and their fixtures make up codes freely. */
function listSourceFiles(): string[] {
  const files: string[] = [];
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) {
        if (entry.name !== 'fixtures' && entry.name !== 'node_modules') walk(full);
      } else if (SOURCE_FILE.test(entry.name) && !/\.test\.[cm]?ts$/.test(entry.name)) {
        files.push(full);
      }
    }
  };
  for (const group of ['packages', 'apps']) {
    for (const name of readdirSync(path.join(repo, group))) {
      if (readdirSync(path.join(repo, group, name)).includes('src')) {
        walk(path.join(repo, group, name, 'src'));
      }
    }
  }
  return files;
}

/** Each code literal the sources other than the catalogue hold, with the first file holding it. */
function findUsedCodes(): Map<string, string> {
  const used = new Map<string, string>();
  for (const file of listSourceFiles()) {
    if (file === path.join(import.meta.dirname, 'error-codes.ts')) continue;
    for (const match of readFileSync(file, 'utf8').matchAll(CODE_LITERAL)) {
      const code = match[1]!;
      if (!used.has(code)) used.set(code, path.relative(repo, file));
    }
  }
  return used;
}

describe('the error-code catalogue', () => {
  const codes = Object.keys(ERROR_CODES) as ToolpackErrorCode[];

  it('gives every code a one-line meaning and an exit class that fits its prefix', () => {
    for (const code of codes) {
      const { meaning, exit } = ERROR_CODES[code];
      expect(meaning, code).toMatch(/^\S.*\.$/);
      expect(meaning, code).not.toContain('\n');
      if (code.startsWith('E_')) expect(['usage', 'failure', 'bug'], code).toContain(exit);
      else expect(exit, code).toBe('none');
    }
  });

  it('is frozen and finds entries by code, only its own', () => {
    expect(Object.isFrozen(ERROR_CODES)).toBe(true);
    expect(describeErrorCode('E_USAGE')).toEqual(ERROR_CODES.E_USAGE);
    expect(describeErrorCode('E_NOT_A_CODE')).toBeUndefined();
    expect(describeErrorCode('toString')).toBeUndefined();
  });

  it('lists every code the sources of packages/ and apps/ use', () => {
    const missing = [...findUsedCodes()]
      .filter(([code]) => describeErrorCode(code) === undefined)
      .map(([code, file]) => `${code} (${file})`);
    expect(missing, 'add these to ERROR_CODES in packages/core/src/error-codes.ts').toEqual([]);
  });

  it('has no entry that no source uses', () => {
    const used = findUsedCodes();
    const unused = codes.filter((code) => !used.has(code));
    expect(unused, 'remove these from ERROR_CODES, no source uses them').toEqual([]);
  });
});

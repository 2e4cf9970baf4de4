import { readdirSync } from 'node:fs';
import path from 'node:path';
import type { Diagnostic, SourceSpec } from '@toolpack/core';
import { describe, expect, it } from 'vitest';
import { discoverTools } from './discover-tools.ts';

const here = import.meta.dirname;

/**
 * Every source the package's fixtures make: each folder of scripts as a script root, each
 * manifest as a module, each tool-folder and workflow fixture as its kind. The JS module
 * fixtures are left out: some only time out or hang on purpose.
 */
function listFixtureSources(): Array<{ cwd: string; source: SourceSpec }> {
  const sources: Array<{ cwd: string; source: SourceSpec }> = [];
  const walk = (dir: string): void => {
    const entries = readdirSync(dir, { withFileTypes: true });
    if (entries.some((entry) => entry.isFile() && /\.(ps1|sh|py|bas|mjs|js)$/i.test(entry.name)))
      sources.push({ cwd: dir, source: { scripts: '.' } });
    for (const entry of entries) {
      if (entry.isFile() && /\.psd1$/i.test(entry.name))
        sources.push({ cwd: dir, source: { module: entry.name } });
      if (entry.isDirectory()) walk(path.join(dir, entry.name));
    }
  };
  for (const folder of [
    'fixtures',
    'powershell-reader/fixtures',
    'adapters/header-script/fixtures',
    'adapters/basic/fixtures',
  ])
    walk(path.join(here, folder));
  const kinds = [
    ['adapters/tool-folders/fixtures', (dir: string): SourceSpec => ({ tools: dir })],
    ['adapters/workflows/fixtures', (dir: string): SourceSpec => ({ workflows: dir })],
  ] as const;
  for (const [folder, makeSource] of kinds) {
    for (const entry of readdirSync(path.join(here, folder), { withFileTypes: true }))
      if (entry.isDirectory())
        sources.push({ cwd: path.join(here, folder, entry.name), source: makeSource('.') });
  }
  return sources;
}

/** What is wrong with how a diagnostic reads, printed as `path:line: ... message (hint)`. */
function findMessageNits(diagnostic: Diagnostic): string[] {
  // Quoted text and echoed references are the user's own (`${input.x..y}`): not ours to punctuate.
  const text = `${diagnostic.message} ${diagnostic.hint ?? ''}`.replace(
    /"[^"]*"|`[^`]*`|\$\{[^}]*\}/g,
    '""',
  );
  const nits: string[] = [];
  // Two periods that are neither an ellipsis nor a relative path.
  if (/(?<![./\\])\.\.(?![./\\])/.test(text)) nits.push('a double period');
  if (/\.\s+\./.test(text)) nits.push('". ."');
  const lines = [...text.matchAll(/\(line (\d+)\)/g)].map((match) => match[1]);
  if (new Set(lines).size < lines.length) nits.push('one (line N) note twice');
  if (/\(line \d+\)\s*\(line \d+\)/.test(text)) nits.push('two (line N) notes in a row');
  // One note naming the line the diagnostic is already printed at (`file:7: ... (line 7)`).
  if (lines.length === 1 && lines[0] === String(diagnostic.line))
    nits.push('a (line N) note repeating its location');
  return nits;
}

describe('diagnostic messages', () => {
  it('flags what it is meant to flag', () => {
    const at = { severity: 'error', code: 'E_PARSE', path: 'a.ps1', line: 7 } as const;
    expect(findMessageNits({ ...at, message: 'No closing quote (line 7).' })).toEqual([
      'a (line N) note repeating its location',
    ]);
    expect(findMessageNits({ ...at, message: 'A comma is missing (line 6) (line 7).' })).toEqual([
      'two (line N) notes in a row',
    ]);
    expect(findMessageNits({ ...at, message: 'It failed: boom..' })).toEqual(['a double period']);
    expect(findMessageNits({ ...at, message: 'It failed. .' })).toEqual(['". ."']);
    expect(
      findMessageNits({ ...at, message: 'Wait... "${input.x..y}" in ../x (line 3), (line 4).' }),
    ).toEqual([]);
  });

  it('read cleanly for every diagnostic the fixtures give', async () => {
    const sources = listFixtureSources();
    expect(sources.length).toBeGreaterThan(50);
    const problems: string[] = [];
    let count = 0;
    for (const { cwd, source } of sources) {
      let diagnostics: Diagnostic[];
      try {
        ({ diagnostics } = await discoverTools({
          cwd,
          sources: [source],
          maxTools: 5000,
          cache: false,
        }));
      } catch {
        continue; // a fixture that is not a source of this kind (E_SOURCE_MISSING and the like)
      }
      for (const diagnostic of diagnostics) {
        count += 1;
        for (const nit of findMessageNits(diagnostic))
          problems.push(
            `${path.relative(here, diagnostic.path ?? '')}:${diagnostic.line ?? ''} ${diagnostic.code}: ${nit}: ${diagnostic.message}`,
          );
      }
    }
    expect(count).toBeGreaterThan(300);
    expect(problems).toEqual([]);
  }, 240_000);
});

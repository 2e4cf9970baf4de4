import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadProject } from './load-project.ts';

let dir = '';
beforeEach(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'toolpack-missing-sources-'));
  mkdirSync(path.join(dir, 'scripts'));
  mkdirSync(path.join(dir, 'tools', 'greet'), { recursive: true });
  writeFileSync(path.join(dir, 'widgets.psd1'), "@{ RootModule = 'widgets.psm1' }\n");
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const load = async (yaml: string) => {
  writeFileSync(path.join(dir, 'toolpack.yaml'), yaml);
  return loadProject(dir);
};

describe('loadProject: a source that does not exist', () => {
  it('is an error at its line in toolpack.yaml with the nearest existing folder', async () => {
    const loaded = await load('# mine\nsources:\n  - scripts: scripts\n  - scripts: scrpts\n');
    expect(loaded).toMatchObject({
      status: 'invalid',
      diagnostics: [
        {
          severity: 'error',
          code: 'E_SOURCE_MISSING',
          path: path.join(dir, 'toolpack.yaml'),
          line: 4,
          message: `sources.1.scripts: "scrpts" does not exist (looked for ${path.join(dir, 'scrpts')}).`,
          hint: 'Did you mean scripts (the nearest existing folder)? Write scripts: scripts.',
        },
      ],
    });
  });

  it('suggests a file for a module path, and a folder inside a sub-folder keeps its parent', async () => {
    const loaded = await load('sources:\n  - module: widget.psd1\n  - tools: tools/gret\n');
    expect(loaded.status).toBe('invalid');
    const hints =
      loaded.status === 'invalid' ? loaded.diagnostics.map((d) => [d.line, d.hint]) : [];
    expect(hints).toEqual([
      [2, 'Did you mean widgets.psd1 (the nearest existing file)? Write module: widgets.psd1.'],
      [3, 'Did you mean tools/greet (the nearest existing folder)? Write tools: tools/greet.'],
    ]);
  });

  it('says how to fix it when nothing is close, and names a file where a folder belongs', async () => {
    const loaded = await load('sources:\n  - workflows: flows\n  - scripts: widgets.psd1\n');
    const found = loaded.status === 'invalid' ? loaded.diagnostics : [];
    expect(found.map((d) => [d.line, d.message, d.hint])).toEqual([
      [
        2,
        `sources.0.workflows: "flows" does not exist (looked for ${path.join(dir, 'flows')}).`,
        `Point workflows: at a folder relative to the project folder (${dir}).`,
      ],
      [
        3,
        'sources.1.scripts: "widgets.psd1" is not a folder.',
        `Point scripts: at a folder relative to the project folder (${dir}).`,
      ],
    ]);
  });

  it('leaves globs and module names to discovery (a glob may match nothing yet)', async () => {
    const loaded = await load(
      'sources:\n  - tools: "bots/*/tools"\n  - module: Microsoft.PowerShell.Utility\n  - scripts: scripts\n',
    );
    expect(loaded.status).toBe('loaded');
  });
});

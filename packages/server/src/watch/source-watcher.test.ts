import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createSourceWatcher, findWatchRoots, isIgnoredPath } from './source-watcher.ts';

const temp = mkdtempSync(path.join(os.tmpdir(), 'toolpack-watch-'));
afterAll(() => rmSync(temp, { recursive: true, force: true }));

describe('findWatchRoots', () => {
  it('watches source folders, the static part of a glob, and a module’s folder', () => {
    for (const dir of ['scripts', 'tools', '.bot/workflows/release/tools', 'src', 'workflows']) {
      mkdirSync(path.join(temp, dir), { recursive: true });
    }
    writeFileSync(path.join(temp, 'src', 'index.ts'), 'export {};\n');
    const roots = findWatchRoots({
      cwd: temp,
      sources: [
        { scripts: 'scripts' },
        { tools: '.bot/workflows/*/tools' },
        { module: 'src/index.ts' },
        { module: 'NotAFile' },
        { workflows: 'workflows' },
        { tools: 'missing' },
      ],
    });
    expect(roots).toEqual(
      ['.bot/workflows', 'scripts', 'src', 'workflows'].map((dir) => path.join(temp, dir)).sort(),
    );
  });

  it('adds the folders of module files discovery resolved by name', () => {
    mkdirSync(path.join(temp, 'psmodules', 'Widgets'), { recursive: true });
    const roots = findWatchRoots({
      cwd: temp,
      sources: [],
      moduleFiles: [path.join(temp, 'psmodules', 'Widgets', 'Widgets.psd1')],
    });
    expect(roots).toEqual([path.join(temp, 'psmodules', 'Widgets')]);
  });
});

describe('isIgnoredPath', () => {
  it('ignores the discovery cache, dependencies and VCS folders, not dot folders in general', () => {
    expect(isIgnoredPath('/p/.toolpack/cache/x.json')).toBe(true);
    expect(isIgnoredPath('/p/node_modules/zod/index.js')).toBe(true);
    expect(isIgnoredPath('/p/.git/HEAD')).toBe(true);
    expect(isIgnoredPath('/p/.bot/workflows/release/tools/x/metadata.yaml')).toBe(false);
    expect(isIgnoredPath('C:\\p\\scripts\\a.ps1')).toBe(false);
  });
});

describe('createSourceWatcher', () => {
  it('reports a burst of changes as one debounced batch and ignores the cache folder', async () => {
    const root = path.join(temp, 'burst');
    mkdirSync(path.join(root, '.toolpack'), { recursive: true });
    const batches: string[][] = [];
    const watcher = createSourceWatcher({
      roots: [root],
      debounceMs: 80,
      onChange: (paths) => batches.push(paths),
    });
    try {
      await watcher.ready;
      writeFileSync(path.join(root, 'a.sh'), 'a');
      writeFileSync(path.join(root, 'b.sh'), 'b');
      writeFileSync(path.join(root, '.toolpack', 'cache.json'), '{}');
      const deadline = Date.now() + 3_000;
      while (batches.length === 0 && Date.now() < deadline)
        await new Promise((r) => setTimeout(r, 20));
      await new Promise((r) => setTimeout(r, 150));
      expect(batches).toHaveLength(1);
      expect(batches[0]).toEqual([path.join(root, 'a.sh'), path.join(root, 'b.sh')]);
    } finally {
      await watcher.close();
    }
  });
});

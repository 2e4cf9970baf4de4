import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { checkProject } from './index.ts';

const examples = path.resolve(import.meta.dirname, '..', '..', '..', '..', '..', 'examples');

describe('checkProject', () => {
  const dirs: string[] = [];
  const tempDir = () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'toolpack-check-'));
    dirs.push(dir);
    return dir;
  };
  afterEach(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  it('returns every problem of toolpack.yaml with its line, and no tools', async () => {
    const dir = tempDir();
    writeFileSync(path.join(dir, 'toolpack.yaml'), 'soruces:\n  - scripts: scripts\n');
    const report = await checkProject({ cwd: dir, env: process.env, sources: [], flags: {} });
    expect(report.tools).toEqual([]);
    expect(report.cannotRunHere).toEqual([]);
    expect(report.diagnostics).toHaveLength(1);
    expect(report.diagnostics[0]).toMatchObject({
      severity: 'error',
      path: 'toolpack.yaml',
      line: 1,
    });
    expect(report.diagnostics[0]?.message).toContain('soruces');
  });

  it('is an E_NO_SOURCES error without toolpack.yaml and source flags', async () => {
    const dir = tempDir();
    const report = await checkProject({ cwd: dir, env: process.env, sources: [], flags: {} });
    expect(report.diagnostics.map((d) => [d.severity, d.code])).toEqual([
      ['error', 'E_NO_SOURCES'],
    ]);
  });

  it('is an E_NO_TOOLS error when the sources give no tool', async () => {
    const dir = tempDir();
    const report = await checkProject({
      cwd: dir,
      env: process.env,
      sources: [{ scripts: '.' }],
      flags: { cache: false },
    });
    expect(report.diagnostics.filter((d) => d.severity === 'error').map((d) => d.code)).toEqual([
      'E_NO_TOOLS',
    ]);
  });

  it('E_NO_TOOLS points at a module that failed to import, not at the paths and patterns', async () => {
    const dir = tempDir();
    writeFileSync(path.join(dir, 'tools.mjs'), "throw new Error('boom at import');\n");
    writeFileSync(path.join(dir, 'toolpack.yaml'), 'sources:\n  - module: tools.mjs\n');
    const report = await checkProject({ cwd: dir, env: process.env, sources: [], flags: {} });
    const errors = report.diagnostics.filter((d) => d.severity === 'error');
    expect(errors.map((d) => d.code)).toEqual(['E_MODULE_LOAD', 'E_NO_TOOLS']);
    expect(errors[1]?.hint).toBe(
      'tools.mjs could not be imported (E_MODULE_LOAD above), so it gave no tool: fix that error first.',
    );
  });

  it('passes a good project with its tools and no errors', async () => {
    const report = await checkProject({
      cwd: path.join(examples, 'scripts'),
      env: process.env,
      sources: [],
      flags: { cache: false },
    });
    expect(report.tools.some((tool) => tool.source.kind !== 'builtin')).toBe(true);
    expect(report.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
  });
});

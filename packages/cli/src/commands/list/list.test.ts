import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { listTools } from './index.ts';

const examples = path.resolve(import.meta.dirname, '..', '..', '..', '..', '..', 'examples');

describe('listTools', () => {
  it('returns what mcp list --json prints, without a subprocess', async () => {
    const dir = path.join(examples, 'powershell-scripts');
    const report = await listTools({
      cwd: dir,
      env: process.env,
      sources: [],
      flags: { cache: false },
    });
    const expected = JSON.parse(readFileSync(path.join(dir, 'expected-list.json'), 'utf8')) as {
      tools: unknown[];
      diagnostics: unknown[];
    };
    expect({ tools: report.tools, diagnostics: report.diagnostics }).toEqual(expected);
  });

  it('reports that there are no sources through onNoSources, and lists only the built-ins', async () => {
    let noSources = 0;
    const report = await listTools({
      cwd: path.join(examples, 'powershell-scripts', 'no-such-folder'),
      env: process.env,
      sources: [],
      flags: {},
      onNoSources: () => noSources++,
    });
    expect(noSources).toBe(1);
    expect(report.tools.length).toBeGreaterThan(0);
    expect(report.tools.every((tool) => tool.source.kind === 'builtin')).toBe(true);
  });

  it('takes source flags in order and names the tools this machine cannot run', async () => {
    const report = await listTools({
      cwd: examples,
      env: { ...process.env, PATH: '' },
      sources: [{ scripts: 'powershell-scripts' }],
      flags: { include: ['New_*'], cache: false },
    });
    expect(report.tools.map((tool) => tool.name)).toEqual(['New_Greeting']);
    expect(report.cannotRunHere.map((entry) => entry.tool)).toEqual(['New_Greeting']);
  });
});

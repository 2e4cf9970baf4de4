import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { inspectTool } from './index.ts';

const examples = path.resolve(import.meta.dirname, '..', '..', '..', '..', '..', 'examples');

describe('inspectTool', () => {
  it('returns the tool as a client sees it and the problems of its file', async () => {
    const inspection = await inspectTool({
      cwd: path.join(examples, 'powershell-scripts'),
      env: process.env,
      name: 'New_Greeting',
      sources: [],
      flags: { cache: false },
    });
    expect(inspection.tool).toMatchObject({
      name: 'New_Greeting',
      source: { kind: 'script', path: 'New-Greeting.ps1' },
    });
    expect(Object.keys(inspection.tool.inputSchema.properties ?? {})).toContain('Name');
    expect(inspection.diagnostics.every((d) => d.path === 'New-Greeting.ps1')).toBe(true);
  });
});

import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { inspectTool } from './index.ts';

const repo = path.resolve(import.meta.dirname, '..', '..', '..', '..', '..');
const examples = path.join(repo, 'examples');
const fixtures = path.join(repo, 'packages', 'server', 'src', 'e2e', 'fixtures');

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

  it('shows the input schema as tools/list sends it in a dialect, the exact one by default', async () => {
    const inspect = (schemaDialect?: 'portable' | 'exact') =>
      inspectTool({
        cwd: path.join(fixtures, 'parameter-sets-project'),
        env: process.env,
        name: 'Find_Widget',
        sources: [],
        flags: { cache: false },
        ...(schemaDialect === undefined ? {} : { schemaDialect }),
      });
    const exact = (await inspect()).tool;
    expect(exact.inputSchema).toHaveProperty('oneOf');
    expect((await inspect('exact')).tool).toEqual(exact);
    const portable = (await inspect('portable')).tool;
    expect(portable.inputSchema).not.toHaveProperty('oneOf');
    expect(portable.inputSchema).not.toHaveProperty('additionalProperties');
    expect(portable.description).toContain(
      'Parameter sets (send the parameters of one set only): ByName (default): Name (required), Top;',
    );
  });
});

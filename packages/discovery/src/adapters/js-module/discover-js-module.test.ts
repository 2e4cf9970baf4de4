import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ToolpackError } from '@toolpack/core';
import { discoverJsModule } from './discover-js-module.ts';

const fixtures = path.join(import.meta.dirname, 'fixtures');

describe('discoverJsModule', () => {
  it('finds every exported defineTool value, with full schemas, in a child process', async () => {
    const result = await discoverJsModule({ module: 'good-tools.ts', cwd: fixtures });
    expect(result.diagnostics).toEqual([]);
    expect(result.tools).toEqual([
      {
        name: 'greet',
        title: 'Greet someone',
        description: 'Greets someone by name.',
        inputSchema: {
          type: 'object',
          properties: { name: { type: 'string', description: 'Who to greet.' } },
          required: ['name'],
          additionalProperties: false,
        },
        outputSchema: {
          type: 'object',
          properties: { text: { type: 'string' } },
          required: ['text'],
          additionalProperties: false,
        },
        annotations: { readOnlyHint: true },
        timeoutMs: 5000,
        source: { kind: 'js-module', path: path.join(fixtures, 'good-tools.ts'), line: 4 },
        invocation: {
          runner: 'node-worker',
          modulePath: path.join(fixtures, 'good-tools.ts'),
          exportName: 'greet',
        },
        originalName: 'greet',
      },
      {
        name: 'shout',
        description: 'Upper-cases a text.',
        inputSchema: {
          type: 'object',
          properties: { text: { type: 'string' } },
          required: ['text'],
          additionalProperties: false,
        },
        source: { kind: 'js-module', path: path.join(fixtures, 'good-tools.ts'), line: 15 },
        invocation: {
          runner: 'node-worker',
          modulePath: path.join(fixtures, 'good-tools.ts'),
          exportName: 'shout',
        },
        originalName: 'shout',
      },
    ]);
    expect((globalThis as Record<string, unknown>).__toolpackFixtureLoaded).toBeUndefined();
  });

  it('turns an import failure into an error diagnostic', async () => {
    const result = await discoverJsModule({ module: 'throws-on-import.mjs', cwd: fixtures });
    expect(result.tools).toEqual([]);
    expect(result.diagnostics).toMatchObject([
      {
        severity: 'error',
        code: 'E_MODULE_LOAD',
        message: 'Importing throws-on-import.mjs failed: database is not reachable',
      },
    ]);
  });

  it('warns about a module without tools, naming what it exports', async () => {
    const result = await discoverJsModule({ module: 'no-tools.mjs', cwd: fixtures });
    expect(result.diagnostics).toMatchObject([
      {
        severity: 'warning',
        code: 'W_NO_TOOLS',
        message: 'no-tools.mjs exports no defineTool(...) values (it exports default, helper).',
      },
    ]);
  });

  it('refuses two exports with the same tool name', async () => {
    const result = await discoverJsModule({ module: 'duplicate-names.mjs', cwd: fixtures });
    expect(result.tools.map((t) => (t.invocation as { exportName: string }).exportName)).toEqual([
      'first',
    ]);
    expect(result.diagnostics).toMatchObject([
      { severity: 'error', code: 'E_DUPLICATE_TOOL', line: 4 },
    ]);
  });

  it('finishes even when the module keeps its event loop busy', async () => {
    const result = await discoverJsModule({ module: 'keeps-running.mjs', cwd: fixtures });
    expect(result.tools.map((t) => t.name)).toEqual(['tick']);
  });

  it('throws E_SOURCE_MISSING for a module that does not exist', async () => {
    await expect(discoverJsModule({ module: 'nope.ts', cwd: fixtures })).rejects.toThrow(
      ToolpackError,
    );
    await expect(discoverJsModule({ module: 'nope.ts', cwd: fixtures })).rejects.toMatchObject({
      code: 'E_SOURCE_MISSING',
    });
  });
});

import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { isToolpackError } from '@toolpack/core';
import { callTool } from './index.ts';

const scripts = path.resolve(
  import.meta.dirname,
  '..',
  '..',
  '..',
  '..',
  '..',
  'examples',
  'scripts',
);
const common = { cwd: scripts, env: process.env, sources: [], flags: { cache: false } };

describe('callTool', { timeout: 30_000 }, () => {
  it('returns the tool result, reading --arg values by the parameter type', async () => {
    let started = 0;
    const result = await callTool({
      ...common,
      name: 'slugify',
      arg: ['title=Hello, World!', 'max_length=5'],
      onCallStart: () => started++,
    });
    expect(started).toBe(1);
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toEqual({ slug: 'hello' });
  });

  it('throws E_UNKNOWN_TOOL with a suggestion, and E_ARGUMENTS_JSON for bad --args', async () => {
    const unknown = await callTool({ ...common, name: 'slugfy' }).catch((error: unknown) => error);
    expect(isToolpackError(unknown) && unknown.code).toBe('E_UNKNOWN_TOOL');
    expect(isToolpackError(unknown) && unknown.hint).toContain('slugify');
    const badJson = await callTool({ ...common, name: 'slugify', args: '{' }).catch(
      (error: unknown) => error,
    );
    expect(isToolpackError(badJson) && badJson.code).toBe('E_ARGUMENTS_JSON');
  });
});

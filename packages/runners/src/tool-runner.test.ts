import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { createToolRunner } from './index.ts';
import { firstText, makeTool } from './testing/index.ts';
import { fuzzRuns, fuzzTimeout } from '@toolpack/fuzz-runs';

const fixtures = fileURLToPath(new URL('./process/fixtures/', import.meta.url));
const echo = makeTool({
  name: 'echo',
  invocation: { runner: 'process', scriptPath: 'echo.mjs', extension: '.mjs' },
});

describe('createToolRunner', { timeout: fuzzTimeout() }, () => {
  const runner = createToolRunner({ projectRoot: fixtures });
  afterAll(async () => {
    await runner.close();
  });

  it('refuses workflow and builtin tools: the server runs those', async () => {
    const workflow = makeTool({
      name: 'workflow_x',
      invocation: {
        runner: 'workflow',
        workflow: { name: 'x', description: 'x', enabled: true, path: 'x.yaml', steps: [] },
      },
    });
    const builtin = makeTool({
      name: 'find_tools',
      invocation: { runner: 'builtin', builtin: 'find_tools' },
    });
    await expect(runner.call(workflow, {})).rejects.toMatchObject({
      name: 'ToolpackError',
      code: 'E_RUNNER',
    });
    await expect(runner.call(builtin, {})).rejects.toMatchObject({ code: 'E_RUNNER' });
  });

  it('refuses options that make no sense', () => {
    expect(() => createToolRunner({ projectRoot: '' })).toThrow(
      expect.objectContaining({ code: 'E_RUNNER_OPTIONS' }),
    );
    expect(() => createToolRunner({ projectRoot: fixtures, defaultTimeoutMs: 0 })).toThrow(
      /defaultTimeoutMs must be a positive number/u,
    );
    expect(() => createToolRunner({ projectRoot: fixtures, concurrency: { process: -1 } })).toThrow(
      /concurrency.process/u,
    );
  });

  it('treats missing arguments as an empty object', async () => {
    const result = await runner.call(echo, undefined);
    expect(result.structuredContent).toMatchObject({ received: {} });
  });

  it('answers a tool whose own schema is broken with an error result', async () => {
    const broken = {
      ...echo,
      inputSchema: { type: 'object', properties: { x: { type: 'no-such-type' } } },
    } as typeof echo;
    const result = await runner.call(broken, {});
    expect(result.isError).toBe(true);
    expect(firstText(result)).toContain('its input schema is not valid');
  });

  it('does not start a call whose signal is already aborted', async () => {
    const result = await runner.call(echo, {}, { signal: AbortSignal.abort() });
    expect(result).toEqual({
      content: [{ type: 'text', text: 'Tool "echo" was cancelled.' }],
      isError: true,
    });
  });

  it('ignores an unusable timeout on the tool and refuses one on the call', async () => {
    const odd = { ...echo, timeoutMs: -5 };
    expect((await runner.call(odd, {})).isError).toBeUndefined();
    await expect(runner.call(echo, {}, { timeoutMs: Number.NaN })).rejects.toMatchObject({
      code: 'E_RUNNER_OPTIONS',
    });
  });

  it('reports what is running', () => {
    expect(runner.stats()).toEqual({
      inFlight: 0,
      pwshHostPid: undefined,
      pwshHosts: 0,
      pwshRestarts: 0,
      workers: 0,
    });
  });

  it('never rejects for random arguments: validation answers with an error result or the tool runs', async () => {
    const strict = makeTool({
      name: 'strict',
      invocation: { runner: 'process', scriptPath: 'echo.mjs', extension: '.mjs' },
      properties: {
        count: { type: 'integer', minimum: 0, maximum: 100 },
        tags: { type: 'array', items: { type: 'string' } },
      },
      required: ['count'],
      additionalProperties: false,
    });
    await fc.assert(
      fc.asyncProperty(
        fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 3 })),
        async (args) => {
          const valid =
            typeof args.count === 'number' &&
            Number.isInteger(args.count) &&
            args.count >= 0 &&
            args.count <= 100;
          // Only invalid arguments are sent: the point is that validation never throws.
          if (valid) return;
          const result = await runner.call(strict, args);
          expect(result.isError).toBe(true);
          expect(firstText(result)).toMatch(/^Invalid arguments for tool "strict": \//u);
        },
      ),
      { numRuns: fuzzRuns(2_000) },
    );
  });
});

import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineTool, isDefinedTool } from './define-tool.ts';
import { ToolpackError } from './errors.ts';
import type { ToolRunContext } from './tool-model.ts';

const context: ToolRunContext = {
  signal: new AbortController().signal,
  projectRoot: '/project',
  progress: () => {},
  log: () => {},
};

describe('defineTool', () => {
  it('turns a zod 4 object into an input schema and parses arguments with it', async () => {
    const tool = defineTool({
      name: 'add_numbers',
      description: 'Adds two numbers.',
      input: z.object({ a: z.number().describe('First'), b: z.number().int().max(100).default(1) }),
      annotations: { readOnlyHint: true },
      run: ({ a, b }) => ({ sum: a + b }),
    });
    expect(isDefinedTool(tool)).toBe(true);
    expect(tool.inputSchema).toMatchObject({
      type: 'object',
      properties: {
        a: { type: 'number', description: 'First' },
        b: { type: 'integer', maximum: 100, default: 1 },
      },
      required: ['a'],
      additionalProperties: false,
    });
    expect(
      defineTool({ name: 'loose', description: 'd', input: z.looseObject({}), run: () => null })
        .inputSchema.additionalProperties,
    ).toEqual({});
    expect(tool.inputSchema).not.toHaveProperty('$schema');
    expect(tool.annotations).toEqual({ readOnlyHint: true });
    await expect(tool.run({ a: 2 }, context)).resolves.toEqual({ sum: 3 });
    await expect(tool.run({ a: 'x' }, context)).rejects.toThrow(
      /Invalid arguments for add_numbers: \/a/,
    );
  });

  it('accepts a JSON Schema as input and passes arguments through', async () => {
    const tool = defineTool({
      name: 'echo',
      description: 'Echoes.',
      input: {
        type: 'object',
        properties: { text: { type: 'string' } },
        required: ['text'],
        additionalProperties: false,
      },
      output: z.object({ text: z.string() }),
      timeoutMs: 500,
      run: (args) => ({ text: String(args.text) }),
    });
    expect(tool.inputSchema.required).toEqual(['text']);
    expect(tool.outputSchema).toMatchObject({
      type: 'object',
      properties: { text: { type: 'string' } },
    });
    expect(tool.timeoutMs).toBe(500);
    await expect(tool.run({ text: 'hi' }, context)).resolves.toEqual({ text: 'hi' });
  });

  it('returns the value its zod output schema parses, so an unknown key is stripped as zod says', async () => {
    const tool = defineTool({
      name: 'label',
      description: 'Labels.',
      input: z.object({ mode: z.string() }),
      output: z.object({ label: z.string(), size: z.coerce.number() }),
      run: ({ mode }) =>
        mode === 'plain'
          ? { label: 'a', size: '3', extra: true }
          : mode === 'result'
            ? { content: [], structuredContent: { label: 'b', size: 1, extra: 1 } }
            : { lable: 'c' },
    });
    expect(tool.outputSchema?.additionalProperties).toBe(false);
    await expect(tool.run({ mode: 'plain' }, context)).resolves.toEqual({ label: 'a', size: 3 });
    await expect(tool.run({ mode: 'result' }, context)).resolves.toEqual({
      content: [],
      structuredContent: { label: 'b', size: 1 },
    });
    // Not parseable: left as it was, for the runner's output check to name what is wrong.
    await expect(tool.run({ mode: 'typo' }, context)).resolves.toEqual({ lable: 'c' });
  });

  it('is frozen', () => {
    const tool = defineTool({ name: 'x', description: 'X.', input: z.object({}), run: () => null });
    expect(Object.isFrozen(tool)).toBe(true);
  });

  it.each([
    [{ name: '', description: 'd' }, 'E_TOOL_NAME'],
    [{ name: 'x'.repeat(65), description: 'd' }, 'E_TOOL_NAME'],
    [{ name: 'has space', description: 'd' }, 'E_TOOL_NAME'],
    [{ name: 'ok', description: '  ' }, 'E_NO_DESCRIPTION'],
    [{ name: 'ok', description: 'd', timeoutMs: -1 }, 'E_TIMEOUT'],
  ])('refuses %j with %s', (spec, code) => {
    try {
      defineTool({ input: z.object({}), run: () => null, ...spec });
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(ToolpackError);
      expect((error as ToolpackError).code).toBe(code);
    }
  });

  it('refuses schemas that are not objects or not JSON Schema', () => {
    expect(() =>
      defineTool({ name: 'a', description: 'd', input: z.string(), run: () => null }),
    ).toThrow(/must describe an object/);
    expect(() =>
      defineTool({
        name: 'a',
        description: 'd',
        input: { type: 'object', required: 'x' },
        run: () => null,
      }),
    ).toThrow(/not valid JSON Schema: \/required must be array/);
  });

  it('recognises tools by a registry-wide brand, not by shape', () => {
    expect(isDefinedTool({ name: 'x', description: 'd', inputSchema: {}, run() {} })).toBe(false);
    expect(isDefinedTool(null)).toBe(false);
  });
});

describe('defineTool: examples and opt-ins', () => {
  const input = z.object({ query: z.string(), limit: z.number().int().min(1).default(10) });

  it('keeps examples that fit the input schema, in order, and the opt-ins that are true', () => {
    const tool = defineTool({
      name: 'search_issues',
      description: 'Searches issues.',
      input,
      examples: [
        { arguments: { query: 'jira', limit: 5 }, description: 'Five about jira' },
        { arguments: { query: 'crash' } },
      ],
      longRunning: true,
      progressResetsTimeout: false,
      run: () => ({}),
    });
    expect(tool.inputExamples).toEqual([
      { arguments: { query: 'jira', limit: 5 }, description: 'Five about jira' },
      { arguments: { query: 'crash' } },
    ]);
    expect(tool.longRunning).toBe(true);
    expect(tool).not.toHaveProperty('progressResetsTimeout');
  });

  it('throws E_SCHEMA naming the tool, the example and the path when an example does not fit', () => {
    const define = () =>
      defineTool({
        name: 'search_issues',
        description: 'Searches issues.',
        input,
        examples: [{ arguments: { query: 'ok' } }, { arguments: { query: 'x', limit: 0 } }],
        run: () => ({}),
      });
    expect(define).toThrow(ToolpackError);
    expect(define).toThrow(
      /^Tool search_issues: examples\[1\] does not fit the input schema: \/limit must be >= 1\.$/,
    );
    try {
      define();
    } catch (error) {
      expect((error as ToolpackError).code).toBe('E_SCHEMA');
    }
  });

  it('throws for an example without arguments and for an opt-in that is not a boolean', () => {
    expect(() =>
      defineTool({
        name: 't',
        description: 'T.',
        input: { type: 'object', properties: {} },
        examples: [{ description: 'none' } as never],
        run: () => ({}),
      }),
    ).toThrow(/examples\[0\] needs arguments/);
    expect(() =>
      defineTool({
        name: 't',
        description: 'T.',
        input: { type: 'object', properties: {} },
        longRunning: 'yes' as never,
        run: () => ({}),
      }),
    ).toThrow(/longRunning must be true or false/);
  });
});

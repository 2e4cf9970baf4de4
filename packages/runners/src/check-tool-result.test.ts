import type { ToolCallResult } from '@toolpack/core';
import { describe, expect, it } from 'vitest';
import { checkToolResult } from './check-tool-result.ts';
import { makeTool } from './testing/make-tool.ts';

/** The text block the mismatch is reported in: the last one, after the tool's own content. */
function lastText(result: ToolCallResult): string {
  const block = result.content.at(-1);
  return block?.type === 'text' ? block.text : '';
}

const count = {
  ...makeTool({
    name: 'count',
    invocation: { runner: 'process', scriptPath: '/t/count.sh', extension: '.sh' },
  }),
  outputSchema: {
    type: 'object' as const,
    properties: {
      total: { type: 'integer' },
      items: {
        type: 'array',
        items: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
      },
    },
    required: ['total'],
  },
};

const structured = (value: Record<string, unknown>): ToolCallResult => ({
  content: [{ type: 'text', text: JSON.stringify(value) }],
  structuredContent: value,
});

describe('checkToolResult', () => {
  it('passes a result whose structured content fits the output schema', () => {
    expect(
      checkToolResult(count, structured({ total: 2, items: [{ name: 'a' }] })),
    ).toBeUndefined();
  });

  it('leaves tools without an output schema and error results alone', () => {
    const plain = makeTool({ name: 'plain', invocation: count.invocation });
    expect(checkToolResult(plain, { content: [{ type: 'text', text: 'hi' }] })).toBeUndefined();
    expect(
      checkToolResult(count, { content: [{ type: 'text', text: 'boom' }], isError: true }),
    ).toBeUndefined();
  });

  it('answers an error naming each path that does not fit, after the tool content', () => {
    const result = checkToolResult(count, structured({ total: 'two', items: [{}] }));
    expect(result?.isError).toBe(true);
    expect(result!.content).toHaveLength(2);
    const text = lastText(result!);
    expect(text).toMatch(
      /^E_OUTPUT_MISMATCH Tool "count" returned a result that does not fit its output schema/,
    );
    expect(text).toContain('structuredContent/total must be integer');
    expect(text).toContain('structuredContent/items/0/name is required');
    expect(result!.content[0]).toEqual({ type: 'text', text: '{"total":"two","items":[{}]}' });
    expect(result).not.toHaveProperty('structuredContent');
  });

  it('answers an error when a tool with an output schema returns no structured content', () => {
    const result = checkToolResult(count, { content: [{ type: 'text', text: 'two files' }] });
    expect(result?.isError).toBe(true);
    expect(lastText(result!)).toMatch(/E_OUTPUT_MISMATCH .*no structured content/);
    expect(result!.content[0]).toEqual({ type: 'text', text: 'two files' });
  });

  it('answers an error, not an exception, for an output schema that cannot compile', () => {
    const broken = {
      ...count,
      outputSchema: { type: 'object' as const, properties: { x: { type: 'nope' } } },
    };
    const result = checkToolResult(broken, structured({ x: 1 }));
    expect(result?.isError).toBe(true);
    expect(lastText(result!)).toMatch(/output schema that is not valid JSON Schema/);
  });

  it('names a key the closed output schema does not declare as an output property', () => {
    const closed = {
      ...count,
      outputSchema: { ...count.outputSchema, additionalProperties: false },
    };
    const text = lastText(checkToolResult(closed, structured({ total: 1, totl: 2 }))!);
    expect(text).toContain(
      'structuredContent/totl is not a declared output property (did you mean total?)',
    );
  });

  it('checks an output pattern in linear time, and refuses one only a backtracking engine could run', () => {
    const redos = {
      ...makeTool({ name: 'redos', invocation: count.invocation }),
      outputSchema: {
        type: 'object' as const,
        properties: { word: { type: 'string', pattern: '^(a|a)*$' } },
      },
    };
    // 34 letters and a b: about a minute of V8's backtracking engine on the server's thread.
    const refused = checkToolResult(redos, structured({ word: `${'a'.repeat(34)}b` }));
    expect(lastText(refused!)).toMatch(
      /^E_OUTPUT_MISMATCH Tool "redos" returned a result that does not fit its output schema: structuredContent\/word must match pattern "\^\(a\|a\)\*\$"/,
    );
    expect(checkToolResult(redos, structured({ word: 'a'.repeat(34) }))).toBeUndefined();
    const backReference = {
      ...redos,
      outputSchema: {
        type: 'object' as const,
        properties: { word: { type: 'string', pattern: '^(a)\\1$' } },
      },
    };
    expect(lastText(checkToolResult(backReference, structured({ word: 'aa' }))!)).toContain(
      'uses a back-reference (\\1), which the linear-time engine (RE2) cannot run',
    );
  });
});

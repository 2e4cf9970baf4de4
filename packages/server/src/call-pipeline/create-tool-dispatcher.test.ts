import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCallToolBuiltin, discoverTools } from '@toolpack/discovery';
import { createToolRunner, type ToolRunner } from '@toolpack/runners';
import { createToolDispatcher } from './create-tool-dispatcher.ts';
import type { ToolDispatcher } from './dispatch-types.ts';

const fixtures = path.join(import.meta.dirname, 'fixtures');
let runner: ToolRunner;
let dispatcher: ToolDispatcher;

beforeAll(async () => {
  const { tools, diagnostics } = await discoverTools({
    cwd: fixtures,
    cache: false,
    sources: [{ scripts: 'scripts' }, { workflows: 'workflows' }],
  });
  expect(diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
  runner = createToolRunner({ projectRoot: fixtures });
  dispatcher = createToolDispatcher({ tools, runner });
});
afterAll(async () => {
  await runner.close();
});

describe('createToolDispatcher', () => {
  it('runs a workflow: defaults, whole-value and text references, $${ literals, an output template', async () => {
    const result = await dispatcher.call('workflow_shout', { name: 'ada' });
    expect(result.isError).toBeUndefined();
    expect(result.structuredContent).toEqual({
      shouted: 'HELLO, ADA',
      echoed: '${literal} HELLO, ADA (10 chars)',
      upper: { text: 'HELLO, ADA', length: 10 },
    });
  });

  it("checks a workflow's result against its outputSchema, as the runner checks a tool's", async () => {
    const typed = await dispatcher.call('workflow_typed_shout', { name: 'ada' });
    expect(typed.isError).toBeUndefined();
    expect(typed.structuredContent).toEqual({ shouted: 'ADA', length: 3 });
    expect(dispatcher.get('workflow_typed_shout')?.outputSchema?.required).toEqual([
      'shouted',
      'length',
    ]);
    const mistyped = await dispatcher.call('workflow_mistyped_shout', { name: 'ada' });
    expect(mistyped.isError).toBe(true);
    // What the workflow gave comes first; the mismatch is reported after it.
    expect(mistyped.content[0]).toMatchObject({ text: expect.stringContaining('"shouted"') });
    expect(mistyped.content.at(-1)).toMatchObject({
      text: expect.stringMatching(
        /^E_OUTPUT_MISMATCH Tool "workflow_mistyped_shout" returned a result that does not fit its output schema: structuredContent\/shouted must be integer/,
      ),
    });
  });

  it('reports workflow progress step by step', async () => {
    const progress: number[] = [];
    await dispatcher.call(
      'workflow_shout',
      { name: 'x', greeting: 'hi' },
      { onProgress: (p) => progress.push(p.progress) },
    );
    expect(progress).toEqual([0, 1, 2]);
  });

  it('runs workflows that call workflows', async () => {
    const result = await dispatcher.call('workflow_nested', { name: 'bo' });
    expect(result.content).toEqual([{ type: 'text', text: 'HELLO, BO' }]);
  });

  it('stops at the first failing step and says which one, where', async () => {
    const result = await dispatcher.call('workflow_broken_step', { reason: 'testing' });
    expect(result.isError).toBe(true);
    expect(result.content[0]).toMatchObject({
      type: 'text',
      text: expect.stringMatching(
        /^Workflow workflow_broken_step stopped at step "second" \(fail, .*broken-step\.yaml:\d+\): .*failing because testing/s,
      ),
    });
  });

  it('validates workflow and built-in arguments before running anything', async () => {
    expect(await dispatcher.call('workflow_shout', { name: 5 })).toMatchObject({
      isError: true,
      content: [
        {
          type: 'text',
          text: 'Invalid arguments for tool "workflow_shout": /name must be string.',
        },
      ],
    });
    expect((await dispatcher.call('find_tools', {})).isError).toBe(true);
  });

  it('answers find_tools and describe_tool from the catalogue', async () => {
    const found = await dispatcher.call('find_tools', { query: 'upper case' });
    expect((found.structuredContent as { tools: { name: string }[] }).tools[0]?.name).toBe('upper');
    const described = await dispatcher.call('describe_tool', { name: 'upper' });
    expect(described.structuredContent).toMatchObject({
      name: 'upper',
      description: 'Upper-cases a text.',
    });
    const missing = await dispatcher.call('describe_tool', { name: 'uper' });
    expect(missing).toMatchObject({ isError: true });
  });

  it('throws E_UNKNOWN_TOOL with suggestions for a name no tool has', async () => {
    await expect(dispatcher.call('workflow_shou', {})).rejects.toMatchObject({
      code: 'E_UNKNOWN_TOOL',
    });
  });

  it('echoes at most 200 characters of an unknown name (it may be megabytes long)', async () => {
    const error = (await dispatcher
      .call('x'.repeat(1_000_000), {})
      .catch((e: unknown) => e)) as Error;
    expect(error.message.length).toBeLessThan(300);
    expect(error.message).toMatch(/^Unknown tool: x{200}…\.$/u);
  });

  it('hands every other tool to the runner', async () => {
    const result = await dispatcher.call('upper', { text: 'abc' });
    expect(result.structuredContent).toEqual({ text: 'ABC', length: 3 });
  });

  it('call_tool runs the named tool with its arguments checked, and not itself', async () => {
    const withCallTool = createToolDispatcher({
      tools: [...dispatcher.tools, createCallToolBuiltin()],
      runner,
    });
    const ran = await withCallTool.call('call_tool', { name: 'upper', arguments: { text: 'ab' } });
    expect(ran.structuredContent).toEqual({ text: 'AB', length: 2 });
    expect(
      await withCallTool.call('call_tool', { name: 'upper', arguments: { text: 1 } }),
    ).toMatchObject({ isError: true });
    expect(await withCallTool.call('call_tool', { name: 'call_tool' })).toMatchObject({
      isError: true,
      content: [{ text: expect.stringMatching(/^call_tool runs other tools/) }],
    });
    expect(await withCallTool.call('call_tool', { name: 'upperr' })).toMatchObject({
      isError: true,
      content: [{ text: expect.stringMatching(/^Unknown tool: upperr\./) }],
    });
  });

  it("call_tool hands the call to callNamedTool when given (the server's pipeline)", async () => {
    const seen: unknown[] = [];
    const routed = createToolDispatcher({
      tools: [...dispatcher.tools, createCallToolBuiltin()],
      runner,
      callNamedTool: async (name, args) => {
        seen.push({ name, args });
        return { content: [{ type: 'text', text: 'routed' }] };
      },
    });
    expect(await routed.call('call_tool', { name: 'upper' })).toEqual({
      content: [{ type: 'text', text: 'routed' }],
    });
    expect(seen).toEqual([{ name: 'upper', args: {} }]);
  });
});

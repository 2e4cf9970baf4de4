import path from 'node:path';
import { PWSH_TEST_TAG, hasPwsh } from '@toolpack/pwsh-probe';
import { Client, InMemoryTransport } from '@modelcontextprotocol/client';
import { Server } from '@modelcontextprotocol/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  hasInspector,
  runInspectorCli,
  startStdioSession,
  type StdioSession,
} from '../testing/index.ts';

// One tool per runner kind, each with an output schema: a header script (process), a tool
// folder's shell script (process), a tool folder's PowerShell script (pwsh) and a defineTool
// module (node worker). Each answers mode=good (fits), bad (wrong shape) or text (no object).
const project = path.join(import.meta.dirname, 'fixtures', 'output-project');
const kinds = [
  {
    tool: 'file_report',
    kind: 'header script',
    pwsh: false,
    bad: /structuredContent\/count must be integer; structuredContent\/names\/1 must be string/,
  },
  {
    tool: 'word_stats',
    kind: 'tool folder (sh)',
    pwsh: false,
    bad: /structuredContent\/words is required/,
  },
  {
    tool: 'text_shape',
    kind: 'tool folder (ps1)',
    pwsh: true,
    bad: /structuredContent\/length must be integer/,
  },
  {
    tool: 'measure_box',
    kind: 'defineTool module',
    pwsh: false,
    bad: /structuredContent\/height is required/,
  },
  {
    tool: 'label_box',
    kind: 'defineTool module (zod)',
    pwsh: false,
    bad: /structuredContent\/lable is not a declared output property \(did you mean label\?\)/,
  },
] as const;

function textOf(result: { content?: unknown }): string {
  return ((result.content ?? []) as { type: string; text?: string }[])
    .filter((block) => block.type === 'text')
    .map((block) => block.text)
    .join('\n');
}

describe('output schemas over mcp serve (SDK client)', () => {
  let session: StdioSession;

  beforeAll(async () => {
    session = await startStdioSession(['--no-cache', '--no-watch'], { cwd: project });
  });

  afterAll(async () => {
    await session?.close();
  });

  it('lists each tool with its output schema', async () => {
    const { tools } = await session.client.listTools();
    const byName = new Map(tools.map((tool) => [tool.name, tool]));
    expect(byName.get('file_report')?.outputSchema).toEqual({
      type: 'object',
      properties: {
        count: { type: 'integer', description: 'How many files' },
        names: { type: 'array', description: 'Their names', items: { type: 'string' } },
      },
      required: ['count', 'names'],
    });
    for (const { tool } of kinds) expect(byName.get(tool)?.outputSchema?.type).toBe('object');
  });

  for (const { tool, kind, pwsh, bad } of kinds) {
    const tag = pwsh ? `${PWSH_TEST_TAG} ` : '';
    it.skipIf(pwsh && !hasPwsh)(
      `${tag}${kind}: a fitting result passes the SDK client's own output check`,
      async () => {
        // The SDK client validates structuredContent against the listed outputSchema and
        // throws when it does not fit: resolving here is that check passing.
        const result = await session.client.callTool({ name: tool, arguments: { mode: 'good' } });
        expect(result.isError).toBeFalsy();
        expect(result.structuredContent).toBeTypeOf('object');
      },
    );

    it.skipIf(pwsh && !hasPwsh)(
      `${tag}${kind}: a result of the wrong shape arrives as an isError result naming the paths`,
      async () => {
        const result = await session.client.callTool({ name: tool, arguments: { mode: 'bad' } });
        expect(result.isError).toBe(true);
        expect(result.structuredContent).toBeUndefined();
        // The tool did run and printed its object: that comes first, the mismatch after it.
        const blocks = result.content as { type: string; text: string }[];
        expect(blocks).toHaveLength(2);
        expect(blocks[0]?.text).not.toContain('E_OUTPUT_MISMATCH');
        expect(blocks[1]?.text).toMatch(
          new RegExp(`^E_OUTPUT_MISMATCH Tool "${tool}" returned a result that does not fit`),
        );
        expect(blocks[1]?.text).toMatch(bad);
      },
    );

    it.skipIf(pwsh && !hasPwsh)(
      `${tag}${kind}: plain text from a tool that declares an output schema is an isError result`,
      async () => {
        const result = await session.client.callTool({ name: tool, arguments: { mode: 'text' } });
        expect(result.isError).toBe(true);
        expect(textOf(result)).toMatch(/E_OUTPUT_MISMATCH .* has no structured content/);
      },
    );
  }
});

describe('without the check', () => {
  it("a result of the wrong shape fails the SDK client's call instead of reaching the model", async () => {
    // A bare SDK server answering what a tool printed, unchecked: the client throws, so the
    // model would see no result at all. This is what the check above turns into an isError result.
    const server = new Server(
      { name: 'unchecked', version: '1.0.0' },
      { capabilities: { tools: {} } },
    );
    server.setRequestHandler('tools/list', () => ({
      tools: [
        {
          name: 'word_stats',
          inputSchema: { type: 'object' as const },
          outputSchema: {
            type: 'object' as const,
            properties: { words: { type: 'integer' } },
            required: ['words'],
          },
        },
      ],
    }));
    server.setRequestHandler('tools/call', () => ({
      content: [{ type: 'text' as const, text: '{"lines": 3}' }],
      structuredContent: { lines: 3 },
    }));
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    const client = new Client({ name: 'toolpack-e2e', version: '1.0.0' });
    await server.connect(serverSide);
    await client.connect(clientSide);
    try {
      await client.listTools();
      await expect(client.callTool({ name: 'word_stats', arguments: {} })).rejects.toThrow(
        /Structured content does not match the tool's output schema/,
      );
    } finally {
      await client.close();
      await server.close();
    }
  });
});

describe.skipIf(!hasInspector)('output schemas through the Inspector CLI [needs Inspector]', () => {
  const runInspector = (method: string[]) => runInspectorCli({ cwd: project, method });

  it('shows each output schema in tools/list', () => {
    const { code, json } = runInspector(['--method', 'tools/list']);
    expect(code).toBe(0);
    const tools = json.tools as { name: string; outputSchema?: { required?: string[] } }[];
    const required = Object.fromEntries(
      tools.map((tool) => [tool.name, tool.outputSchema?.required]),
    );
    expect(required).toMatchObject({
      file_report: ['count', 'names'],
      word_stats: ['words'],
      text_shape: ['length'],
      measure_box: ['width', 'height'],
    });
  });

  it('calls a tool whose result fits, and gets an isError result for one that does not', () => {
    const good = runInspector([
      '--method',
      'tools/call',
      '--tool-name',
      'measure_box',
      '--tool-arg',
      'mode=good',
    ]);
    expect(good.code).toBe(0);
    expect(good.json.structuredContent).toEqual({ width: 2, height: 3 });
    const bad = runInspector([
      '--method',
      'tools/call',
      '--tool-name',
      'measure_box',
      '--tool-arg',
      'mode=bad',
    ]);
    expect(bad.json.isError).toBe(true);
    expect(JSON.stringify(bad.json.content)).toMatch(
      /E_OUTPUT_MISMATCH.*structuredContent\/height is required/,
    );
  });
});

import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  hasInspector,
  repo,
  runInspectorCli,
  startStdioSession,
  type StdioSession,
  waitFor,
} from '../testing/index.ts';

// A 1,000-tool catalogue (above the default maxTools, so every server here raises it) of near-duplicates (20 verbs x 50 nouns), in one JS module so that
// calling every tool costs a worker message, not a process each.
const VERBS =
  'create get list update delete archive restore export import sync copy move rename lock unlock share publish approve reject close'.split(
    ' ',
  );
const NOUNS =
  'invoice order customer ticket issue project board sprint release build pipeline deployment server volume snapshot backup bucket queue topic message channel user group role policy secret certificate domain record zone route gateway cluster node pod service job schedule report dashboard alert incident contract vendor payment refund shipment warehouse product coupon'.split(
    ' ',
  );
const NAMES = VERBS.flatMap((verb) => NOUNS.map((noun) => `${verb}_${noun}`));

function writeCatalogue(folder: string): string {
  // The module imports @toolpack/core as a user's would: from a node_modules next to it.
  const scope = path.join(folder, 'node_modules', '@toolpack');
  mkdirSync(scope, { recursive: true });
  symlinkSync(path.join(repo, 'packages', 'core'), path.join(scope, 'core'), 'dir');
  const lines = [`import { defineTool } from '@toolpack/core';`];
  NAMES.forEach((name, i) => {
    const [verb, noun] = name.split('_') as [string, string];
    lines.push(
      `export const t${i} = defineTool({ name: '${name}', description: '${verb[0]?.toUpperCase()}${verb.slice(1)}s one ${noun} by its id.', input: { type: 'object', properties: { id: { type: 'string', description: 'The ${noun} id.' } }, required: ['id'] },${i === 0 ? ` examples: [{ arguments: { id: 'INV-7' }, description: 'Create invoice INV-7' }],` : ''} run: ({ id }) => ({ ran: '${name}', id }) });`,
    );
  });
  const module = path.join(folder, 'tools.mjs');
  writeFileSync(module, `${lines.join('\n')}\n`);
  return module;
}

interface FoundTools {
  tools: { name: string }[];
}

async function reachThroughSearch(session: StdioSession, name: string): Promise<unknown> {
  const found = await session.client.callTool({
    name: 'find_tools',
    arguments: { query: name.replace('_', ' '), limit: 5 },
  });
  const names = (found.structuredContent as FoundTools).tools.map((tool) => tool.name);
  if (!names.includes(name)) return { notFound: name, names };
  const called = await session.client.callTool({
    name: 'call_tool',
    arguments: { name, arguments: { id: 'x1' } },
  });
  return called.structuredContent;
}

describe('progressive disclosure (mcp serve --disclose-above, SDK client)', () => {
  let temp: string;
  let module: string;
  let audit: string;
  const sessions: StdioSession[] = [];
  const start = async (args: string[]) => {
    const session = await startStdioSession(
      ['--module', module, '--max-tools', '2000', '--no-cache', '--no-watch', ...args],
      { cwd: temp },
    );
    sessions.push(session);
    return session;
  };

  beforeAll(() => {
    temp = mkdtempSync(path.join(os.tmpdir(), 'toolpack-disclose-'));
    module = writeCatalogue(temp);
    audit = path.join(temp, 'audit.jsonl');
    writeFileSync(path.join(temp, 'deny-delete.yaml'), "deny: ['delete_*']\n");
  });

  afterAll(async () => {
    for (const session of sessions) await session.close();
    rmSync(temp, { recursive: true, force: true });
  });

  it('above the threshold lists three built-ins, says so, and reaches every tool through find_tools + call_tool', async () => {
    const session = await start(['--disclose-above', '100', '--audit', audit]);
    const { tools } = await session.client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(['find_tools', 'describe_tool', 'call_tool']);
    expect(session.client.getInstructions()).toMatch(/more than 100 tools.*call_tool/s);

    const unreached: unknown[] = [];
    for (const name of NAMES) {
      const answer = await reachThroughSearch(session, name);
      if ((answer as { ran?: string }).ran !== name) unreached.push(answer);
    }
    expect(unreached).toEqual([]);

    // The named tool runs through the whole pipeline: its own audit line, its argument check.
    // The audit stream writes asynchronously: wait for every line (find_tools, call_tool, the tool).
    const lines = await waitFor(() => {
      const read = readFileSync(audit, 'utf8').trim().split('\n');
      return read.length >= 3 * NAMES.length && read;
    }, 'an audit line for each call_tool and each tool it ran');
    const audited = lines.map((line) => JSON.parse(line) as { tool: string; outcome: string });
    expect(audited.filter((line) => line.tool === 'close_coupon')).toEqual([
      expect.objectContaining({ outcome: 'ok' }),
    ]);
    expect(audited.filter((line) => line.tool === 'call_tool')).toHaveLength(NAMES.length);
    const bad = await session.client.callTool({
      name: 'call_tool',
      arguments: { name: 'get_invoice', arguments: { id: 5 } },
    });
    expect(bad).toMatchObject({
      isError: true,
      content: [{ text: expect.stringMatching(/get_invoice.*\/id must be string/) }],
    });
    const unknown = await session.client.callTool({
      name: 'call_tool',
      arguments: { name: 'get_invoyce' },
    });
    expect(unknown).toMatchObject({
      isError: true,
      content: [{ text: expect.stringMatching(/^Unknown tool: get_invoyce\. Did you mean get_/) }],
    });
  });

  it('at or below the threshold lists every tool, each reachable directly and through find_tools', async () => {
    const session = await start(['--disclose-above', '1000']);
    const { tools } = await session.client.listTools();
    expect(tools).toHaveLength(1002);
    expect(tools.map((tool) => tool.name)).not.toContain('call_tool');
    const direct = await session.client.callTool({ name: 'delete_coupon', arguments: { id: 'c' } });
    expect(direct.structuredContent).toEqual({ ran: 'delete_coupon', id: 'c' });
    const found = await session.client.callTool({
      name: 'find_tools',
      arguments: { query: 'delete coupon', limit: 1 },
    });
    expect((found.structuredContent as FoundTools).tools[0]?.name).toBe('delete_coupon');
  });

  it('gives input examples in tools/list _meta and in describe_tool', async () => {
    const session = await start([]);
    const { tools } = await session.client.listTools();
    const example = { arguments: { id: 'INV-7' }, description: 'Create invoice INV-7' };
    const createInvoice = tools.find((tool) => tool.name === 'create_invoice');
    expect(createInvoice?._meta).toEqual({ 'dev.toolpack/inputExamples': [example] });
    expect(tools.find((tool) => tool.name === 'get_invoice')).not.toHaveProperty('_meta');
    const described = await session.client.callTool({
      name: 'describe_tool',
      arguments: { name: 'create_invoice' },
    });
    expect(described.structuredContent).toMatchObject({ inputExamples: [example] });
  });

  it('keeps policy-denied tools unreachable through call_tool and find_tools (reachable without the policy, above)', async () => {
    const session = await start([
      '--disclose-above',
      '100',
      '--policy',
      path.join(temp, 'deny-delete.yaml'),
    ]);
    const denied = await session.client.callTool({
      name: 'call_tool',
      arguments: { name: 'delete_invoice', arguments: { id: 'x' } },
    });
    expect(denied).toMatchObject({
      isError: true,
      content: [{ text: expect.stringMatching(/delete_invoice|denied|policy/i) }],
    });
    expect(JSON.stringify(denied)).not.toContain('"ran"');
    const found = await session.client.callTool({
      name: 'find_tools',
      arguments: { query: 'delete invoice', limit: 50 },
    });
    expect((found.structuredContent as FoundTools).tools.map((tool) => tool.name)).not.toContain(
      'delete_invoice',
    );
    expect(await reachThroughSearch(session, 'get_invoice')).toEqual({
      ran: 'get_invoice',
      id: 'x1',
    });
  });
});

// The official MCP Inspector's CLI mode, as a third-party client sees the disclosed list.
function listWithInspector(
  folder: string,
  module: string,
  discloseAbove: string,
): { name: string; _meta?: unknown }[] {
  const result = runInspectorCli({
    cwd: folder,
    serveArgs: ['--module', module, '--max-tools', '2000', '--disclose-above', discloseAbove],
    method: ['--method', 'tools/list'],
  });
  expect(result.code, result.stderr).toBe(0);
  return (result.json as { tools: { name: string; _meta?: unknown }[] }).tools;
}

describe.skipIf(!hasInspector)(
  'progressive disclosure and input examples (Inspector CLI) [needs Inspector]',
  () => {
    it('tools/list shows the three built-ins above the threshold, every tool with its examples below it', () => {
      const temp = mkdtempSync(path.join(os.tmpdir(), 'toolpack-disclose-inspector-'));
      try {
        const module = writeCatalogue(temp);
        expect(listWithInspector(temp, module, '100').map((tool) => tool.name)).toEqual([
          'find_tools',
          'describe_tool',
          'call_tool',
        ]);
        const all = listWithInspector(temp, module, '1000');
        expect(all).toHaveLength(1002);
        expect(all.find((tool) => tool.name === 'create_invoice')?._meta).toEqual({
          'dev.toolpack/inputExamples': [
            { arguments: { id: 'INV-7' }, description: 'Create invoice INV-7' },
          ],
        });
      } finally {
        rmSync(temp, { recursive: true, force: true });
      }
    });
  },
);

// AlexClaw's MCP page: skills and workflows as namespaced tools, resolve -> policy -> supervised
// run with a timeout -> response; unknown tools are -32602, denials, timeouts and crashes are
// tool execution errors, and a registry change re-registers the tools with list_changed.
import { copyFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  copySeedFixture,
  fixtures,
  listToolsByName,
  readErrorCode,
  readStructured,
  readText,
  runMcp,
  startSeedServer,
  waitFor,
  type ListedTool,
  type StdioSession,
} from './seed-helpers.ts';

const TIMEOUT_MS = 1_500;

let project: ReturnType<typeof copySeedFixture>;
let session: StdioSession;
let tools: Map<string, ListedTool>;
let listChanged = 0;

beforeAll(async () => {
  project = copySeedFixture('alexclaw');
  session = await startSeedServer(['--timeout', String(TIMEOUT_MS)], {
    cwd: project.dir,
    watch: true,
  });
  session.client.setNotificationHandler('notifications/tools/list_changed', () => {
    listChanged += 1;
  });
  tools = await listToolsByName(session);
}, 60_000);

afterAll(async () => {
  await session?.close();
  project?.remove();
});

describe('AlexClaw skills and workflows through mcp serve', () => {
  it('lists skills under the skill_ namespace and workflows under workflow_, minus what the policy denies', () => {
    expect([...tools.keys()].sort()).toEqual([
      'describe_tool',
      'find_tools',
      'skill_broken_feed',
      'skill_slow_digest',
      'skill_web_search',
      'workflow_Tech_News_Digest',
    ]);
  });

  it('gives a core skill its typed schema beside the generic input and config fields', () => {
    expect(tools.get('skill_web_search')).toMatchObject({
      description: expect.stringMatching(/^Looks a query up/),
      inputSchema: {
        type: 'object',
        required: ['query'],
        properties: {
          input: { type: 'string' },
          config: { type: 'object' },
          query: { type: 'string', examples: ['release notes'] },
          max_results: { type: 'integer' },
        },
      },
      annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
    });
  });

  it('runs a skill and answers with its result', async () => {
    const result = await session.client.callTool({
      name: 'skill_web_search',
      arguments: { query: 'checklist', max_results: 1 },
    });
    expect(readStructured(result)).toEqual({
      query: 'checklist',
      results: [{ title: 'Release checklist', url: 'https://example.test/checklist' }],
    });
  });

  it('runs a workflow whose step calls a skill', async () => {
    const result = await session.client.callTool({
      name: 'workflow_Tech_News_Digest',
      arguments: { topic: 'release' },
    });
    expect(readStructured(result)).toMatchObject({
      digest: {
        query: 'release',
        results: [{ title: 'Release notes 2.0' }, { title: 'Release checklist' }],
      },
    });
  });

  it('answers an unknown skill with JSON-RPC -32602 (invalid params)', async () => {
    const error = await session.client
      .callTool({ name: 'skill_weather', arguments: {} })
      .catch((e: unknown) => e);
    expect(readErrorCode(error)).toBe(-32602);
    expect((error as Error).message).toMatch(/skill_weather/);
  });

  it('answers an unknown workflow with JSON-RPC -32602 as well', async () => {
    const error = await session.client
      .callTool({ name: 'workflow_Daily_Standup', arguments: {} })
      .catch((e: unknown) => e);
    expect(readErrorCode(error)).toBe(-32602);
  });

  it('answers a call the policy denies with an execution error, not a protocol error', async () => {
    const result = await session.client.callTool({
      name: 'skill_shell_exec',
      arguments: { command: 'ls' },
    });
    expect(result.isError).toBe(true);
    expect(readText(result)).toMatch(/polic|denied/i);
  });

  it('stops a skill that outlives the timeout and answers with an execution error', async () => {
    const result = await session.client.callTool({ name: 'skill_slow_digest', arguments: {} });
    expect(result.isError).toBe(true);
    expect(readText(result)).toMatch(new RegExp(`timed out after ${TIMEOUT_MS} ms`));
  });

  it('answers a skill that raises an exception with an execution error carrying its message', async () => {
    const result = await session.client.callTool({ name: 'skill_broken_feed', arguments: {} });
    expect(result.isError).toBe(true);
    expect(readText(result)).toMatch(/the feed parser blew up/);
    // The server is still there for the next call.
    expect(
      (
        await session.client.callTool({
          name: 'skill_web_search',
          arguments: { query: 'calendar' },
        })
      ).isError,
    ).toBeFalsy();
  });

  it('sends notifications/tools/list_changed when a skill is loaded at run time, and lists it', async () => {
    const before = listChanged;
    copyFileSync(
      path.join(fixtures, 'alexclaw', 'dynamic', 'system-info.mjs'),
      path.join(project.dir, 'skill', 'system-info.mjs'),
    );
    // How soon it comes is a benchmark figure, not a test bound.
    await waitFor(() => listChanged > before, 'list_changed after loading system-info.mjs', 15_000);
    const after = await listToolsByName(session);
    expect(after.get('skill_system_info')?.description).toMatch(/^\[dynamic\]/);
    const result = await session.client.callTool({ name: 'skill_system_info', arguments: {} });
    expect(readStructured(result)).toEqual({ platform: process.platform });
  });
});

describe('the timeout default', () => {
  it('is 30 seconds, as mcp.tool_timeout_ms defaults in AlexClaw', async () => {
    const help = await runMcp(['serve', '--help'], { cwd: project.dir });
    expect(help.stdout).toMatch(/--timeout <ms>[\s\S]*default 30000/);
  });
});

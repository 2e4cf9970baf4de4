import {
  copyFileSync,
  cpSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client, InMemoryTransport } from '@modelcontextprotocol/client';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isToolpackError } from '@toolpack/core';
import { hasPwsh, PWSH_TEST_TAG } from '@toolpack/pwsh-probe';
import { createToolpackServer, type ToolpackServer } from './toolpack-server.ts';

const fixtures = path.join(import.meta.dirname, 'fixtures');
const edits = path.join(fixtures, 'edits');

let project: string;
let server: ToolpackServer | undefined;
let logs: string[];

beforeEach(() => {
  project = mkdtempSync(path.join(os.tmpdir(), 'toolpack-server-'));
  cpSync(path.join(fixtures, 'scripts'), path.join(project, 'scripts'), { recursive: true });
  logs = [];
});

afterEach(async () => {
  await server?.close();
  server = undefined;
  rmSync(project, { recursive: true, force: true });
});

async function start(options: Partial<Parameters<typeof createToolpackServer>[0]> = {}) {
  server = await createToolpackServer({
    discovery: { sources: [{ scripts: 'scripts' }], cwd: project, cache: false },
    log: (line) => logs.push(line),
    ...options,
  });
  return server;
}

const names = (s: ToolpackServer) => s.tools.map((t) => t.name);

describe('createToolpackServer', () => {
  it('serves the composed tools and calls them through the dispatcher', async () => {
    const s = await start();
    expect(names(s)).toEqual(['find_tools', 'describe_tool', 'hello', 'remove_note']);
    const result = await s.callTool('hello', { name: 'Ada' });
    expect(result.structuredContent).toEqual({ greeting: 'hello Ada' });
  });

  it('throws E_UNKNOWN_TOOL, with suggestions, for an unknown name', async () => {
    const s = await start();
    const error = await s.callTool('hello_there', {}).catch((e: unknown) => e);
    expect(isToolpackError(error) && error.code).toBe('E_UNKNOWN_TOOL');
    expect((error as { hint?: string }).hint).toMatch(/hello/);
  });

  it('refuses to start above maxTools with E_MAX_TOOLS and the fix', async () => {
    const error = await start({
      discovery: { sources: [{ scripts: 'scripts' }], cwd: project, cache: false, maxTools: 1 },
    }).catch((e: unknown) => e);
    expect(isToolpackError(error) && error.code).toBe('E_MAX_TOOLS');
    expect((error as { hint?: string }).hint).toMatch(/--max-tools 2/);
  });

  it('logs error and warning diagnostics but serves the good tools', async () => {
    copyFileSync(path.join(edits, 'hello-broken.sh'), path.join(project, 'scripts', 'broken.sh'));
    const s = await start();
    expect(names(s)).toContain('hello');
    expect(names(s)).not.toContain('broken');
    expect(logs.join('\n')).toMatch(/scripts\/broken\.sh(:\d+)?: error E_/);
  });

  it('applies the policy: denied tools are not listed, not callable and not findable', async () => {
    const s = await start({ policy: { deny: ['remove_*'], origin: 'policy.yaml' } });
    expect(names(s)).toEqual(['find_tools', 'describe_tool', 'hello']);
    const refused = await s.callTool('remove_note', { title: 'x' });
    expect(refused.isError).toBe(true);
    expect(refused.content[0]).toMatchObject({
      text: expect.stringMatching(/denied by the policy in policy\.yaml \(deny: "remove_\*"\)/),
    });
    const found = await s.callTool('find_tools', { query: 'remove note' });
    expect(JSON.stringify(found)).not.toContain('remove_note');
    const described = await s.callTool('describe_tool', { name: 'remove_note' });
    expect(described.isError).toBe(true);
  });

  it('audits every call without argument values and counts it in the metrics', async () => {
    const audit = path.join(project, 'audit', 'calls.jsonl');
    const s = await start({ audit, policy: { deny: ['remove_*'] } });
    await s.callTool('hello', { name: 'Top Secret' });
    await s.callTool('remove_note', { title: 'x' });
    await s.callTool('nope', {}).catch(() => undefined);
    await s.close();
    const lines = readFileSync(audit, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines.map((l) => [l.tool, l.outcome, l.argumentKeys])).toEqual([
      ['hello', 'ok', ['name']],
      ['remove_note', 'denied', ['title']],
      ['nope', 'unknown_tool', []],
    ]);
    expect(readFileSync(audit, 'utf8')).not.toContain('Top Secret');
    const metrics = await s.metrics.render();
    expect(metrics).toMatch(/toolpack_tool_calls_total\{tool="remove_note",outcome="denied"\} 1/);
  });

  it('reloads: new, edited and deleted files change the list and notify; a broken edit keeps the last good tool', async () => {
    const s = await start();
    let notified = 0;
    s.onToolsChanged(() => (notified += 1));
    const scripts = path.join(project, 'scripts');

    copyFileSync(path.join(edits, 'wave.sh'), path.join(scripts, 'wave.sh'));
    expect(await s.reload([path.join(scripts, 'wave.sh')])).toMatchObject({
      changed: true,
      kept: [],
    });
    expect(names(s)).toContain('wave');

    copyFileSync(path.join(edits, 'hello-v2.sh'), path.join(scripts, 'hello.sh'));
    await s.reload();
    expect(s.tools.find((t) => t.name === 'hello')?.description).toBe(
      'Says hello to someone, politely.',
    );

    copyFileSync(path.join(edits, 'hello-broken.sh'), path.join(scripts, 'hello.sh'));
    const report = await s.reload();
    expect(report).toMatchObject({ changed: false, kept: ['hello'] });
    expect(s.tools.find((t) => t.name === 'hello')?.description).toBe(
      'Says hello to someone, politely.',
    );
    expect(logs.join('\n')).toMatch(/keeping the last good definition of hello/);

    unlinkSync(path.join(scripts, 'wave.sh'));
    await s.reload();
    expect(names(s)).not.toContain('wave');
    expect(notified).toBe(3);
  });

  it('refuses a reload that would exceed maxTools and keeps serving the previous list', async () => {
    const s = await start({
      discovery: { sources: [{ scripts: 'scripts' }], cwd: project, cache: false, maxTools: 2 },
    });
    copyFileSync(path.join(edits, 'wave.sh'), path.join(project, 'scripts', 'wave.sh'));
    const report = await s.reload();
    expect(report.refused).toEqual({
      code: 'E_MAX_TOOLS',
      message: expect.stringMatching(/more than maxTools/),
    });
    expect(names(s)).toEqual(['find_tools', 'describe_tool', 'hello', 'remove_note']);
    expect(logs.join('\n')).toMatch(/reload refused, still serving the previous 4 tools/);
  });

  it('folds changes that arrive during a reload into one more reload', async () => {
    const s = await start();
    const reloads = await Promise.all([
      s.reload(['a']),
      s.reload(['b']),
      s.reload(['c']),
      s.reload(['d']),
    ]);
    expect(reloads).toHaveLength(4);
    expect(reloads[1]).toBe(reloads[2]);
  });

  it('watches the sources and reloads by itself', async () => {
    const s = await start({ watch: { debounceMs: 50 } });
    await s.watching;
    const changed = new Promise<void>((resolve) => s.onToolsChanged(resolve));
    copyFileSync(path.join(edits, 'wave.sh'), path.join(project, 'scripts', 'wave.sh'));
    await changed;
    expect(names(s)).toContain('wave');
  });
});

describe('watching a PowerShell module found on PSModulePath', () => {
  it('covers its folder from `watching` on, though the folder is known only after discovery', async () => {
    const modules = path.join(project, 'psmodules');
    cpSync(
      path.join(import.meta.dirname, '..', '..', '..', 'examples', 'powershell-module', 'Widgets'),
      path.join(modules, 'Widgets'),
      { recursive: true },
    );
    const s = await start({
      discovery: {
        sources: [{ module: 'Widgets' }],
        cwd: project,
        cache: false,
        psModulePath: modules,
      },
      watch: { debounceMs: 50 },
    });
    await s.watching;
    const describeGet = () => s.tools.find((t) => t.name.endsWith('Get_Widget'))?.description;
    expect(describeGet()).toMatch(/^Lists the widgets/);
    const changed = new Promise<void>((resolve) => s.onToolsChanged(resolve));
    const psm1 = path.join(modules, 'Widgets', 'Widgets.psm1');
    writeFileSync(
      psm1,
      readFileSync(psm1, 'utf8').replace('Lists the widgets in the store', 'Counts the widgets'),
    );
    await changed;
    expect(describeGet()).toMatch(/^Counts the widgets/);
  });
});

describe('the MCP server it makes', () => {
  it('lists, calls, maps unknown tools to -32602 and sends list_changed to connected clients', async () => {
    const s = await start();
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    const mcp = s.createMcpServer();
    await mcp.connect(serverSide);
    const client = new Client({ name: 'in-memory', version: '1.0.0' });
    let changes = 0;
    client.setNotificationHandler('notifications/tools/list_changed', () => {
      changes += 1;
    });
    await client.connect(clientSide);
    try {
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).toEqual([
        'find_tools',
        'describe_tool',
        'hello',
        'remove_note',
      ]);
      expect(tools[0]).toEqual({
        name: 'find_tools',
        description: expect.any(String),
        inputSchema: expect.objectContaining({ type: 'object' }),
        annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
      });
      const result = await client.callTool({ name: 'hello', arguments: { name: 'Bob' } });
      expect(result.structuredContent).toEqual({ greeting: 'hello Bob' });
      const error = (await client
        .callTool({ name: 'nope', arguments: {} })
        .catch((e: unknown) => e)) as { code?: number };
      expect(error.code).toBe(-32602);
      copyFileSync(path.join(edits, 'wave.sh'), path.join(project, 'scripts', 'wave.sh'));
      await s.reload();
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(changes).toBe(1);
    } finally {
      await client.close();
    }
  });
});

describe('warming the hosts', () => {
  const jsModule = path.join(fixtures, 'js-module', 'add.mjs');
  const startWith = (warm: boolean | 'after-list') =>
    start({ discovery: { sources: [{ module: jsModule }], cwd: project, cache: false }, warm });

  it('starts the module child at once with warm: true', async () => {
    const s = await startWith(true);
    expect(s.runner.stats().workers).toBe(1);
  });

  it("with warm: 'after-list', starts it once a client has its list, and the first call is answered", async () => {
    const s = await startWith('after-list');
    expect(s.runner.stats().workers).toBe(0);
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await s.createMcpServer().connect(serverSide);
    const client = new Client({ name: 'in-memory', version: '1.0.0' });
    await client.connect(clientSide);
    try {
      expect((await client.listTools()).tools.map((t) => t.name)).toContain('add');
      for (let i = 0; i < 100 && s.runner.stats().workers === 0; i++)
        await new Promise((resolve) => setTimeout(resolve, 10));
      expect(s.runner.stats().workers).toBe(1);
      const result = await client.callTool({ name: 'add', arguments: { a: 2, b: 3 } });
      expect(result.structuredContent).toEqual({ sum: 5 });
    } finally {
      await client.close();
    }
  });

  it("with warm: 'after-list', starts no PowerShell host for sources without PowerShell", async () => {
    const s = await start({ warm: 'after-list' });
    expect(s.runner.stats().pwshHosts).toBe(0);
  });

  it.skipIf(!hasPwsh)(
    `with warm: 'after-list', starts the PowerShell host while discovery runs, before any list ${PWSH_TEST_TAG}`,
    async () => {
      cpSync(path.join(fixtures, 'powershell'), path.join(project, 'ps'), { recursive: true });
      const s = await start({
        discovery: { sources: [{ scripts: 'ps' }], cwd: project, cache: false },
        warm: 'after-list',
      });
      expect(s.runner.stats().pwshHosts).toBe(1);
      const tool = s.tools.find((t) => /greeting/iu.test(t.name));
      const result = await s.callTool(tool?.name ?? '', { Name: 'Ada' });
      expect(result.content).toEqual([{ type: 'text', text: 'Hello, Ada!' }]);
      expect(s.runner.stats().pwshRestarts).toBe(0);
    },
  );

  it("with warm: 'after-list', a first call made without listing is answered", async () => {
    const s = await startWith('after-list');
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await s.createMcpServer().connect(serverSide);
    const client = new Client({ name: 'in-memory', version: '1.0.0' });
    await client.connect(clientSide);
    try {
      const result = await client.callTool({ name: 'add', arguments: { a: 1, b: 1 } });
      expect(result.structuredContent).toEqual({ sum: 2 });
      expect(s.runner.stats().workers).toBe(1);
    } finally {
      await client.close();
    }
  });
});

import {
  cpSync,
  existsSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ProtocolError } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  examples,
  isAlive,
  listDescendants,
  spawnServe,
  startStdioSession,
  type StdioSession,
  waitFor,
} from '../testing/index.ts';

const fixtures = path.join(import.meta.dirname, 'fixtures');
const jsTools = path.join(examples, 'js-tools', 'tools.ts');
const scripts = path.join(examples, 'scripts');

function textOf(result: { content?: unknown }): string {
  return ((result.content ?? []) as { type: string; text?: string }[])
    .filter((block) => block.type === 'text')
    .map((block) => block.text)
    .join('\n');
}

describe('mcp serve over stdio (SDK client)', () => {
  let temp: string;
  let session: StdioSession;
  let audit: string;

  beforeAll(async () => {
    temp = mkdtempSync(path.join(os.tmpdir(), 'toolpack-serve-'));
    audit = path.join(temp, 'audit.jsonl');
    session = await startStdioSession(
      [
        '--module',
        jsTools,
        '--script-root',
        scripts,
        '--no-cache',
        '--no-watch',
        '--timeout',
        '1500',
        '--audit',
        audit,
      ],
      { cwd: temp },
    );
  });

  afterAll(async () => {
    await session?.close();
    rmSync(temp, { recursive: true, force: true });
  });

  it('initializes with the tools and logging capabilities and answers ping', async () => {
    expect(session.client.getServerCapabilities()).toMatchObject({
      tools: { listChanged: true },
      logging: {},
    });
    expect(session.client.getServerVersion()?.name).toBe('toolpack');
    await expect(session.client.ping()).resolves.toEqual({});
  });

  it('lists every composed tool with its annotations', async () => {
    const { tools } = await session.client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual([
      'find_tools',
      'describe_tool',
      'add_numbers',
      'count_calls',
      'wait',
      'convert_temperature',
      'slugify',
      'word_count',
    ]);
    const add = tools.find((tool) => tool.name === 'add_numbers');
    expect(add?.annotations).toEqual({ readOnlyHint: true, idempotentHint: true });
    expect(add?.inputSchema).toMatchObject({ type: 'object', required: ['numbers'] });
  });

  it('calls a JS module tool: structuredContent and its JSON as text', async () => {
    const result = await session.client.callTool({
      name: 'add_numbers',
      arguments: { numbers: [1, 2, 39] },
    });
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toEqual({ sum: 42 });
    expect(JSON.parse(textOf(result))).toEqual({ sum: 42 });
  });

  it('calls a bash script tool', async () => {
    const result = await session.client.callTool({
      name: 'word_count',
      arguments: { text: 'one two three' },
    });
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toMatchObject({ words: 3 });
  });

  it('answers an unknown tool with JSON-RPC -32602 and suggestions', async () => {
    const error = await session.client
      .callTool({ name: 'add_number', arguments: {} })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ProtocolError);
    expect((error as ProtocolError).code).toBe(-32602);
    expect((error as ProtocolError).message).toMatch(/Unknown tool: add_number\..*add_numbers/);
  });

  it('answers invalid arguments with an isError result that says what is wrong', async () => {
    const result = await session.client.callTool({
      name: 'add_numbers',
      arguments: { numbers: 'many' },
    });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toMatch(/Invalid arguments for tool "add_numbers": .*numbers/);
  });

  it('stops a call at the timeout with an isError result', async () => {
    const started = Date.now();
    const result = await session.client.callTool({ name: 'wait', arguments: { ms: 10_000 } });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toMatch(/1500 ?ms|timed out|timeout/i);
    expect(Date.now() - started).toBeLessThan(6_000);
  });

  it('sends progress notifications when the request carries a progress token', async () => {
    const updates: { progress: number; total?: number }[] = [];
    const result = await session.client.callTool(
      { name: 'wait', arguments: { ms: 300 } },
      { onprogress: (progress) => updates.push(progress) },
    );
    expect(result.isError).toBeFalsy();
    expect(textOf(result)).toBe('waited 300 ms');
    // Ten steps; an SDK client can miss the very last one when it lands with the answer.
    expect(updates.length).toBeGreaterThanOrEqual(3);
    expect(updates.every((u) => u.total === 10 && u.progress >= 1 && u.progress <= 10)).toBe(true);
    const values = updates.map((u) => u.progress);
    expect(values).toEqual([...new Set(values)].sort((a, b) => a - b));
  });

  it('stops a long wait when the client cancels it (notifications/cancelled)', async () => {
    const controller = new AbortController();
    const call = session.client
      .callTool({ name: 'wait', arguments: { ms: 10_000 } }, { signal: controller.signal })
      .catch((error: unknown) => error);
    setTimeout(() => controller.abort('changed my mind'), 200);
    expect(await call).toBeInstanceOf(Error);
    // The server recorded the call as cancelled, well before it would have finished.
    const line = await waitFor(() => {
      const lines = readFileSync(audit, 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as Record<string, unknown>);
      return lines.find((l) => l.tool === 'wait' && l.outcome === 'cancelled');
    }, 'the cancelled audit line');
    expect(line.ms).toBeLessThan(5_000);
  });

  it('writes audit lines with argument names and never their values', async () => {
    await session.client.callTool({
      name: 'slugify',
      arguments: { title: 'Top Secret Plans', max_length: 8 },
    });
    const text = await waitFor(() => {
      const content = readFileSync(audit, 'utf8');
      return content.includes('"slugify"') ? content : undefined;
    }, 'the slugify audit line');
    expect(text).not.toContain('Top Secret');
    const lines = text
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    const slug = lines.find((l) => l.tool === 'slugify');
    expect(slug).toEqual({
      time: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      tool: 'slugify',
      argumentKeys: ['max_length', 'title'],
      outcome: 'ok',
      ms: expect.any(Number),
    });
    expect(lines.find((l) => l.tool === 'add_number')?.outcome).toBe('unknown_tool');
    expect(lines.find((l) => l.tool === 'add_numbers' && l.outcome === 'error')).toBeDefined();
  });

  it('writes nothing but protocol to stdout: logs are on stderr', () => {
    expect(session.stderr()).toMatch(/serving 8 tools over stdio/);
  });
});

describe('mcp serve policy', () => {
  it('hides and refuses tools denied by policy: in toolpack.yaml, naming where it came from', async () => {
    const session = await startStdioSession(['--no-cache', '--no-watch'], {
      cwd: path.join(fixtures, 'policy-project'),
    });
    try {
      const { tools } = await session.client.listTools();
      expect(tools.map((t) => t.name)).toEqual(['find_tools', 'describe_tool', 'note_read']);
      const refused = await session.client.callTool({
        name: 'note_delete',
        arguments: { title: 'x' },
      });
      expect(refused.isError).toBe(true);
      expect(textOf(refused)).toMatch(
        /note_delete is denied by the policy in toolpack\.yaml:5 \(deny: "\*_delete\*"\)/,
      );
      const found = await session.client.callTool({
        name: 'find_tools',
        arguments: { query: 'delete note' },
      });
      expect(JSON.stringify(found.structuredContent)).not.toContain('note_delete');
      const ok = await session.client.callTool({ name: 'note_read', arguments: { title: 'x' } });
      expect(ok.structuredContent).toEqual({ text: 'remember the milk' });
    } finally {
      await session.close();
    }
  });

  it('serves only readOnlyHint tools with a readOnly --policy file', async () => {
    const temp = mkdtempSync(path.join(os.tmpdir(), 'toolpack-policy-'));
    const session = await startStdioSession(
      [
        '--module',
        jsTools,
        '--script-root',
        path.join(fixtures, 'policy-project', 'scripts'),
        '--no-cache',
        '--no-watch',
        '--policy',
        path.join(fixtures, 'readonly-policy.yaml'),
      ],
      { cwd: temp },
    );
    try {
      const { tools } = await session.client.listTools();
      // note_read says `# HINTS readOnly`; note_delete says `# HINTS destructive`.
      expect(tools.map((t) => t.name)).toEqual([
        'find_tools',
        'describe_tool',
        'add_numbers',
        'count_calls',
        'wait',
        'note_read',
      ]);
      const refused = await session.client.callTool({
        name: 'note_delete',
        arguments: { title: 'shopping' },
      });
      expect(refused.isError).toBe(true);
      expect(textOf(refused)).toMatch(
        /readOnly is on and the tool does not declare readOnlyHint: true/,
      );
      expect(textOf(refused)).toContain('readonly-policy.yaml');
    } finally {
      await session.close();
      rmSync(temp, { recursive: true, force: true });
    }
  });

  it('refuses to start with an invalid policy (exit 2, says where)', async () => {
    const server = spawnServe(['--policy', path.join(fixtures, 'bad-policy.yaml'), '--no-watch'], {
      cwd: path.join(fixtures, 'policy-project'),
    });
    try {
      expect(await server.exited).toBe(2);
      expect(server.stderr()).toMatch(/E_POLICY: The policy is invalid at deny/);
      expect(server.stdout()).toBe('');
    } finally {
      server.kill();
    }
  });
});

describe('mcp serve hot reload', () => {
  let temp: string;
  let session: StdioSession;
  let changes = 0;

  beforeAll(async () => {
    temp = mkdtempSync(path.join(os.tmpdir(), 'toolpack-reload-'));
    cpSync(scripts, temp, { recursive: true });
    session = await startStdioSession([], { cwd: temp });
    session.client.setNotificationHandler('notifications/tools/list_changed', () => {
      changes += 1;
    });
  });

  afterAll(async () => {
    await session?.close();
    rmSync(temp, { recursive: true, force: true });
  });

  const names = async () =>
    (await session.client.listTools({}, { cacheMode: 'bypass' })).tools.map((t) => t.name);
  const describeOf = async (name: string) =>
    (await session.client.listTools({}, { cacheMode: 'bypass' })).tools.find((t) => t.name === name)
      ?.description;

  it('adds a new tool file and sends list_changed', async () => {
    const before = changes;
    writeFileSync(
      path.join(temp, 'shout.sh'),
      '#!/usr/bin/env bash\n# DESCRIPTION "Shouts a word."\n# PARAM word AS string DESCRIPTION "The word."\ncat >/dev/null\necho LOUD\n',
    );
    // How soon it comes is a benchmark figure (bench/server.ts), not a test bound.
    await waitFor(() => changes > before, 'list_changed after adding shout.sh');
    expect(await names()).toContain('shout');
  });

  it('updates an edited tool and sends list_changed', async () => {
    const before = changes;
    writeFileSync(
      path.join(temp, 'shout.sh'),
      '#!/usr/bin/env bash\n# DESCRIPTION "Shouts a word, louder."\n# PARAM word AS string DESCRIPTION "The word."\ncat >/dev/null\necho LOUDER\n',
    );
    await waitFor(() => changes > before, 'list_changed after editing shout.sh');
    expect(await describeOf('shout')).toBe('Shouts a word, louder.');
  });

  it('keeps the last good definition when an edit breaks the tool, and logs why', async () => {
    const before = session.stderr().length;
    writeFileSync(
      path.join(temp, 'shout.sh'),
      '#!/usr/bin/env bash\n# PARAM word AS string\necho broken\n',
    );
    await waitFor(
      () => session.stderr().slice(before).includes('keeping the last good definition of shout'),
      'the kept-tool log line',
    );
    expect(session.stderr().slice(before)).toMatch(/shout\.sh(:\d+)?: error E_/);
    expect(await describeOf('shout')).toBe('Shouts a word, louder.');
  });

  it('removes a deleted tool and sends list_changed', async () => {
    const before = changes;
    unlinkSync(path.join(temp, 'shout.sh'));
    await waitFor(() => changes > before, 'list_changed after deleting shout.sh');
    expect(await names()).not.toContain('shout');
  });
});

describe('mcp serve lifecycle', () => {
  const orphans = path.join(fixtures, 'orphans');

  it('accepts id 0 and answers raw JSON-RPC on stdout, with nothing else there', async () => {
    const server = spawnServe(['--no-cache', '--no-watch'], {
      cwd: path.join(fixtures, 'policy-project'),
    });
    try {
      server.child.stdin?.write(
        `${JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } })}\n`,
      );
      await waitFor(() => server.stdout().includes('"id":0'), 'the answer to id 0');
      server.child.stdin?.write(
        `${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n`,
      );
      server.child.stdin?.write(`${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' })}\n`);
      await waitFor(() => server.stdout().includes('"id":1'), 'the answer to ping');
      server.child.stdin?.end();
      expect(await server.exited).toBe(0);
      const messages = server
        .stdout()
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as { id?: number; result?: unknown });
      expect(messages.map((m) => m.id)).toEqual([0, 1]);
      expect(messages[0]?.result).toMatchObject({ serverInfo: { name: 'toolpack' } });
    } finally {
      server.kill();
    }
  });

  for (const ending of ['stdin EOF', 'SIGTERM'] as const) {
    it(`exits cleanly on ${ending} and leaves no tool process behind`, async () => {
      const temp = mkdtempSync(path.join(os.tmpdir(), 'toolpack-orphans-'));
      const pidFile = path.join(temp, 'pids');
      const session = await startStdioSession(['--no-cache', '--no-watch'], { cwd: orphans });
      let pids: number[] = [];
      try {
        const pending = session.client
          .callTool({ name: 'sleep_long', arguments: { pid_file: pidFile } })
          .catch(() => undefined);
        pids = await waitFor(() => {
          try {
            const found = readFileSync(pidFile, 'utf8').trim().split(/\s+/).map(Number);
            return found.length === 2 && found.every((n) => n > 0) ? found : undefined;
          } catch {
            return undefined;
          }
        }, 'the tool to start');
        const serverPid = session.pid;
        // A contained tool writes the pids of its own PID namespace: look for the tool's
        // processes below the server as this process sees them instead.
        if (existsSync('/proc/self/stat')) pids = listDescendants(serverPid);
        expect(pids.length).toBeGreaterThanOrEqual(2);
        expect(pids.every(isAlive)).toBe(true);
        if (ending === 'SIGTERM') process.kill(serverPid, 'SIGTERM');
        else await session.transport.close();
        await waitFor(() => !isAlive(serverPid), 'the server to exit', 8_000);
        await waitFor(
          () => pids.every((pid) => !isAlive(pid)),
          'the tool processes to be gone',
          5_000,
        );
        void pending;
      } finally {
        for (const pid of pids) if (isAlive(pid)) process.kill(pid, 'SIGKILL');
        await session.close();
        rmSync(temp, { recursive: true, force: true });
      }
    });
  }

  it('also serves a 2026-07-28 client (per-request envelope) on the same command', async () => {
    const temp = mkdtempSync(path.join(os.tmpdir(), 'toolpack-modern-'));
    const session = await startStdioSession(['--module', jsTools, '--no-cache', '--no-watch'], {
      cwd: temp,
      client: { versionNegotiation: { mode: { pin: '2026-07-28' } } },
    });
    try {
      expect(session.client.getNegotiatedProtocolVersion()).toBe('2026-07-28');
      expect((await session.client.listTools()).tools).toHaveLength(5);
      const progress: number[] = [];
      const result = await session.client.callTool(
        { name: 'wait', arguments: { ms: 100 } },
        { onprogress: (p) => progress.push(p.progress) },
      );
      expect(textOf(result)).toBe('waited 100 ms');
      expect(progress.length).toBeGreaterThanOrEqual(3);
    } finally {
      await session.close();
      rmSync(temp, { recursive: true, force: true });
    }
  });

  it('refuses to start above maxTools with a clear message and exit 2', async () => {
    const server = spawnServe(
      [
        '--script-root',
        path.join(examples, 'scripts'),
        '--max-tools',
        '2',
        '--no-cache',
        '--no-watch',
      ],
      {
        cwd: os.tmpdir(),
      },
    );
    try {
      expect(await server.exited).toBe(2);
      expect(server.stderr()).toMatch(/Refusing to start: 3 tools are more than maxTools \(2\)/);
      expect(server.stderr()).toMatch(/hint: .*--max-tools 3/);
      expect(server.stdout()).toBe('');
    } finally {
      server.kill();
    }
  });

  it('serves the built-ins alone, and says so, with no source at all', async () => {
    const temp = mkdtempSync(path.join(os.tmpdir(), 'toolpack-empty-'));
    const session = await startStdioSession(['--no-watch'], { cwd: temp });
    try {
      expect((await session.client.listTools()).tools.map((t) => t.name)).toEqual([
        'find_tools',
        'describe_tool',
      ]);
      expect(session.stderr()).toMatch(/serving only the built-in tools/);
    } finally {
      await session.close();
      rmSync(temp, { recursive: true, force: true });
    }
  });
});

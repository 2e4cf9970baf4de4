import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnServe, startHttpServe, waitFor, type SpawnedServer } from '../testing/index.ts';

const fixtures = path.join(import.meta.dirname, 'fixtures');
const conformanceProject = path.join(fixtures, 'conformance');
const tasksProject = path.join(fixtures, 'tasks-project');

const MODERN = '2026-07-28';
const envelope = (version = MODERN) => ({
  'io.modelcontextprotocol/protocolVersion': version,
  'io.modelcontextprotocol/clientInfo': { name: 'protocol-2026-e2e', version: '1.0.0' },
  'io.modelcontextprotocol/clientCapabilities': {},
});

interface RpcAnswer {
  id?: string | number | null;
  result?: Record<string, unknown>;
  error?: { code: number; message: string; data?: Record<string, unknown> };
}

/** Posts one 2026-07-28 request with the standard headers the transport requires. */
async function postModern(
  url: URL,
  message: { id: number; method: string; params: Record<string, unknown> },
  headers: Record<string, string> = {},
): Promise<{ status: number; answer: RpcAnswer }> {
  const version = (message.params._meta as Record<string, string> | undefined)?.[
    'io.modelcontextprotocol/protocolVersion'
  ];
  const name = message.params.name ?? message.params.taskId;
  const response = await fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': version ?? MODERN,
      'mcp-method': message.method,
      ...(typeof name === 'string' ? { 'mcp-name': name } : {}),
      ...headers,
    },
    body: JSON.stringify({ jsonrpc: '2.0', ...message }),
  });
  const text = await response.text();
  // A streamed answer is one SSE event whose data is the JSON-RPC response.
  const json = response.headers.get('content-type')?.includes('text/event-stream')
    ? (text
        .split('\n')
        .filter((line) => line.startsWith('data: '))
        .map((line) => JSON.parse(line.slice(6)) as RpcAnswer)
        .find((event) => 'result' in event || 'error' in event) ?? {})
    : (JSON.parse(text) as RpcAnswer);
  return { status: response.status, answer: json };
}

/** An `mcp serve` over stdio driven line by line, answers collected by id. */
function startStdioLines(cwd: string, args = ['--no-cache', '--no-watch']) {
  const server = spawnServe(args, { cwd });
  const answers = () =>
    server
      .stdout()
      .split('\n')
      .filter((line) => line.trim() !== '')
      .map((line) => JSON.parse(line) as RpcAnswer);
  return {
    server,
    send(message: Record<string, unknown>) {
      server.child.stdin?.write(`${JSON.stringify({ jsonrpc: '2.0', ...message })}\n`);
    },
    answerTo(id: number): Promise<RpcAnswer> {
      return waitFor(
        () => answers().find((answer) => answer.id === id),
        `the answer to ${id}`,
        15_000,
      );
    },
  };
}

describe('2026-07-28 over stdio', () => {
  it('refuses a later request naming a version it does not speak (-32022), then goes on', async () => {
    const { server, send, answerTo } = startStdioLines(conformanceProject);
    try {
      send({ id: 1, method: 'tools/list', params: { _meta: envelope() } });
      expect((await answerTo(1)).result?.tools).toBeDefined();
      send({ id: 2, method: 'tools/list', params: { _meta: envelope('1999-01-01') } });
      expect((await answerTo(2)).error).toMatchObject({
        code: -32022,
        data: { supported: [MODERN], requested: '1999-01-01' },
      });
      // A 2025 revision is negotiated with initialize, never named per request.
      send({ id: 3, method: 'tools/list', params: { _meta: envelope('2025-11-25') } });
      expect((await answerTo(3)).error?.code).toBe(-32022);
      send({ id: 4, method: 'tools/list', params: { _meta: envelope() } });
      expect((await answerTo(4)).result?.tools).toBeDefined();
    } finally {
      server.kill();
    }
  }, 30_000);

  it('lets a 2026 client cache tools/list for seconds while watching, not for 0 ms', async () => {
    const { server, send, answerTo } = startStdioLines(conformanceProject, ['--no-cache']);
    try {
      send({ id: 1, method: 'tools/list', params: { _meta: envelope() } });
      expect((await answerTo(1)).result).toMatchObject({ ttlMs: 10_000 });
    } finally {
      server.kill();
    }
  }, 30_000);

  it('lists every served version in server/discover', async () => {
    const { server, send, answerTo } = startStdioLines(conformanceProject);
    try {
      send({ id: 1, method: 'server/discover', params: { _meta: envelope() } });
      const versions = (await answerTo(1)).result?.supportedVersions;
      expect(versions).toEqual(expect.arrayContaining([MODERN, '2025-11-25', '2025-06-18']));
      expect((versions as string[])[0]).toBe(MODERN);
    } finally {
      server.kill();
    }
  }, 30_000);

  it('runs a 2026 call that carries a 2025 task field plainly, and gates tasks/* with -32021', async () => {
    const temp = mkdtempSync(path.join(os.tmpdir(), 'toolpack-2026-task-'));
    const { server, send, answerTo } = startStdioLines(tasksProject);
    try {
      send({
        id: 1,
        method: 'tools/call',
        params: {
          name: 'slow_report',
          arguments: { seconds: 0, pid_file: path.join(temp, 'pid') },
          task: { ttl: 60_000 },
          _meta: envelope(),
        },
      });
      const called = await answerTo(1);
      expect(called.result?.task).toBeUndefined();
      expect(JSON.stringify(called.result?.content)).toContain('report ready after 0 s');
      send({ id: 2, method: 'tasks/get', params: { taskId: 'any', _meta: envelope() } });
      expect((await answerTo(2)).error).toMatchObject({
        code: -32021,
        data: { requiredCapabilities: { extensions: { 'io.modelcontextprotocol/tasks': {} } } },
      });
    } finally {
      server.kill();
      rmSync(temp, { recursive: true, force: true });
    }
  }, 30_000);
});

describe('2026-07-28 and 2025 sessions over HTTP', () => {
  let server: SpawnedServer & { url: URL };
  let tasksServer: SpawnedServer & { url: URL };
  let temp: string;

  beforeAll(async () => {
    temp = mkdtempSync(path.join(os.tmpdir(), 'toolpack-2026-http-'));
    [server, tasksServer] = await Promise.all([
      startHttpServe(['--no-cache', '--no-watch'], { cwd: conformanceProject }),
      startHttpServe(['--no-cache', '--no-watch'], { cwd: tasksProject }),
    ]);
  }, 30_000);

  afterAll(() => {
    server?.kill();
    tasksServer?.kill();
    rmSync(temp, { recursive: true, force: true });
  });

  const callHeaderTool = (args: Record<string, unknown>, headers: Record<string, string>) =>
    postModern(
      server.url,
      {
        id: 7,
        method: 'tools/call',
        params: { name: 'test_header_params', arguments: args, _meta: envelope() },
      },
      headers,
    );

  it('serves a call whose Mcp-Param headers match its arguments, plain or Base64', async () => {
    const plain = await callHeaderTool(
      { region: 'eu-west', priority: 3 },
      { 'mcp-param-region': 'eu-west', 'mcp-param-priority': '3.0' },
    );
    expect(plain.status).toBe(200);
    expect(JSON.stringify(plain.answer.result)).toContain('region eu-west, priority 3');
    const encoded = await callHeaderTool(
      { region: 'Zürich' },
      { 'mcp-param-region': `=?base64?${Buffer.from('Zürich').toString('base64')}?=` },
    );
    expect(encoded.status).toBe(200);
    expect(JSON.stringify(encoded.answer.result)).toContain('region Zürich');
  });

  it('refuses with 400 and -32020 a missing, different or badly encoded Mcp-Param header', async () => {
    const cases: Record<string, string>[] = [
      {},
      { 'mcp-param-region': 'us-east' },
      { 'mcp-param-region': '=?base64?ZXUtd2VzdA?=' },
      { 'mcp-param-region': 'eu-west', 'mcp-param-priority': '4' },
    ];
    for (const headers of cases) {
      const refused = await callHeaderTool({ region: 'eu-west', priority: 3 }, headers);
      expect(refused.status, JSON.stringify(headers)).toBe(400);
      expect(refused.answer).toMatchObject({ id: 7, error: { code: -32020 } });
    }
    // Without the declaration nothing ties a header to the body: the same header is ignored.
    const undeclared = await postModern(
      server.url,
      {
        id: 8,
        method: 'tools/call',
        params: { name: 'test_simple_text', arguments: {}, _meta: envelope() },
      },
      { 'mcp-param-region': 'us-east' },
    );
    expect(undeclared.status).toBe(200);
  });

  it('lets a 2026 client cache tools/list for an hour when the sources are not watched', async () => {
    const listed = await postModern(server.url, {
      id: 9,
      method: 'tools/list',
      params: { _meta: envelope() },
    });
    expect(listed.answer.result).toMatchObject({ ttlMs: 3_600_000 });
  });

  it('expects no Mcp-Param header the listing does not declare (the portable dialect leaves x-mcp-header out)', async () => {
    const portable = await startHttpServe(
      ['--no-cache', '--no-watch', '--schema-dialect', 'portable'],
      {
        cwd: conformanceProject,
      },
    );
    try {
      const listed = await postModern(portable.url, {
        id: 1,
        method: 'tools/list',
        params: { _meta: envelope() },
      });
      const tools = listed.answer.result?.tools as { name: string; inputSchema: unknown }[];
      const schema = tools.find((tool) => tool.name === 'test_header_params')?.inputSchema;
      expect(JSON.stringify(schema)).not.toContain('x-mcp-header');
      const called = await postModern(portable.url, {
        id: 2,
        method: 'tools/call',
        params: { name: 'test_header_params', arguments: { region: 'eu-west' }, _meta: envelope() },
      });
      expect(called.status).toBe(200);
      expect(JSON.stringify(called.answer.result)).toContain('region eu-west');
    } finally {
      portable.kill();
    }
  }, 30_000);

  it('refuses a request naming a version it does not speak (-32022) and lists every version', async () => {
    const bogus = await postModern(server.url, {
      id: 1,
      method: 'tools/list',
      params: { _meta: envelope('1999-01-01') },
    });
    expect(bogus.status).toBe(400);
    expect(bogus.answer.error?.code).toBe(-32022);
    const discovered = await postModern(server.url, {
      id: 2,
      method: 'server/discover',
      params: { _meta: envelope() },
    });
    expect(discovered.answer.result?.supportedVersions).toEqual(
      expect.arrayContaining([MODERN, '2025-11-25', '2025-06-18']),
    );
  });

  it('runs a 2026 call that carries a 2025 task field plainly, and gates tasks/* with -32021', async () => {
    const called = await postModern(tasksServer.url, {
      id: 3,
      method: 'tools/call',
      params: {
        name: 'slow_report',
        arguments: { seconds: 0, pid_file: path.join(temp, 'pid') },
        task: { ttl: 60_000 },
        _meta: envelope(),
      },
    });
    expect(called.answer.result?.task).toBeUndefined();
    expect(JSON.stringify(called.answer.result?.content)).toContain('report ready after 0 s');
    const got = await postModern(tasksServer.url, {
      id: 4,
      method: 'tasks/get',
      params: { taskId: 'any', _meta: envelope() },
    });
    expect(got.answer.error?.code).toBe(-32021);
  });

  it('refuses a JSON-RPC batch on a 2025 session with 400, as documented', async () => {
    const headers = {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
    };
    const init = await fetch(server.url, {
      method: 'POST',
      headers,
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: {
          protocolVersion: '2025-06-18',
          capabilities: {},
          clientInfo: { name: 'batch', version: '1' },
        },
      }),
    });
    const session = init.headers.get('mcp-session-id') ?? '';
    await init.text();
    const batch = await fetch(server.url, {
      method: 'POST',
      headers: { ...headers, 'mcp-session-id': session, 'mcp-protocol-version': '2025-06-18' },
      body: JSON.stringify([
        { jsonrpc: '2.0', id: 2, method: 'tools/list' },
        { jsonrpc: '2.0', id: 3, method: 'ping' },
      ]),
    });
    expect(batch.status).toBe(400);
    expect(((await batch.json()) as RpcAnswer).error?.code).toBe(-32600);
  });
});

describe('2026-07-28 list caching while watching', () => {
  it('gives tools/list a ttlMs of 10 s and ends it with list_changed on the subscription when a source changes', async () => {
    const project = mkdtempSync(path.join(os.tmpdir(), 'toolpack-2026-watch-'));
    mkdirSync(path.join(project, 'scripts'));
    writeFileSync(path.join(project, 'toolpack.yaml'), 'sources:\n  - scripts: scripts\n');
    const script = (name: string) =>
      writeFileSync(
        path.join(project, 'scripts', `${name}.sh`),
        `#!/usr/bin/env bash\n# DESCRIPTION "Says ${name}."\necho ${name}\n`,
      );
    script('first_tool');
    const server = await startHttpServe(['--no-cache'], { cwd: project });
    const listening = new AbortController();
    try {
      const listed = await postModern(server.url, {
        id: 1,
        method: 'tools/list',
        params: { _meta: envelope() },
      });
      expect(listed.answer.result).toMatchObject({ ttlMs: 10_000 });
      const stream = await fetch(server.url, {
        method: 'POST',
        signal: listening.signal,
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-protocol-version': MODERN,
          'mcp-method': 'subscriptions/listen',
        },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 2,
          method: 'subscriptions/listen',
          params: { notifications: { toolsListChanged: true }, _meta: envelope() },
        }),
      });
      let events = '';
      const reading = (async () => {
        const decoder = new TextDecoder();
        for await (const chunk of stream.body as AsyncIterable<Uint8Array>)
          events += decoder.decode(chunk, { stream: true });
      })().catch(() => undefined);
      await waitFor(() => events.includes('subscriptions/acknowledged'), 'the subscription');
      script('second_tool');
      await waitFor(
        () => events.includes('notifications/tools/list_changed'),
        'tools/list_changed after the new script',
        15_000,
      );
      listening.abort();
      await reading;
    } finally {
      listening.abort();
      server.kill();
      rmSync(project, { recursive: true, force: true });
    }
  }, 40_000);
});

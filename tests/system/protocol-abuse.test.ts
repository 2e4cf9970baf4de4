import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  INITIALIZE_PARAMS,
  fixtures,
  listDescendants,
  listProcessesWith,
  openHttpSession,
  postRaw,
  settle,
  sleep,
  spawnRawStdio,
  startHttpServe,
  startRawStdio,
  type HttpSession,
  type JsonRpcMessage,
  type RawStdioServer,
  type SpawnedServer,
} from './system-helpers.ts';

const TIMEOUT_MS = 2_000;
const serveArgs = [
  '--script-root',
  path.join(fixtures, 'faults'),
  '--module',
  path.join(fixtures, 'load', 'worker-tools.ts'),
  '--no-cache',
  '--no-watch',
  '--timeout',
  String(TIMEOUT_MS),
];
const TEN_MB = 'x'.repeat(10 * 1024 * 1024);
const DEEP = `${'['.repeat(10_000)}1${']'.repeat(10_000)}`;
const NESTED_120 = `${'['.repeat(120)}1${']'.repeat(120)}`;
const callLine = (id: number, name: string, argsJson: string): string =>
  `{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":{"name":"${name}","arguments":${argsJson}}}`;
const invalidUtf8Call = (id: number): Buffer =>
  Buffer.concat([
    Buffer.from(
      `{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":{"name":"ok","arguments":{"note":"`,
    ),
    Buffer.from([0xff, 0xfe, 0xc3]),
    Buffer.from('"}}}'),
  ]);

/** The lines the SDK used to drop unanswered, with the [id, code] each must get. */
const rpcLine = (extra: string) => `{"jsonrpc":"2.0",${extra}}`;
const droppedLineCases: [line: string, id: unknown, code: number][] = [
  [rpcLine('"id":1.5,"method":"ping"'), null, -32600],
  [rpcLine('"id":1e300,"method":"ping"'), null, -32600],
  [rpcLine('"id":9007199254740993,"method":"ping"'), null, -32600],
  [rpcLine('"id":null,"method":"ping"'), null, -32600],
  [rpcLine('"id":"arr","method":"ping","params":[1]'), 'arr', -32602],
  [rpcLine('"id":"meta","method":"ping","params":{"_meta":"x"}'), 'meta', -32602],
  [
    rpcLine(
      '"id":"pt-object","method":"tools/call","params":{"name":"ok","arguments":{},"_meta":{"progressToken":{}}}',
    ),
    'pt-object',
    -32602,
  ],
  [
    rpcLine(
      '"id":"pt-float","method":"tools/call","params":{"name":"ok","arguments":{},"_meta":{"progressToken":1.5}}',
    ),
    'pt-float',
    -32602,
  ],
  [`\uFEFF${rpcLine('"id":"bom","method":"ping"')}`, null, -32700],
  [rpcLine('"id":"extra","method":"ping","surplus":1'), 'extra', -32600],
];

let temp: string;
beforeAll(() => {
  temp = mkdtempSync(path.join(os.tmpdir(), 'toolpack-system-abuse-'));
});
afterAll(() => {
  rmSync(temp, { recursive: true, force: true });
});

describe('protocol abuse over stdio', () => {
  let server: RawStdioServer;
  let baseline: number;

  beforeAll(async () => {
    server = await startRawStdio(serveArgs, { cwd: temp });
    // Start the module worker so it is part of the baseline.
    await server.request('warm', 'tools/call', { name: 'echo_worker', arguments: { id: 1 } });
    baseline = listDescendants(server.pid).length;
  });

  afterAll(() => {
    server?.kill();
  });

  it('answers an unknown method with -32601', async () => {
    const answer = await server.request(1, 'no/such/method', {});
    expect(answer.error?.code).toBe(-32601);
  });

  it('answers id 0 with id 0, and each of two requests sharing an id once', async () => {
    expect((await server.request(0, 'ping')).result).toEqual({});
    server.send({ jsonrpc: '2.0', id: 'dup', method: 'ping' });
    server.send({ jsonrpc: '2.0', id: 'dup', method: 'ping' });
    await settle(() => server.answersFor('dup').length >= 2, 5_000);
    await sleep(200);
    expect(server.answersFor('dup')).toHaveLength(2);
  });

  it('answers invalid tools/call params with -32602 and an unknown tool with -32602', async () => {
    expect((await server.request(2, 'tools/call', { arguments: {} })).error?.code).toBe(-32602);
    expect(
      (await server.request(3, 'tools/call', { name: 'nope', arguments: {} })).error?.code,
    ).toBe(-32602);
  });

  it('answers arguments failing the schema with an isError result', async () => {
    const answer = await server.request(4, 'tools/call', { name: 'ok', arguments: { note: 5 } });
    expect(answer.result?.isError).toBe(true);
  });

  it('passes a 10 MB argument object to a process tool', async () => {
    const answer = await server.request(
      5,
      'tools/call',
      { name: 'ok', arguments: { note: TEN_MB } },
      20_000,
    );
    expect(answer.result?.structuredContent).toEqual({ ok: true });
  });

  it('answers 10,000 levels of nesting with one -32602 error, before the timeout', async () => {
    const started = Date.now();
    server.write(`${callLine(60, 'accept_any', `{"a":${DEEP}}`)}\n`);
    server.write(`${callLine(61, 'ok', `{"note":${DEEP}}`)}\n`);
    expect((await server.waitForAnswer(60)).error?.code).toBe(-32602);
    expect((await server.waitForAnswer(61)).error?.code).toBe(-32602);
    expect(server.answersFor(60)).toHaveLength(1);
    expect(Date.now() - started).toBeLessThan(TIMEOUT_MS);
    // Deep but within the limit still reaches the tool.
    const next = await server.request(62, 'tools/call', {
      name: 'accept_any',
      arguments: { a: JSON.parse(NESTED_120) as unknown },
    });
    expect(next.result?.structuredContent).toEqual({ depth: 121 });
  });

  it('survives invalid UTF-8 bytes inside a string (decoded as U+FFFD) with one answer', async () => {
    server.write(Buffer.concat([invalidUtf8Call(6), Buffer.from('\n')]));
    const answer = await server.waitForAnswer(6);
    expect(answer.result?.structuredContent).toEqual({ ok: true });
    expect(server.answersFor(6)).toHaveLength(1);
  });

  it('answers a malformed JSON line, a bare value and invalid UTF-8 with one JSON-RPC error each', async () => {
    const before = server.messages.length;
    server.write('{"jsonrpc": "2.0", "id": 7, "method": \n');
    server.write('42\n');
    server.write(
      Buffer.concat([
        Buffer.from('{"jsonrpc":"2.0",'),
        Buffer.from([0xff, 0xfe]),
        Buffer.from('}\n'),
      ]),
    );
    server.send({ jsonrpc: '1.0', id: 'old', method: 'ping' });
    server.send({ jsonrpc: '2.0', id: 'strparams', method: 'tools/call', params: 'x' });
    expect((await server.request(8, 'ping')).result).toEqual({});
    const errors = server.messages.slice(before).filter((m) => m.error !== undefined);
    expect(errors.map((m) => [m.id, m.error?.code])).toEqual([
      [null, -32700],
      [null, -32600],
      [null, -32700],
      ['old', -32600],
      ['strparams', -32602],
    ]);
    expect(server.junk).toEqual([]);
  });

  it('answers each line the SDK used to drop in silence with exactly one JSON-RPC error', async () => {
    for (const [index, [line, id, code]] of droppedLineCases.entries()) {
      const before = server.messages.length;
      server.write(`${line}\n`);
      // Lines are answered in order: once the ping is answered, the line before it was too.
      expect((await server.request(`after-${index}`, 'ping')).result).toEqual({});
      const answers = server.messages
        .slice(before)
        .filter((message) => message.id !== `after-${index}`);
      expect(
        answers.map((m) => [m.id, m.error?.code]),
        line,
      ).toEqual([[id, code]]);
    }
    expect(server.junk).toEqual([]);
  });

  it('answers logging/setLevel with an unknown level with -32602, a known one with {}', async () => {
    const bad = await server.request('level-bad', 'logging/setLevel', { level: 'loud' });
    expect(bad.error?.code).toBe(-32602);
    expect(bad.error?.message).toContain('debug, info');
    expect(
      (await server.request('level-ok', 'logging/setLevel', { level: 'info' })).result,
    ).toEqual({});
  });

  it('refuses tools/call before initialize, as HTTP does, and serves it after', async () => {
    const other = spawnRawStdio(serveArgs, { cwd: temp });
    try {
      expect((await other.request('early-ping', 'ping', undefined, 20_000)).result).toEqual({});
      const early = await other.request('early', 'tools/call', { name: 'ok', arguments: {} });
      expect(early.error?.code).toBe(-32000);
      expect(early.error?.message).toMatch(/initialize first/);
      expect(early.result).toBeUndefined();
      const list = await other.request('early-list', 'tools/list');
      expect(list.error?.code).toBe(-32000);
      expect((await other.request('init', 'initialize', INITIALIZE_PARAMS)).result).toBeDefined();
      other.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
      const after = await other.request('after', 'tools/call', { name: 'ok', arguments: {} });
      expect(after.result?.structuredContent).toEqual({ ok: true });
      expect(other.answersFor('early')).toHaveLength(1);
    } finally {
      other.kill();
    }
  });

  it('answers floods of unknown argument keys with bounded reports and bounded audit lines', async () => {
    const audit = path.join(temp, 'unknown-keys-audit.jsonl');
    const other = await startRawStdio([...serveArgs, '--audit', audit], { cwd: temp });
    const keys = (count: number) =>
      `{${Array.from({ length: count }, (_, i) => `"unknown_key_${i}":1`).join(',')}}`;
    const textOf = (answer: JsonRpcMessage) =>
      (answer.result?.content as { text: string }[] | undefined)?.[0]?.text ?? '';
    try {
      // 200,000 keys: refused before validation, whatever the tool's schema.
      const flood = callLine(1, 'ok', keys(200_000));
      expect(flood.length).toBeGreaterThan(4_000_000);
      other.write(`${flood}\n`);
      const refused = await other.waitForAnswer(1, 30_000);
      expect(refused.result?.isError).toBe(true);
      expect(textOf(refused)).toMatch(/more than 1000 argument keys/);
      expect(JSON.stringify(refused).length).toBeLessThan(5_000);
      // Under the key cap: the first 20 problems and a count of the rest.
      other.write(`${callLine(2, 'ok', keys(900))}\n`);
      const reported = await other.waitForAnswer(2, 30_000);
      expect(reported.result?.isError).toBe(true);
      expect(textOf(reported)).toMatch(/\/unknown_key_0 is not an accepted argument/);
      expect(textOf(reported)).toMatch(/and 880 more problems/);
      expect(JSON.stringify(reported).length).toBeLessThan(5_000);
      // A tool that accepts any key gets no more than the cap either.
      other.write(`${callLine(3, 'accept_any', keys(5_000))}\n`);
      expect(textOf(await other.waitForAnswer(3, 30_000))).toMatch(/more than 1000 argument keys/);
      expect((await other.request(4, 'ping')).result).toEqual({});
      // The end of stdin stops the server, which closes (flushes) the audit log.
      other.child.stdin.end();
      await Promise.race([other.exited, sleep(10_000)]);
    } finally {
      other.kill();
    }
    const lines = readFileSync(audit, 'utf8').trim().split('\n');
    const entries = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
    // A call refused for its keys was refused while reading: the server only ever read its
    // first 1,001 keys, and the audit line names 50 of them.
    expect(entries.map((entry) => [entry.tool, entry.moreArgumentKeys])).toEqual([
      ['ok', 1_001 - 50],
      ['ok', 900 - 50],
      ['accept_any', 1_001 - 50],
    ]);
    for (const line of lines) expect(line.length).toBeLessThan(8_000);
  });

  it('never wrote anything but JSON-RPC to stdout and leaked no process', async () => {
    expect(server.junk).toEqual([]);
    expect(await settle(() => listDescendants(server.pid).length <= baseline, 3_000)).toBe(true);
  });

  it('answers a line larger than its 16 MiB limit with -32600 and keeps serving', async () => {
    const other = await startRawStdio(serveArgs, { cwd: temp });
    try {
      const before = other.messages.length;
      other.write(`${callLine(1, 'ok', JSON.stringify({ note: 'x'.repeat(17 * 1024 * 1024) }))}\n`);
      expect((await other.request(2, 'ping', undefined, 20_000)).result).toEqual({});
      const errors = other.messages.slice(before).filter((m) => m.error !== undefined);
      expect(errors.map((m) => [m.id, m.error?.code])).toEqual([[null, -32600]]);
      expect(other.answersFor(1)).toEqual([]);
    } finally {
      other.kill();
    }
  });

  it('stops the slow call and exits when the client closes stdin mid-call', async () => {
    const other = spawnRawStdio(serveArgs, { cwd: temp });
    try {
      await other.request('init', 'initialize', {
        protocolVersion: '2025-11-25',
        capabilities: {},
        clientInfo: { name: 'x', version: '1' },
      });
      other.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
      other.send({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'hang', arguments: {} },
      });
      await settle(() => listProcessesWith('4242.1').length > 0, 5_000);
      const hangPids = listProcessesWith('4242.1');
      expect(hangPids.length).toBeGreaterThan(0);
      other.child.stdin.end();
      const code = await Promise.race([
        other.exited,
        sleep(TIMEOUT_MS + 3_000).then(() => 'still running'),
      ]);
      expect(code).not.toBe('still running');
      expect(
        await settle(
          () => hangPids.every((pid) => !listProcessesWith('4242.1').includes(pid)),
          2_000,
        ),
      ).toBe(true);
    } finally {
      other.kill();
    }
  });
});

describe('protocol abuse over HTTP', () => {
  let server: SpawnedServer & { url: URL };
  let session: HttpSession;
  let baseline: number;

  beforeAll(async () => {
    server = await startHttpServe(serveArgs, { cwd: temp });
    session = await openHttpSession(server.url);
    await session.call('warm', 'tools/call', { name: 'echo_worker', arguments: { id: 1 } });
    baseline = listDescendants(server.child.pid ?? -1).length;
  });

  afterAll(() => {
    server?.kill();
  });

  const ping = async (): Promise<void> => {
    expect((await session.call(`ping-${Date.now()}`, 'ping')).result).toEqual({});
  };

  it('answers malformed JSON with one -32700 (id null)', async () => {
    const answer = await session.post('{"jsonrpc": "2.0", "id": 1, "method": ');
    expect(answer.status).toBe(400);
    expect(answer.messages).toEqual([
      expect.objectContaining({ id: null, error: expect.objectContaining({ code: -32700 }) }),
    ]);
    await ping();
  });

  it('answers a wrong JSON-RPC version with one -32600', async () => {
    const answer = await session.post({ jsonrpc: '1.0', id: 2, method: 'ping' });
    expect(answer.messages).toHaveLength(1);
    expect(answer.messages[0]?.error?.code).toBe(-32600);
    await ping();
  });

  it('answers the messages stdio used to drop with the same errors as stdio, status 400', async () => {
    for (const [line, id, code] of droppedLineCases) {
      const answer = await session.post(line);
      expect(answer.status, line).toBe(400);
      expect(
        answer.messages.map((m) => [m.id, m.error?.code]),
        line,
      ).toEqual([[id, code]]);
    }
    await ping();
  });

  it('answers an unknown method with -32601 and id 0 with id 0', async () => {
    expect((await session.call(3, 'no/such/method', {})).error?.code).toBe(-32601);
    expect((await session.call(0, 'ping')).id).toBe(0);
  });

  it('answers invalid params and an unknown tool with -32602', async () => {
    expect((await session.call(4, 'tools/call', { arguments: {} })).error?.code).toBe(-32602);
    expect((await session.call(5, 'tools/call', { name: 'nope', arguments: {} })).error?.code).toBe(
      -32602,
    );
  });

  it('refuses a 10 MB body with one error answer (413) and stays up', async () => {
    const answer = await session.post(callLine(6, 'ok', JSON.stringify({ note: TEN_MB })));
    expect(answer.status).toBe(413);
    expect(answer.messages).toHaveLength(1);
    expect(answer.messages[0]?.error?.code).toBe(-32600);
    await ping();
  });

  it('answers 10,000 levels of nesting with exactly one error and stays up', async () => {
    const answer = await session.post(callLine(7, 'accept_any', `{"a":${DEEP}}`));
    expect(answer.messages).toHaveLength(1);
    expect(answer.status).toBe(400);
    expect(answer.messages[0]).toMatchObject({ id: 7, error: { code: -32602 } });
    const within = await session.call(70, 'tools/call', {
      name: 'accept_any',
      arguments: { a: JSON.parse(NESTED_120) as unknown },
    });
    expect(within.result?.structuredContent).toEqual({ depth: 121 });
    await ping();
  });

  it('survives invalid UTF-8 bytes inside a string with one answer', async () => {
    const answer = await postRaw(server.url, invalidUtf8Call(8), { sessionId: session.sessionId });
    const answers = answer.messages.filter((message) => message.id === 8);
    expect(answers).toHaveLength(1);
    expect(answers[0]?.result?.structuredContent).toEqual({ ok: true });
  });

  it('stops the tool when the client aborts the request mid-call', async () => {
    const controller = new AbortController();
    const pending = session.post(callLine(9, 'hang', '{}'), { signal: controller.signal }).then(
      () => 'answered',
      () => 'aborted',
    );
    await settle(() => listProcessesWith('4242.1').length > 0, 5_000);
    const hangPids = listProcessesWith('4242.1');
    expect(hangPids.length).toBeGreaterThan(0);
    controller.abort();
    expect(await pending).toBe('aborted');
    await ping();
    // Stopped at the latest by its timeout; either way nothing may outlive it.
    expect(
      await settle(
        () => hangPids.every((pid) => !listProcessesWith('4242.1').includes(pid)),
        TIMEOUT_MS + 1_000,
      ),
    ).toBe(true);
    await ping();
  });

  it('leaked no process', async () => {
    expect(
      await settle(() => listDescendants(server.child.pid ?? -1).length <= baseline, 3_000),
    ).toBe(true);
  });
});

const initializeBody = JSON.stringify({
  jsonrpc: '2.0',
  id: 0,
  method: 'initialize',
  params: INITIALIZE_PARAMS,
});
/** Running `hang` tools started by `server` (not orphans of an earlier server). */
const hangsOf = (server: SpawnedServer): number[] => {
  const descendants = new Set(listDescendants(server.child.pid ?? -1));
  return listProcessesWith('4242.1').filter((pid) => descendants.has(pid));
};
const pingStatus = async (url: URL, sessionId: string): Promise<number> =>
  (await postRaw(url, JSON.stringify({ jsonrpc: '2.0', id: 'p', method: 'ping' }), { sessionId }))
    .status;

describe('HTTP sessions under abuse', () => {
  let server: SpawnedServer & { url: URL };

  beforeAll(async () => {
    server = await startHttpServe(
      [...serveArgs.filter((arg) => arg !== String(TIMEOUT_MS)), '120000', '--max-sessions', '4'],
      { cwd: temp },
    );
  });

  afterAll(() => {
    server?.kill();
  });

  it('a full table of abandoned sessions evicts the idlest instead of refusing new clients', async () => {
    const abandoned: HttpSession[] = [];
    for (let i = 0; i < 4; i++) abandoned.push(await openHttpSession(server.url));
    for (const session of abandoned)
      expect(await pingStatus(server.url, session.sessionId)).toBe(200);
    // The table is full of sessions nobody will DELETE: a new client still gets in.
    const fresh = await postRaw(server.url, initializeBody);
    expect(fresh.status).toBe(200);
    expect(await pingStatus(server.url, abandoned[0]!.sessionId)).toBe(404);
    for (const session of abandoned.slice(1))
      expect(await pingStatus(server.url, session.sessionId)).toBe(200);
  });

  it('never evicts a session with a call in flight', async () => {
    const busy = await openHttpSession(server.url);
    const controller = new AbortController();
    const call = busy
      .post(callLine(1, 'hang', '{}'), { signal: controller.signal })
      .catch(() => 'aborted');
    await settle(() => hangsOf(server).length > 0, 5_000);
    expect(hangsOf(server).length).toBeGreaterThan(0);
    // busy is now the oldest session; four more initializes each evict an idle one.
    for (let i = 0; i < 4; i++)
      expect((await postRaw(server.url, initializeBody)).status).toBe(200);
    expect(await pingStatus(server.url, busy.sessionId)).toBe(200);
    controller.abort();
    await call;
    expect(await settle(() => hangsOf(server).length === 0, 10_000)).toBe(true);
  }, 30_000);
});

describe('HTTP idle sessions', () => {
  it('expires a session idle longer than --session-idle-timeout', async () => {
    const server = await startHttpServe([...serveArgs, '--session-idle-timeout', '500'], {
      cwd: temp,
    });
    try {
      const session = await openHttpSession(server.url);
      expect(await pingStatus(server.url, session.sessionId)).toBe(200);
      let status = 200;
      for (let i = 0; i < 10 && status === 200; i++) {
        await sleep(1_000);
        status = await pingStatus(server.url, session.sessionId);
      }
      expect(status).toBe(404);
    } finally {
      server.kill();
    }
  }, 60_000);
});

describe('HTTP disconnects and cancellation', () => {
  let server: SpawnedServer & { url: URL };
  let session: HttpSession;

  beforeAll(async () => {
    // A long tool timeout: only the disconnect can free the slots within the test.
    server = await startHttpServe(
      [...serveArgs.filter((arg) => arg !== String(TIMEOUT_MS)), '120000'],
      { cwd: temp },
    );
    session = await openHttpSession(server.url);
  });

  afterAll(() => {
    server?.kill();
  });

  it('cancels the calls of clients that disconnect, freeing their process slots', async () => {
    const controllers = Array.from({ length: 8 }, () => new AbortController());
    const calls = controllers.map((controller, i) =>
      session
        .post(callLine(100 + i, 'hang', '{}'), { signal: controller.signal })
        .catch(() => 'aborted'),
    );
    // Every process slot (4 at least) holds a running hang tool.
    await settle(() => hangsOf(server).length >= 4, 10_000);
    const running = hangsOf(server);
    expect(running.length).toBeGreaterThanOrEqual(4);
    for (const controller of controllers) controller.abort();
    await Promise.all(calls);
    expect(
      await settle(
        () => running.every((pid) => !listProcessesWith('4242.1').includes(pid)),
        20_000,
      ),
    ).toBe(true);
    // Queued calls were cancelled too: nothing starts in their place.
    expect(await settle(() => hangsOf(server).length === 0, 5_000)).toBe(true);
    const next = await session.call(200, 'tools/call', { name: 'ok', arguments: {} }, 20_000);
    expect(next.result?.structuredContent).toEqual({ ok: true });
  }, 60_000);

  it('ends the response stream of a call cancelled with notifications/cancelled', async () => {
    const pending = session.post(callLine(300, 'hang', '{}'), { timeoutMs: 20_000 });
    await settle(() => hangsOf(server).length > 0, 10_000);
    const hangPids = hangsOf(server);
    expect(hangPids.length).toBeGreaterThan(0);
    const cancel = await session.post({
      jsonrpc: '2.0',
      method: 'notifications/cancelled',
      params: { requestId: 300, reason: 'test' },
    });
    expect(cancel.status).toBe(202);
    const answer = await pending;
    expect(answer.status).toBe(200);
    expect(answer.messages.filter((m) => m.id === 300)).toEqual([]);
    expect(
      await settle(
        () => hangPids.every((pid) => !listProcessesWith('4242.1').includes(pid)),
        10_000,
      ),
    ).toBe(true);
  }, 60_000);
});

describe('HTTP request bodies under abuse', () => {
  let server: SpawnedServer & { url: URL };

  beforeAll(async () => {
    server = await startHttpServe(
      [...serveArgs, '--max-buffered-body', String(8 * 1024 * 1024), '--body-timeout', '5000'],
      { cwd: temp },
    );
  });

  afterAll(() => {
    server?.kill();
  });

  /** A POST that announces 4 MiB, sends 3 MiB and stalls; resolves with the status, if any. */
  const stalledUpload = () => {
    let settleStatus!: (status: number) => void;
    const status = new Promise<number>((resolve) => (settleStatus = resolve));
    const req = request(
      {
        host: server.url.hostname,
        port: server.url.port,
        path: server.url.pathname,
        method: 'POST',
        agent: false,
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'content-length': String(4 * 1024 * 1024),
        },
      },
      (res) => {
        res.resume();
        settleStatus(res.statusCode ?? 0);
      },
    );
    req.on('error', () => settleStatus(-1));
    let written = false;
    req.write(Buffer.alloc(3 * 1024 * 1024, 0x20), () => (written = true));
    return { status, req, written: () => written };
  };

  it('answers 503 once stalled uploads fill the buffer cap, and 408 to the stalled ones', async () => {
    const first = stalledUpload();
    const second = stalledUpload();
    await settle(() => first.written() && second.written(), 10_000);
    const third = stalledUpload();
    try {
      const statuses = await Promise.all(
        [first, second, third].map(({ status }) =>
          Promise.race([status, sleep(15_000).then(() => 'no answer')]),
        ),
      );
      expect(statuses.sort()).toEqual([408, 408, 503]);
    } finally {
      for (const upload of [first, second, third]) upload.req.destroy();
    }
    const session = await openHttpSession(server.url);
    expect((await session.call(1, 'ping')).result).toEqual({});
  }, 60_000);
});

describe('HTTP Origin', () => {
  it('accepts pages from its own address and allowed origins, refuses other localhost ports', async () => {
    const server = await startHttpServe(
      [...serveArgs, '--allowed-origin', 'http://localhost:5173'],
      { cwd: temp },
    );
    try {
      const withOrigin = (origin: string) =>
        postRaw(server.url, initializeBody, { headers: { origin } });
      const otherPort = Number(server.url.port) === 1 ? 2 : 1;
      const refused = await withOrigin(`http://localhost:${otherPort}`);
      expect(refused.status).toBe(403);
      expect(refused.messages[0]?.error?.message).toMatch(/--allowed-origin/);
      expect((await withOrigin(`http://127.0.0.1:${otherPort}`)).status).toBe(403);
      expect((await withOrigin(`http://localhost:${server.url.port}`)).status).toBe(200);
      expect((await withOrigin(`http://127.0.0.1:${server.url.port}`)).status).toBe(200);
      expect((await withOrigin('http://localhost:5173')).status).toBe(200);
      expect((await withOrigin('http://evil.example')).status).toBe(403);
      expect((await postRaw(server.url, initializeBody)).status).toBe(200);
    } finally {
      server.kill();
    }
  });
});

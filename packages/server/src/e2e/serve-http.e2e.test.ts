import { request } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { examples, spawnServe, startHttpServe, type SpawnedServer } from '../testing/index.ts';

const TOKEN = 'e2e-secret-token';

/** A raw request, so tests can send the Host and Origin headers fetch will not let them set. */
function rawRequest(
  url: URL,
  options: { method?: string; headers?: Record<string, string>; body?: string },
): Promise<{
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: url.hostname,
        port: url.port,
        path: url.pathname,
        method: options.method ?? 'GET',
        headers: options.headers,
      },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (body += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
      },
    );
    req.on('error', reject);
    req.setTimeout(5_000, () => req.destroy(new Error('request timed out')));
    req.end(options.body);
  });
}

const initializeBody = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: {
    protocolVersion: '2025-11-25',
    capabilities: {},
    clientInfo: { name: 'raw', version: '1' },
  },
});

describe('mcp serve --http', () => {
  let temp: string;
  let server: SpawnedServer & { url: URL };
  let client: Client;

  beforeAll(async () => {
    temp = mkdtempSync(path.join(os.tmpdir(), 'toolpack-http-'));
    server = await startHttpServe(
      [
        '--module',
        path.join(examples, 'js-tools', 'tools.ts'),
        '--no-cache',
        '--no-watch',
        '--token',
        TOKEN,
      ],
      { cwd: temp },
    );
    client = new Client({ name: 'toolpack-http-e2e', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(server.url, {
        requestInit: { headers: { Authorization: `Bearer ${TOKEN}` } },
      }),
    );
  });

  afterAll(async () => {
    await client?.close().catch(() => undefined);
    server?.kill();
    rmSync(temp, { recursive: true, force: true });
  });

  it('prints the bound address on stderr, bound to 127.0.0.1', () => {
    expect(server.url.hostname).toBe('127.0.0.1');
    expect(server.url.pathname).toBe('/mcp');
    expect(Number(server.url.port)).toBeGreaterThan(0);
  });

  it('initializes, lists and calls tools over Streamable HTTP with the SDK client', async () => {
    expect(client.getServerCapabilities()).toMatchObject({ tools: { listChanged: true } });
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual([
      'find_tools',
      'describe_tool',
      'add_numbers',
      'count_calls',
      'wait',
    ]);
    const result = await client.callTool({ name: 'add_numbers', arguments: { numbers: [20, 22] } });
    expect(result.structuredContent).toEqual({ sum: 42 });
    const progress: number[] = [];
    await client.callTool(
      { name: 'wait', arguments: { ms: 200 } },
      { onprogress: (p) => progress.push(p.progress) },
    );
    expect(progress.length).toBeGreaterThanOrEqual(3);
  });

  it('also serves 2026-07-28 clients, which send their version with every request', async () => {
    const modern = new Client(
      { name: 'toolpack-http-modern', version: '1.0.0' },
      { versionNegotiation: { mode: { pin: '2026-07-28' } } },
    );
    await modern.connect(
      new StreamableHTTPClientTransport(server.url, {
        requestInit: { headers: { Authorization: `Bearer ${TOKEN}` } },
      }),
    );
    try {
      expect((await modern.listTools()).tools).toHaveLength(5);
      const result = await modern.callTool({ name: 'add_numbers', arguments: { numbers: [1, 1] } });
      expect(result.structuredContent).toEqual({ sum: 2 });
    } finally {
      await modern.close();
    }
  });

  it('answers an unknown tool with -32602 over HTTP too', async () => {
    const error = (await client
      .callTool({ name: 'nope', arguments: {} })
      .catch((e: unknown) => e)) as { code?: number };
    expect(error.code).toBe(-32602);
  });

  it('rejects a foreign Host header with 403 (DNS rebinding)', async () => {
    const answer = await rawRequest(server.url, {
      method: 'POST',
      headers: {
        Host: 'evil.example',
        Authorization: `Bearer ${TOKEN}`,
        'Content-Type': 'application/json',
        Accept: 'application/json, text/event-stream',
      },
      body: initializeBody,
    });
    expect(answer.status).toBe(403);
  });

  it('rejects a foreign Origin with 403', async () => {
    const answer = await rawRequest(server.url, {
      method: 'POST',
      headers: {
        Origin: 'http://evil.example',
        Authorization: `Bearer ${TOKEN}`,
        'Content-Type': 'application/json',
        Accept: 'application/json, text/event-stream',
      },
      body: initializeBody,
    });
    expect(answer.status).toBe(403);
  });

  it('requires the bearer token on /mcp (401 without, with a WWW-Authenticate challenge)', async () => {
    const missing = await rawRequest(server.url, {
      method: 'POST',
      headers: {
        'Content-Type': 'application/json',
        Accept: 'application/json, text/event-stream',
      },
      body: initializeBody,
    });
    expect(missing.status).toBe(401);
    expect(missing.headers['www-authenticate']).toMatch(/^Bearer/);
    const wrong = await rawRequest(server.url, {
      method: 'POST',
      headers: {
        Authorization: 'Bearer nope',
        'Content-Type': 'application/json',
        Accept: 'application/json, text/event-stream',
      },
      body: initializeBody,
    });
    expect(wrong.status).toBe(401);
  });

  it('serves /health without a token', async () => {
    const answer = await rawRequest(new URL('/health', server.url), {});
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.body)).toMatchObject({ status: 'ok', name: 'toolpack', tools: 5 });
  });

  it('serves Prometheus /metrics (with the token) with per-tool counters and latency', async () => {
    await client.callTool({ name: 'count_calls', arguments: {} });
    await client.callTool({ name: 'add_numbers', arguments: { numbers: 'x' } });
    expect((await rawRequest(new URL('/metrics', server.url), {})).status).toBe(401);
    const answer = await rawRequest(new URL('/metrics', server.url), {
      headers: { Authorization: `Bearer ${TOKEN}` },
    });
    expect(answer.status).toBe(200);
    expect(answer.headers['content-type']).toMatch(/^text\/plain/);
    expect(answer.body).toMatch(/^toolpack_tools 5$/m);
    expect(answer.body).toMatch(
      /^toolpack_tool_calls_total\{tool="count_calls",outcome="ok"\} 1$/m,
    );
    expect(answer.body).toMatch(
      /^toolpack_tool_calls_total\{tool="add_numbers",outcome="error"\} 1$/m,
    );
    expect(answer.body).toMatch(/^toolpack_tool_errors_total\{tool="add_numbers"\} 1$/m);
    expect(answer.body).toMatch(
      /^toolpack_tool_call_duration_seconds_count\{tool="count_calls"\} 1$/m,
    );
    expect(answer.body).toMatch(/^toolpack_unknown_tool_calls_total 1$/m);
  });
});

describe('mcp serve --http without a token', () => {
  it('refuses to bind a non-loopback address (exit 2, says how to fix it)', async () => {
    const temp = mkdtempSync(path.join(os.tmpdir(), 'toolpack-http-'));
    const server = spawnServe(['--http', '0.0.0.0:0', '--no-watch'], { cwd: temp });
    try {
      expect(await server.exited).toBe(2);
      expect(server.stderr()).toMatch(/Refusing to serve HTTP on 0\.0\.0\.0 without a token/);
      expect(server.stderr()).toMatch(/--token/);
    } finally {
      server.kill();
      rmSync(temp, { recursive: true, force: true });
    }
  });

  it('serves loopback without a token, and requires one when TOOLPACK_TOKEN is set', async () => {
    const temp = mkdtempSync(path.join(os.tmpdir(), 'toolpack-http-'));
    const open = await startHttpServe(['--no-watch'], { cwd: temp });
    const locked = await startHttpServe(['--no-watch'], {
      cwd: temp,
      env: { TOOLPACK_TOKEN: 'from-env' },
    });
    try {
      const headers = {
        'Content-Type': 'application/json',
        Accept: 'application/json, text/event-stream',
      };
      expect(
        (await rawRequest(open.url, { method: 'POST', headers, body: initializeBody })).status,
      ).toBe(200);
      expect(
        (await rawRequest(locked.url, { method: 'POST', headers, body: initializeBody })).status,
      ).toBe(401);
      const allowed = await rawRequest(locked.url, {
        method: 'POST',
        headers: { ...headers, Authorization: 'Bearer from-env' },
        body: initializeBody,
      });
      expect(allowed.status).toBe(200);
      expect(allowed.headers['mcp-session-id']).toBeTruthy();
    } finally {
      open.kill();
      locked.kill();
      rmSync(temp, { recursive: true, force: true });
    }
  });
});

import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  checkPackFolder,
  openPackSession,
  readStructured,
  readText,
  type PackSession,
} from '../../../../apps/registry/src/testing/pack-test-kit.ts';

const packDir = path.resolve(import.meta.dirname, '..');
const temp = mkdtempSync(path.join(os.tmpdir(), 'toolpack-http-pack-'));
let server: Server;
let base = '';
let session: PackSession;

interface HttpResult {
  url: string;
  status: number;
  ok: boolean;
  headers: Record<string, string>;
  body: string;
  bodyEncoding: 'text' | 'base64';
  bytes: number;
  truncated: boolean;
}

beforeAll(async () => {
  // Loopback only: the pack's tests never leave this machine.
  server = createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://x');
    if (url.pathname === '/json') {
      response.writeHead(200, { 'content-type': 'application/json', 'x-demo': 'yes' });
      response.end(JSON.stringify({ hello: 'world', ünïcode: '✓' }));
    } else if (url.pathname === '/echo') {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        response.writeHead(201, { 'content-type': 'application/json' });
        response.end(
          JSON.stringify({
            method: request.method,
            headers: request.headers,
            body: Buffer.concat(chunks).toString('utf8'),
          }),
        );
      });
    } else if (url.pathname === '/binary') {
      response.writeHead(200, { 'content-type': 'image/png' });
      response.end(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x00, 0x01, 0xff]));
    } else if (url.pathname === '/big') {
      response.writeHead(200, { 'content-type': 'text/plain' });
      response.end('x'.repeat(300_000));
    } else if (url.pathname === '/slow') {
      response.writeHead(200, { 'content-type': 'text/plain' });
      response.write('start');
      setTimeout(() => response.end('end'), 3000).unref();
    } else if (url.pathname === '/redirect') {
      response.writeHead(302, { location: '/json' });
      response.end();
    } else {
      response.writeHead(404, { 'content-type': 'text/plain' });
      response.end('not here');
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  session = await openPackSession({ dir: packDir, projectRoot: temp });
});

afterAll(async () => {
  await session?.close();
  server?.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve));
  rmSync(temp, { recursive: true, force: true });
});

describe('the http pack', () => {
  it('publishes cleanly: http_get (read-only) and http_request (destructive), both open world', async () => {
    const checked = await checkPackFolder(packDir, path.join(temp, 'unpacked'));
    expect(checked.listing.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
    expect(checked.manifest.tags).toContain('MCPTools');
    expect(checked.manifest.env).toEqual([
      expect.objectContaining({ name: 'HTTP_ALLOWED_HOSTS', required: false }),
    ]);
    expect(checked.manifest.permissions).toEqual({
      filesystem: { read: [], write: [] },
      network: { access: 'any', hosts: [] },
      env: ['HTTP_ALLOWED_HOSTS'],
      subprocess: false,
    });
    expect(checked.files).toEqual(['README.md', 'src/http-tools.mjs', 'toolpack.yaml']);
    expect(checked.listing.tools.map((t) => [t.name, t.annotations])).toEqual([
      ['http_get', { readOnlyHint: true, idempotentHint: true, openWorldHint: true }],
      ['http_request', { destructiveHint: true, openWorldHint: true }],
    ]);
  });

  it('gets JSON with status, headers and the text body', async () => {
    const result = readStructured<HttpResult>(
      await session.call('http_get', { url: `${base}/json` }),
    );
    expect(result).toMatchObject({ status: 200, ok: true, bodyEncoding: 'text', truncated: false });
    expect(JSON.parse(result.body)).toEqual({ hello: 'world', ünïcode: '✓' });
    expect(result.headers['x-demo']).toBe('yes');
  });

  it('sends any method with headers and a body', async () => {
    const result = readStructured<HttpResult>(
      await session.call('http_request', {
        url: `${base}/echo`,
        method: 'PUT',
        headers: { 'x-token': 'abc', 'content-type': 'application/json' },
        body: '{"a":1}',
      }),
    );
    expect(result.status).toBe(201);
    expect(JSON.parse(result.body)).toMatchObject({
      method: 'PUT',
      headers: { 'x-token': 'abc' },
      body: '{"a":1}',
    });
  });

  it('follows redirects and reports non-2xx answers as results, not errors', async () => {
    expect(
      readStructured<HttpResult>(await session.call('http_get', { url: `${base}/redirect` })),
    ).toMatchObject({ url: `${base}/json`, status: 200 });
    expect(
      readStructured<HttpResult>(await session.call('http_get', { url: `${base}/missing` })),
    ).toMatchObject({ status: 404, ok: false, body: 'not here' });
  });

  it('returns binary bodies as base64', async () => {
    const result = readStructured<HttpResult>(
      await session.call('http_get', { url: `${base}/binary` }),
    );
    expect(result).toMatchObject({ bodyEncoding: 'base64', bytes: 7 });
    expect(Buffer.from(result.body, 'base64')).toEqual(
      Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x00, 0x01, 0xff]),
    );
  });

  it('caps the body at max_bytes and says it was truncated', async () => {
    const result = readStructured<HttpResult>(
      await session.call('http_get', { url: `${base}/big`, max_bytes: 1000 }),
    );
    expect(result).toMatchObject({ bytes: 1000, truncated: true });
    expect(result.body).toBe('x'.repeat(1000));
  });

  it('gives up after timeout_ms', async () => {
    const started = Date.now();
    const result = await session.call('http_get', { url: `${base}/slow`, timeout_ms: 300 });
    expect(result.isError).toBe(true);
    expect(readText(result)).toMatch(/within 300 ms/);
    expect(Date.now() - started).toBeLessThan(2500);
  });

  it('refuses bad input with a message the model can act on', async () => {
    for (const [tool, args, message] of [
      ['http_get', { url: 'file:///etc/passwd' }, 'pattern'],
      ['http_request', { url: `${base}/echo`, method: 'GET', body: 'x' }, 'has no body'],
      ['http_request', { url: `${base}/echo`, method: 'TRACE' }, 'method'],
      [
        'http_get',
        { url: `${base}/json`, headers: { host: 'evil.example' } },
        'set by the tool itself',
      ],
      ['http_get', { url: `${base}/json`, timeout_ms: 0 }, 'timeout_ms'],
      ['http_get', { url: 'http://127.0.0.1:1/' }, 'failed'],
    ] as const) {
      const result = await session.call(tool, args);
      expect(result.isError, JSON.stringify(args)).toBe(true);
      expect(readText(result)).toContain(message);
    }
  });

  it('keeps to HTTP_ALLOWED_HOSTS when it is set', async () => {
    const fenced = await openPackSession({
      dir: packDir,
      projectRoot: temp,
      env: { HTTP_ALLOWED_HOSTS: 'api.example.com, *.internal' },
    });
    try {
      const refused = await fenced.call('http_get', { url: `${base}/json` });
      expect(refused.isError).toBe(true);
      expect(readText(refused)).toContain('is not in HTTP_ALLOWED_HOSTS');
    } finally {
      await fenced.close();
    }
    const port = new URL(base).port;
    const allowed = await openPackSession({
      dir: packDir,
      projectRoot: temp,
      env: { HTTP_ALLOWED_HOSTS: `127.0.0.1:${port}` },
    });
    try {
      expect(
        readStructured<HttpResult>(await allowed.call('http_get', { url: `${base}/json` })).status,
      ).toBe(200);
    } finally {
      await allowed.close();
    }
  });
});

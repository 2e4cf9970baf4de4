import os from 'node:os';
import { describe, expect, it } from 'vitest';
import { isToolpackError } from '@toolpack/core';
import { createToolpackServer } from '../toolpack-server.ts';
import { allowedHostnamesFor, isLoopbackHost, startHttpServer } from './http.ts';

describe('isLoopbackHost', () => {
  it('knows the loopback names and addresses', () => {
    for (const host of ['127.0.0.1', '127.0.0.2', 'localhost', '::1', '[::1]'])
      expect(isLoopbackHost(host)).toBe(true);
    for (const host of ['0.0.0.0', '::', '10.0.0.5', 'example.com'])
      expect(isLoopbackHost(host)).toBe(false);
  });
});

describe('allowedHostnamesFor', () => {
  it('accepts only loopback names on a loopback bind (plus names asked for)', () => {
    expect(allowedHostnamesFor('127.0.0.1')).toEqual(['localhost', '127.0.0.1', '[::1]']);
    expect(allowedHostnamesFor('127.0.0.1', ['Tools.Internal', '::1'])).toEqual([
      'localhost',
      '127.0.0.1',
      '[::1]',
      'tools.internal',
    ]);
  });

  it('adds the bound address, or on a wildcard bind the machine’s names and addresses', () => {
    expect(allowedHostnamesFor('10.1.2.3')).toContain('10.1.2.3');
    const wildcard = allowedHostnamesFor('0.0.0.0');
    expect(wildcard).toContain(os.hostname().toLowerCase());
    expect(wildcard).toContain('127.0.0.1');
  });
});

describe('startHttpServer', () => {
  it('refuses a non-loopback bind without a token (E_HTTP_TOKEN)', async () => {
    const toolpack = await createToolpackServer({
      discovery: { sources: [], cwd: os.tmpdir(), cache: false },
    });
    try {
      const error = await startHttpServer(toolpack, { host: '0.0.0.0', port: 0 }).catch(
        (e: unknown) => e,
      );
      expect(isToolpackError(error) && error.code).toBe('E_HTTP_TOKEN');
    } finally {
      await toolpack.close();
    }
  });

  it('answers /health, 404 elsewhere, 400 for a non-initialize request without a session, and closes', async () => {
    const toolpack = await createToolpackServer({
      discovery: { sources: [], cwd: os.tmpdir(), cache: false },
    });
    const http = await startHttpServer(toolpack, { port: 0 });
    try {
      const base = new URL(http.url);
      expect(http.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
      expect(await (await fetch(new URL('/health', base))).json()).toMatchObject({
        status: 'ok',
        tools: 2,
      });
      expect((await fetch(new URL('/elsewhere', base))).status).toBe(404);
      const noSession = await fetch(base, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
        },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
      });
      expect(noSession.status).toBe(400);
      const notJson = await fetch(base, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{',
      });
      expect(notJson.status).toBe(400);
      expect(await notJson.json()).toMatchObject({ error: { code: -32700 } });
      const unknownSession = await fetch(base, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-session-id': 'gone',
        },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
      });
      expect(unknownSession.status).toBe(404);
    } finally {
      await http.close();
      await toolpack.close();
    }
  });
});

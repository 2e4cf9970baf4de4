import os from 'node:os';
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createToolpackServer } from '../toolpack-server.ts';
import { startStdioServer } from './stdio.ts';

function lines(stream: PassThrough): () => { raw: string; message: Record<string, unknown> }[] {
  let text = '';
  stream.setEncoding('utf8');
  stream.on('data', (chunk: string) => (text += chunk));
  return () =>
    text
      .split('\n')
      .filter((line) => line.trim() !== '')
      .map((raw) => ({ raw, message: JSON.parse(raw) as Record<string, unknown> }));
}

async function until<T>(check: () => T | undefined): Promise<T> {
  for (let i = 0; i < 200; i++) {
    const value = check();
    if (value !== undefined) return value;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error('timed out');
}

describe('startStdioServer', () => {
  it('answers over the given streams, sends the cached tool list, and ends with stdin', async () => {
    const toolpack = await createToolpackServer({
      discovery: { sources: [], cwd: os.tmpdir(), cache: false },
      metrics: false,
    });
    const stdin = new PassThrough();
    const stdout = new PassThrough();
    const read = lines(stdout);
    const handle = startStdioServer(toolpack, { stdin, stdout });
    const send = (message: object) =>
      stdin.write(`${JSON.stringify({ jsonrpc: '2.0', ...message })}\n`);
    send({
      id: 0,
      method: 'initialize',
      params: {
        protocolVersion: '2025-11-25',
        capabilities: {},
        clientInfo: { name: 't', version: '1' },
      },
    });
    send({ method: 'notifications/initialized' });
    send({ id: 'list', method: 'tools/list' });
    const list = await until(() => read().find((m) => m.message.id === 'list'));
    expect((list.message.result as { tools: { name: string }[] }).tools.map((t) => t.name)).toEqual(
      ['find_tools', 'describe_tool'],
    );
    // The SDK writes `jsonrpc` first; the line made from the cached list starts with `result`.
    expect(list.raw.startsWith('{"result":{"tools":[')).toBe(true);
    expect(read().find((m) => m.message.id === 0)?.message).toMatchObject({
      result: { serverInfo: { name: 'toolpack' } },
    });
    stdin.end();
    await handle.closed;
    await handle.close();
    await toolpack.close();
  });
});

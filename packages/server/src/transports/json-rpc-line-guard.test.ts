import { describe, expect, it } from 'vitest';
import type { RejectedMessage } from './json-rpc-envelope.ts';
import { JsonRpcLineGuard } from './json-rpc-line-guard.ts';

async function run(
  input: (string | Buffer)[],
  maxLineBytes = 1024,
  maxArgumentKeys?: number,
): Promise<{ passed: unknown[]; rejected: RejectedMessage[] }> {
  const rejected: RejectedMessage[] = [];
  const passed: unknown[] = [];
  const guard = new JsonRpcLineGuard({
    maxLineBytes,
    ...(maxArgumentKeys === undefined ? {} : { maxArgumentKeys }),
    deliver: (message) => passed.push(message),
    reject: (r) => rejected.push(r),
  });
  const finished = new Promise((resolve) => guard.on('finish', resolve));
  for (const part of input) guard.write(part);
  guard.end();
  await finished;
  return { passed, rejected };
}

describe('JsonRpcLineGuard', () => {
  it('answers a line past MAX_MESSAGE_VALUES with its refusal, and reads the next line as usual', async () => {
    const rows = Array.from({ length: 60_000 }, (_, k) => `{"a":${k},"b":${k}}`).join(',');
    const line = `{"jsonrpc":"2.0","id":"r","method":"tools/call","params":{"name":"t","arguments":{"rows":[${rows}]}}}\n`;
    const { passed, rejected } = await run(
      [line, '{"jsonrpc":"2.0","id":2,"method":"ping"}\n'],
      16 * 1024 * 1024,
      1000,
    );
    expect(rejected).toEqual([
      {
        id: 'r',
        code: -32602,
        message: expect.stringMatching(/^Invalid params: the message holds more than 50000 values/),
      },
    ]);
    expect(passed).toEqual([{ jsonrpc: '2.0', id: 2, method: 'ping' }]);
  });

  it('passes valid messages through, line by line, even split across chunks', async () => {
    const { passed, rejected } = await run([
      '{"jsonrpc":"2.0","id":1,',
      '"method":"ping"}\n{"jsonrpc":"2.0","method":"x"}\n',
    ]);
    expect(passed).toEqual([
      { jsonrpc: '2.0', id: 1, method: 'ping' },
      { jsonrpc: '2.0', method: 'x' },
    ]);
    expect(rejected).toEqual([]);
  });

  it('delivers each message as the SDK parsed it, params and _meta kept', async () => {
    const line = {
      jsonrpc: '2.0',
      id: 'a',
      method: 'tools/call',
      params: { name: 'x', arguments: { n: [1, { deep: true }] }, _meta: { progressToken: 7 } },
    };
    const { passed } = await run([`${JSON.stringify(line)}\n`]);
    expect(passed).toEqual([line]);
  });

  it('answers what the SDK would drop: not JSON, not an object, batches, wrong version, bad ids and params', async () => {
    const { passed, rejected } = await run([
      '{oops\n',
      '42\n',
      '[{"jsonrpc":"2.0","id":1,"method":"ping"}]\n',
      '{"jsonrpc":"1.0","id":2,"method":"ping"}\n',
      '{"jsonrpc":"2.0","id":3,"method":7}\n',
      '{"jsonrpc":"2.0","id":{"x":1},"method":"ping"}\n',
      '{"jsonrpc":"2.0","id":4,"method":"tools/call","params":"x"}\n',
      '\n  \n',
    ]);
    expect(passed).toEqual([]);
    expect(rejected.map((r) => [r.id, r.code])).toEqual([
      [null, -32700],
      [null, -32600],
      [null, -32600],
      [2, -32600],
      [3, -32600],
      [null, -32600],
      [4, -32602],
    ]);
  });

  it('answers ids, params and _meta the SDK schema refuses, and a byte-order mark', async () => {
    const { passed, rejected } = await run([
      '{"jsonrpc":"2.0","id":1.5,"method":"ping"}\n',
      '{"jsonrpc":"2.0","id":9007199254740993,"method":"ping"}\n',
      '{"jsonrpc":"2.0","id":null,"method":"ping"}\n',
      '{"jsonrpc":"2.0","id":5,"method":"ping","params":[]}\n',
      '{"jsonrpc":"2.0","id":6,"method":"ping","params":{"_meta":"x"}}\n',
      '{"jsonrpc":"2.0","id":7,"method":"ping","params":{"_meta":{"progressToken":1.5}}}\n',
      '{"jsonrpc":"2.0","id":8,"method":"ping","extra":true}\n',
      '\uFEFF{"jsonrpc":"2.0","id":9,"method":"ping"}\n',
      // The SDK's schema refuses a response with id null too; it would drop it unseen.
      '{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"x"}}\n',
    ]);
    expect(rejected.map((r) => [r.id, r.code])).toEqual([
      [null, -32600],
      [null, -32600],
      [null, -32600],
      [5, -32602],
      [6, -32602],
      [7, -32602],
      [8, -32600],
      [null, -32700],
      [null, -32600],
    ]);
    expect(passed).toEqual([]);
  });

  it('lets admit refuse a well-formed message', async () => {
    const rejected: RejectedMessage[] = [];
    const guard = new JsonRpcLineGuard({
      maxLineBytes: 1024,
      reject: (r) => rejected.push(r),
      deliver: () => undefined,
      admit: (message) =>
        message.method === 'tools/call'
          ? { id: message.id as number, code: -32000, message: 'initialize first' }
          : undefined,
    });
    guard.end('{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x"}}\n');
    await new Promise((resolve) => guard.on('finish', resolve));
    expect(rejected).toEqual([{ id: 1, code: -32000, message: 'initialize first' }]);
  });

  it('answers and skips a line over the limit, then goes on', async () => {
    const { passed, rejected } = await run([
      `{"jsonrpc":"2.0","id":1,"method":"${'x'.repeat(600)}`,
      `${'y'.repeat(600)}"}\n`,
      '{"jsonrpc":"2.0","id":2,"method":"ping"}\n',
    ]);
    expect(rejected).toEqual([
      {
        id: null,
        code: -32600,
        message: 'Invalid Request: the message is longer than 1024 bytes.',
      },
    ]);
    expect(passed).toEqual([{ jsonrpc: '2.0', id: 2, method: 'ping' }]);
  });

  it('handles a last line without a newline', async () => {
    expect((await run(['{"jsonrpc":"2.0","id":1,"method":"ping"}'])).passed).toEqual([
      { jsonrpc: '2.0', id: 1, method: 'ping' },
    ]);
  });
});

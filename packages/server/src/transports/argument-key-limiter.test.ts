import { describe, expect, it } from 'vitest';
import { createArgumentKeyLimiter } from './argument-key-limiter.ts';

/** Feeds `text` in chunks of `size` bytes (every split point a boundary somewhere). */
function limit(text: string, maxKeys: number, size = Number.MAX_SAFE_INTEGER) {
  const limiter = createArgumentKeyLimiter(maxKeys);
  const bytes = Buffer.from(text);
  for (let start = 0; start < bytes.length; start += size)
    limiter.push(bytes.subarray(start, start + size));
  const limited = limiter.limited;
  return { text: limiter.finish().toString('utf8'), limited };
}

function callWith(args: string, rest = ''): string {
  return `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"t","arguments":${args}${rest}}}`;
}

function keysObject(count: number, prefix = 'k'): string {
  return `{${Array.from({ length: count }, (_, k) => `"${prefix}${k}":{"v":[${k},"}]\\""]}`).join(',')}}`;
}

describe('the argument-key limit, decided while reading', () => {
  it('passes every message within the limit through byte for byte, in any chunking', () => {
    const messages = [
      callWith(keysObject(3)),
      callWith(keysObject(3), ',"_meta":{"progressToken":"a"}'),
      '[' + callWith(keysObject(2)) + ',' + callWith(keysObject(3)) + ']',
      '{"jsonrpc":"2.0","id":1,"method":"ping"}',
      'not json {"params":{"arguments":{"a":1,"b":2,"c":3}}',
      callWith('{"a":"\\"}{","b":"\\\\","c":"\\u0041"}'),
    ];
    for (const message of messages) {
      for (const size of [1, 2, 3, 7, 64, Number.MAX_SAFE_INTEGER]) {
        expect(limit(message, 3, size)).toEqual({ text: message, limited: false });
      }
    }
  });

  it('replaces arguments past the limit with their first limit + 1 keys, in any chunking', () => {
    for (const size of [1, 5, 64, Number.MAX_SAFE_INTEGER]) {
      const read = limit(callWith(keysObject(1000), ',"_meta":{"progressToken":"p"}'), 3, size);
      expect(read.limited).toBe(true);
      expect(JSON.parse(read.text)).toEqual({
        jsonrpc: '2.0',
        id: 7,
        method: 'tools/call',
        params: {
          name: 't',
          arguments: { k0: null, k1: null, k2: null, k3: null },
          _meta: { progressToken: 'p' },
        },
      });
    }
  });

  it('counts keys as JSON.parse reads them: escapes decoded, duplicates once', () => {
    // Four keys as written, three as parsed ("a" twice): within a limit of 3.
    const duplicates = callWith('{"a":1,"\\u0061":2,"b":3,"c":4}');
    expect(limit(duplicates, 3)).toEqual({ text: duplicates, limited: false });
    // An envelope key spelled with escapes is the same key.
    const escaped = `{"jsonrpc":"2.0","id":1,"method":"tools/call","\\u0070arams":{"name":"t","argument\\u0073":${keysObject(5)}}}`;
    expect(JSON.parse(limit(escaped, 3).text).params.arguments).toEqual({
      k0: null,
      k1: null,
      k2: null,
      k3: null,
    });
  });

  it('limits each message of a batch, and no nested object but params.arguments', () => {
    const batch = `[${callWith(keysObject(5))},${callWith(keysObject(2))}]`;
    const [first, second] = JSON.parse(limit(batch, 3).text) as {
      params: { arguments: object };
    }[];
    expect(Object.keys(first!.params.arguments)).toEqual(['k0', 'k1', 'k2', 'k3']);
    expect(second!.params.arguments).toEqual(JSON.parse(keysObject(2)));
    const nested = callWith(`{"map":${keysObject(50)}}`);
    expect(limit(nested, 3)).toEqual({ text: nested, limited: false });
    const elsewhere = `{"jsonrpc":"2.0","id":1,"method":"x","params":{"other":${keysObject(50)}}}`;
    expect(limit(elsewhere, 3)).toEqual({ text: elsewhere, limited: false });
  });

  it("limits call_tool's arguments the same way, wherever its name comes", () => {
    const inner = keysObject(6);
    const nameFirst = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"call_tool","arguments":{"name":"t","arguments":${inner}}}}`;
    const nameLast = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"arguments":{"arguments":${inner},"name":"t"},"name":"call_\\u0074ool"}}`;
    for (const message of [nameFirst, nameLast]) {
      for (const size of [1, 7, Number.MAX_SAFE_INTEGER]) {
        const parsed = JSON.parse(limit(message, 3, size).text) as {
          params: { name: string; arguments: { name: string; arguments: object } };
        };
        expect(parsed.params.name).toBe('call_tool');
        expect(parsed.params.arguments).toEqual({
          name: 't',
          arguments: { k0: null, k1: null, k2: null, k3: null },
        });
      }
    }
    // Another tool's own "arguments" parameter is its business: passed on whole.
    const other = nameLast.replace('call_\\u0074ool', 'other_tool');
    expect(limit(other, 3)).toEqual({ text: other, limited: false });
    const batch = `[${nameFirst}]`;
    expect(limit(batch, 3).text).toBe(batch);
  });

  it('leaves a broken message broken', () => {
    const truncated = callWith(keysObject(10)).slice(0, -40);
    expect(() => JSON.parse(limit(truncated, 3).text)).toThrow(SyntaxError);
  });

  it('keeps only the envelope of a million-key message, and reads it in a fraction of a parse', () => {
    const keys = Array.from({ length: 1_000_000 }, (_, k) => `"k${k}":1`).join(',');
    const line = Buffer.from(callWith(`{${keys}}`));
    const limiter = createArgumentKeyLimiter(1000);
    const scanStarted = performance.now();
    for (let start = 0; start < line.length; start += 65_536)
      limiter.push(line.subarray(start, start + 65_536));
    const scanMs = performance.now() - scanStarted;
    expect(limiter.keptBytes).toBeLessThan(20_000);
    const parseStarted = performance.now();
    JSON.parse(line.toString('utf8'));
    const parseMs = performance.now() - parseStarted;
    // The floor measured in the same run: what reading the message whole would cost.
    expect(scanMs).toBeLessThan(parseMs);
    expect(Object.keys(JSON.parse(limiter.finish().toString()).params.arguments)).toHaveLength(
      1001,
    );
  });
});

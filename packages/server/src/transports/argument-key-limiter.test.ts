import { describe, expect, it } from 'vitest';
import { createArgumentKeyLimiter, type LimitedMessage } from './argument-key-limiter.ts';

/** Feeds `text` in chunks of `size` bytes; the limiter's answer. */
function read(
  text: string,
  limits: { maxKeys: number; maxMessageValues?: number; maxDepth?: number },
  size = Number.MAX_SAFE_INTEGER,
): { limited: boolean; message: LimitedMessage } {
  const limiter = createArgumentKeyLimiter({
    maxArgumentKeys: limits.maxKeys,
    maxMessageValues: limits.maxMessageValues ?? 1_000_000,
    maxDepth: limits.maxDepth ?? 128,
  });
  const bytes = Buffer.from(text);
  for (let start = 0; start < bytes.length; start += size)
    limiter.push(bytes.subarray(start, start + size));
  const limited = limiter.limited;
  return { limited, message: limiter.finish() };
}

/** The message as it will be parsed (every split point a boundary somewhere). */
function limit(text: string, maxKeys: number, size = Number.MAX_SAFE_INTEGER) {
  const { limited, message } = read(text, { maxKeys }, size);
  if (!('bytes' in message)) throw new Error(`refused: ${message.refused.message}`);
  return { text: message.bytes.toString('utf8'), limited };
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
    const limiter = createArgumentKeyLimiter({
      maxArgumentKeys: 1000,
      maxMessageValues: 100_000,
      maxDepth: 128,
    });
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
    const finished = limiter.finish();
    expect('bytes' in finished).toBe(true);
    const text = 'bytes' in finished ? finished.bytes.toString() : '';
    expect(Object.keys(JSON.parse(text).params.arguments)).toHaveLength(1001);
  });
});

/** A map of `count` keys nested `depth` objects down (`{"d":{"d":{...}}}`). */
function nestedKeys(count: number, depth = 3): string {
  return '{"d":'.repeat(depth) + keysObject(count) + '}'.repeat(depth);
}

describe('the message limits, decided while reading', () => {
  const limits = { maxKeys: 3, maxMessageValues: 50 };

  it('refuses a message with more values at any depth than the limit, answering its id', () => {
    // keysObject(n) holds 4n values: "k0", its "v", and that array's two elements.
    const nested = callWith(nestedKeys(12, 3));
    const scalars = callWith(`{"v":[${Array.from({ length: 60 }, (_, k) => k).join(',')}]}`);
    const idLast = `{"jsonrpc":"2.0","method":"tools/call","params":{"name":"t","arguments":{"rows":[${Array.from({ length: 60 }, (_, k) => `{"r":${k}}`).join(',')}]}},"id":"last \\"one\\""}`;
    for (const size of [1, 3, 64, Number.MAX_SAFE_INTEGER]) {
      expect(read(nested, limits, size).message).toEqual({
        refused: {
          id: 7,
          code: -32602,
          message:
            'Invalid params: the message holds more than 50 values (object members and array elements, counted at every depth); send bulk data as one string (JSON or CSV text), or over several calls.',
        },
      });
      expect(read(scalars, limits, size).message).toMatchObject({ refused: { id: 7 } });
      const refused = read(idLast, limits, size).message;
      expect(refused).toMatchObject({ refused: { id: 'last "one"', code: -32602 } });
    }
    // Within the limit it passes byte for byte; colons inside strings are no keys.
    const within = callWith(`{"a":${nestedKeys(8, 3)},"text":"${'a:b,'.repeat(200)}"}`);
    expect(limit(within, 3)).toEqual({ text: within, limited: false });
    expect(read(within, limits).message).toEqual({ bytes: Buffer.from(within) });
  });

  it('answers id null for a batch, an id it could not use, and -32600 without a method', () => {
    const keys = keysObject(40);
    const cases: [string, unknown, number][] = [
      [`[{"jsonrpc":"2.0","id":1,"method":"m","params":${keys}}]`, null, -32600],
      [`{"jsonrpc":"2.0","id":{"x":1},"method":"m","params":${keys}}`, null, -32600],
      [`{"jsonrpc":"2.0","id":"${'i'.repeat(200)}","method":"m","params":${keys}}`, null, -32600],
      [`{"jsonrpc":"2.0","id":1.5,"method":"m","params":${keys}}`, null, -32600],
      [`{"jsonrpc":"2.0","id":3,"result":${keys}}`, 3, -32600],
      // The id read before the refusal answers it: the rest is not read.
      [`{"jsonrpc":"2.0","id":1,"method":"m","params":${keys},"id":2}`, 1, -32602],
      [
        `{"jsonrpc":"2.0","id":"${'i'.repeat(200)}","method":"m","params":${keys},"id":2}`,
        2,
        -32602,
      ],
    ];
    for (const [message, id, code] of cases) {
      for (const size of [1, 5, Number.MAX_SAFE_INTEGER]) {
        expect(read(message, limits, size).message).toMatchObject({ refused: { id, code } });
      }
    }
  });

  it('refuses nesting deeper than the limit, and passes it at the limit', () => {
    // The message is level 1, params 2, arguments 3: 5 more levels are 8.
    const atLimit = callWith(`{"a":[[[{"b":[]}]]]}`);
    const depth = { ...limits, maxDepth: 8 };
    expect(read(atLimit, depth).message).toEqual({ bytes: Buffer.from(atLimit) });
    const deeper = callWith(`{"a":[[[{"b":[[]]}]]]}`);
    for (const size of [1, 7, Number.MAX_SAFE_INTEGER]) {
      expect(read(deeper, depth, size).message).toEqual({
        refused: {
          id: 7,
          code: -32602,
          message:
            'Invalid params: the message nests more than 8 levels deep; flatten the arguments.',
        },
      });
    }
  });

  it('leaves keys past the argument-key limit to that limit: skipped unread, not counted', () => {
    // 100 top-level argument keys (200 keys in all): cut at 4 and refused by the pipeline.
    const flat = callWith(keysObject(100));
    const { message, limited } = read(flat, limits);
    expect(limited).toBe(true);
    expect(
      'bytes' in message && Object.keys(JSON.parse(message.bytes.toString()).params.arguments),
    ).toEqual(['k0', 'k1', 'k2', 'k3']);
    // call_tool's are cut too, wherever its name comes; another tool's are counted.
    const inner = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"arguments":{"arguments":{${Array.from({ length: 100 }, (_, k) => `"k${k}":${k}`).join(',')}},"name":"t"},"name":"call_tool"}}`;
    const passed = read(inner, limits).message;
    expect(
      'bytes' in passed && JSON.parse(passed.bytes.toString()).params.arguments.arguments,
    ).toEqual({ k0: null, k1: null, k2: null, k3: null });
    const other = inner.replace('"call_tool"', '"other_tool"');
    expect(read(other, limits).message).toMatchObject({ refused: { id: 1, code: -32602 } });
  });

  it('refuses a million nested keys keeping nothing, in a fraction of a parse', () => {
    const rows = Array.from({ length: 250_000 }, (_, k) => `{"a":${k},"b":1,"c":2,"d":3}`);
    const line = Buffer.from(callWith(`{"x":{"rows":[${rows.join(',')}]}}`));
    const limiter = createArgumentKeyLimiter({
      maxArgumentKeys: 1000,
      maxMessageValues: 100_000,
      maxDepth: 128,
    });
    const scan = () => {
      const started = performance.now();
      for (let start = 0; start < line.length; start += 65_536)
        limiter.push(line.subarray(start, start + 65_536));
      return performance.now() - started;
    };
    // Once to compile the scan, as a server has after its first large message (cold, in the
    // interpreter, it is several times slower; still spread over the chunks).
    scan();
    expect(limiter.finish()).toMatchObject({ refused: { id: 7 } });
    const scanMs = scan();
    expect(limiter.keptBytes).toBe(0);
    const parseStarted = performance.now();
    JSON.parse(line.toString('utf8'));
    const parseMs = performance.now() - parseStarted;
    expect(scanMs).toBeLessThan(parseMs);
    expect(limiter.finish()).toMatchObject({ refused: { id: 7, code: -32602 } });
  });
});

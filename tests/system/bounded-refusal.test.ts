// Issue 30, "Also": refusing too many argument keys was cheap to answer but not to decide.
// A 12 MB stdio line of 1M keys blocked the server for seconds (JSON.parse, the SDK's schema,
// the depth walk, the key count); eight 4 MB HTTP bodies kept it busy and `/health` waited.
// Each attack runs against the built `mcp`, and again against the server from the sources
// with the streaming rule on and taken out (fixtures/bounded-refusal/serve.ts), where the
// block shows. The same holds for a million keys nested inside one argument, arrays of
// objects and arrays of numbers: the rule counts values at every depth, and the nesting.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { builtMcpBin, createBuiltMcpEnv, findBuiltMcpProblem } from './sandbox/built-mcp.ts';
import {
  fixtures,
  INITIALIZE_PARAMS,
  openHttpSession,
  postRaw,
  repo,
  type HttpSession,
} from './system-helpers.ts';

/** The bound: ping (and /health) answered within this while a refusal is decided. */
const BOUND_MS = 100;
const CHUNK = 64 * 1024;

let temp: string;
beforeAll(() => {
  const problem = findBuiltMcpProblem();
  if (problem !== undefined) throw new Error(problem);
  temp = mkdtempSync(path.join(os.tmpdir(), 'toolpack-bounded-refusal-'));
});
afterAll(() => rmSync(temp, { recursive: true, force: true }));

function argumentsOf(keys: number): string {
  const parts: string[] = [];
  for (let k = 0; k < keys; k++) parts.push(`"key_${k}":1`);
  return `{${parts.join(',')}}`;
}

function callLine(id: number, keys: number): Buffer {
  return Buffer.from(
    `{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":{"name":"find_tools","arguments":${argumentsOf(keys)}}}\n`,
  );
}

/** A million keys nested inside one argument (`{"a":{"b":{"c":{...}}}}`), the id last. */
function nestedLine(id: number): Buffer {
  return Buffer.from(
    `{"jsonrpc":"2.0","method":"tools/call","params":{"name":"find_tools","arguments":{"a":{"b":{"c":${argumentsOf(1_000_000)}}}}},"id":${id}}\n`,
  );
}

/** 250,000 objects of four keys in an array, and six million numbers in another. */
function rowsLine(id: number): Buffer {
  const rows: string[] = [];
  for (let k = 0; k < 250_000; k++) rows.push(`{"a":${k},"b":"row","c":true,"d":null}`);
  return Buffer.from(
    `{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":{"name":"find_tools","arguments":{"rows":[${rows.join(',')}]}}}\n`,
  );
}

/** Six million levels of arrays: refused after parsing before, now while reading. */
function deepLine(id: number): Buffer {
  return Buffer.from(
    `{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":{"name":"find_tools","arguments":{"v":${'['.repeat(6_000_000)}${']'.repeat(6_000_000)}}}}\n`,
  );
}

function numbersLine(id: number): Buffer {
  return Buffer.from(
    `{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":{"name":"find_tools","arguments":{"v":[${'1,'.repeat(6_000_000)}1]}}}\n`,
  );
}

/** The same keys through call_tool, its name after them: known only once they were read. */
function callToolLine(id: number, keys: number): Buffer {
  return Buffer.from(
    `{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":{"arguments":{"arguments":${argumentsOf(keys)},"name":"slugify"},"name":"call_tool"}}\n`,
  );
}

type Variant = 'built' | 'rule on' | 'rule off';
const examplesScripts = path.join(repo, 'examples', 'scripts');
/** Three script tools behind call_tool: its arguments carry the flood. */
const disclosing = ['--script-root', examplesScripts, '--disclose-above', '1'];

/** `mcp serve` of an empty project: the built CLI, or the sources with the rule on or off. */
function spawnServer(
  variant: Variant,
  transport: 'stdio' | 'http',
  serveArgs: readonly string[] = [],
): ChildProcessWithoutNullStreams {
  const args =
    variant === 'built'
      ? [
          builtMcpBin,
          'serve',
          '--no-watch',
          '--no-cache',
          ...(transport === 'http' ? ['--http', '127.0.0.1:0'] : []),
          ...serveArgs,
        ]
      : [
          path.join(fixtures, 'bounded-refusal', 'serve.ts'),
          transport,
          variant === 'rule on' ? 'on' : 'off',
          ...(serveArgs.length === 0 ? [] : [examplesScripts]),
        ];
  // The sources run with this process's environment, whose NODE_OPTIONS select them.
  const env = variant === 'built' ? createBuiltMcpEnv({}) : { ...process.env, NO_COLOR: '1' };
  return spawn(process.execPath, args, { cwd: temp, env, stdio: ['pipe', 'pipe', 'pipe'] });
}

interface LinePeer {
  write(bytes: Buffer): Promise<void>;
  answer(id: number): Promise<{ at: number; message: Record<string, unknown> }>;
}

/** Reads JSON-RPC answers from `output`, each with the time it arrived. */
function createLinePeer(input: NodeJS.WritableStream, output: NodeJS.ReadableStream): LinePeer {
  const answers = new Map<unknown, { at: number; message: Record<string, unknown> }>();
  const waiters = new Map<unknown, () => void>();
  let buffer = '';
  output.setEncoding('utf8');
  output.on('data', (chunk: string) => {
    const at = performance.now();
    buffer += chunk;
    for (let newline = buffer.indexOf('\n'); newline >= 0; newline = buffer.indexOf('\n')) {
      const message = JSON.parse(buffer.slice(0, newline)) as Record<string, unknown>;
      buffer = buffer.slice(newline + 1);
      answers.set(message.id, { at, message });
      waiters.get(message.id)?.();
    }
  });
  return {
    async write(bytes) {
      // As a pipe delivers them: in chunks, the way a real client's line arrives.
      for (let start = 0; start < bytes.length; start += CHUNK) {
        if (!input.write(bytes.subarray(start, start + CHUNK))) await once(input, 'drain');
      }
    },
    async answer(id) {
      for (;;) {
        const answer = answers.get(id);
        if (answer !== undefined) return answer;
        await new Promise<void>((resolve) => waiters.set(id, resolve));
      }
    },
  };
}

/**
 * Initializes, then sends the 1M-key line and a ping: how long the ping waited after it, and
 * the flood's answer (a tool's error result, or a JSON-RPC error's code and message).
 */
async function measurePingBehindFlood(
  peer: LinePeer,
  floodLine: (id: number, keys: number) => Buffer = callLine,
): Promise<{ pingMs: number; text: string }> {
  await peer.write(
    Buffer.from(
      `${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: INITIALIZE_PARAMS })}\n${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n`,
    ),
  );
  await peer.answer(1);
  const flood = floodLine(2, 1_000_000);
  expect(flood.length).toBeGreaterThan(7_000_000);
  await peer.write(flood);
  const sent = performance.now();
  await peer.write(Buffer.from(`${JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'ping' })}\n`));
  const ping = await peer.answer(3);
  const refused = await peer.answer(2);
  const error = refused.message.error as { code: number; message: string } | undefined;
  if (error !== undefined)
    return { pingMs: ping.at - sent, text: `${error.code} ${error.message}` };
  const content = (refused.message.result as { content: { text: string }[] }).content;
  return { pingMs: ping.at - sent, text: content[0]!.text };
}

/**
 * The flood's measure against a spawned server; a server that exits before answering fails
 * the test with its stderr at once (a half-built dist, a crash), instead of at the timeout.
 */
async function measureAgainst(
  child: ChildProcessWithoutNullStreams,
  floodLine?: (id: number, keys: number) => Buffer,
): Promise<{ pingMs: number; text: string }> {
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const exited = once(child, 'exit').then(([code, signal]) => {
    throw new Error(`The server exited (${String(code ?? signal)}) before answering:\n${stderr}`);
  });
  try {
    return await Promise.race([
      measurePingBehindFlood(createLinePeer(child.stdin, child.stdout), floodLine),
      exited,
    ]);
  } finally {
    exited.catch(() => undefined);
    child.kill('SIGKILL');
  }
}

async function floodStdio(
  variant: Variant,
  options: { serveArgs?: string[]; floodLine?: (id: number, keys: number) => Buffer } = {},
): Promise<{ pingMs: number; text: string }> {
  return measureAgainst(spawnServer(variant, 'stdio', options.serveArgs), options.floodLine);
}

describe('a 1M-key stdio line', () => {
  it('is refused by the built mcp while ping is answered within 100 ms', async () => {
    const { pingMs, text } = await floodStdio('built');
    expect(text).toMatch(/more than 1000 argument keys/);
    expect(pingMs).toBeLessThan(BOUND_MS);
  }, 60_000);

  it('is refused through call_tool too (progressive disclosure), ping answered within 100 ms', async () => {
    const { pingMs, text } = await floodStdio('built', {
      serveArgs: disclosing,
      floodLine: callToolLine,
    });
    expect(text).toMatch(/tool "slugify": more than 1000 argument keys/);
    expect(pingMs).toBeLessThan(BOUND_MS);
  }, 60_000);

  it('through call_tool blocks the server without the streaming rule, and not with it', async () => {
    const options = { serveArgs: disclosing, floodLine: callToolLine };
    const without = await floodStdio('rule off', options);
    const withRule = await floodStdio('rule on', options);
    expect(without.text).toBe(withRule.text);
    console.log(
      `1M keys through call_tool: ping after ${without.pingMs.toFixed(0)} ms without the streaming rule, ${withRule.pingMs.toFixed(1)} ms with it`,
    );
    expect(withRule.pingMs).toBeLessThan(BOUND_MS);
    expect(without.pingMs).toBeGreaterThan(withRule.pingMs * 10);
  }, 120_000);

  it('blocks the server without the streaming rule, and not with it', async () => {
    const without = await floodStdio('rule off');
    const withRule = await floodStdio('rule on');
    // Both refuse the call the same way; only the cost of deciding it differs.
    expect(without.text).toBe(withRule.text);
    console.log(
      `1M-key line: ping after ${without.pingMs.toFixed(0)} ms without the streaming rule, ${withRule.pingMs.toFixed(1)} ms with it`,
    );
    expect(withRule.pingMs).toBeLessThan(BOUND_MS);
    expect(without.pingMs).toBeGreaterThan(withRule.pingMs * 10);
  }, 120_000);
});

describe("a stdio line of a million values below the arguments' top level", () => {
  const tooMany = /^-32602 Invalid params: the message holds more than 50000 values/;
  const tooDeep = /^-32602 Invalid params: the message nests more than 128 levels deep/;
  // Without the rule each is parsed whole, then refused by validation or the depth walk.
  const invalid = /Invalid arguments for tool "find_tools"/;
  const floods = [
    ['1M keys nested in one argument, the id last', nestedLine, tooMany, invalid],
    ['250,000 objects in an array', rowsLine, tooMany, invalid],
    ['6M numbers in an array', numbersLine, tooMany, invalid],
    ['6M levels of arrays', deepLine, tooDeep, tooDeep],
  ] as const;

  it.each(floods)(
    '%s: refused by the built mcp while ping is answered within 100 ms',
    async (_name, floodLine, refusal) => {
      const { pingMs, text } = await floodStdio('built', { floodLine });
      expect(text).toMatch(refusal);
      expect(pingMs).toBeLessThan(BOUND_MS);
    },
    60_000,
  );

  it.each(floods)(
    '%s: blocks the server without the streaming rule, and not with it',
    async (name, floodLine, refusal, refusalWithout) => {
      const without = await floodStdio('rule off', { floodLine });
      const withRule = await floodStdio('rule on', { floodLine });
      expect(without.text).toMatch(refusalWithout);
      expect(withRule.text).toMatch(refusal);
      console.log(
        `${name}: ping after ${without.pingMs.toFixed(0)} ms without the streaming rule, ${withRule.pingMs.toFixed(1)} ms with it`,
      );
      expect(withRule.pingMs).toBeLessThan(BOUND_MS);
      expect(without.pingMs).toBeGreaterThan(withRule.pingMs * 10);
    },
    120_000,
  );
});

describe('a 16 MiB string checked against a pattern', () => {
  /** `label`'s pattern has no maxLength beside it; `long_label`'s has one, which lifts the budget. */
  const longText = path.join(fixtures, 'bounded-refusal', 'long-text');
  const letters = 'a'.repeat(16 * 1024 * 1024 - 200);
  const lineFor = (tool: string, parameter: string) => () =>
    Buffer.from(
      `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"${tool}","arguments":{"${parameter}":"${letters}"}}}\n`,
    );

  async function pingBehind(line: () => Buffer): Promise<{ pingMs: number; text: string }> {
    const child = spawn(process.execPath, [builtMcpBin, 'serve', '--no-watch', '--no-cache'], {
      cwd: longText,
      env: createBuiltMcpEnv({}),
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    return measureAgainst(child, line);
  }

  it('is refused unread without a maxLength, while ping is answered within 100 ms of the parse', async () => {
    // The floor, in the same run: the same line for no tool costs its parse and nothing else.
    const floor = await pingBehind(lineFor('no_such_tool', 'label'));
    expect(floor.text).toMatch(/no_such_tool/);
    const refused = await pingBehind(lineFor('label', 'label'));
    expect(refused.text).toMatch(
      /\/label is too long to check against pattern "\^\[a-z\]\+\$" \(262144 characters at most/,
    );
    // Read against its pattern (the budget lifted by the schema's own maxLength), the same
    // text holds the server's thread for the engine's pass over 16 MiB.
    const read = await pingBehind(lineFor('label', 'long_label'));
    expect(read.text).toMatch(/^\d+/);
    console.log(
      `16 MiB string: ping after ${refused.pingMs.toFixed(1)} ms refused unread, ${read.pingMs.toFixed(0)} ms read against the pattern (parse floor ${floor.pingMs.toFixed(1)} ms)`,
    );
    expect(refused.pingMs).toBeLessThan(BOUND_MS + floor.pingMs);
    expect(read.pingMs).toBeGreaterThan(refused.pingMs * 3);
  }, 120_000);
});

/** GET /health every 10 ms until `done` settles: the longest wait for an answer. */
async function pollHealth(
  base: URL,
  done: Promise<unknown>,
): Promise<{ worstMs: number; polls: number }> {
  let finished = false;
  void done.finally(() => (finished = true));
  let worstMs = 0;
  let polls = 0;
  while (!finished) {
    const started = performance.now();
    await new Promise<void>((resolve, reject) => {
      const req = request(new URL('/health', base), { agent: false }, (res) => {
        res.resume();
        res.on('end', resolve);
      });
      req.on('error', reject);
      req.end();
    });
    worstMs = Math.max(worstMs, performance.now() - started);
    polls += 1;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return { worstMs, polls };
}

interface HttpFlood {
  /** The longest /health waited while the eight bodies of argument keys were read. */
  worstMs: number;
  /** The same, while eight bodies of the same size but one string argument were read. */
  floorMs: number;
  texts: string[];
}

/** Posts eight bodies at once while /health is polled: the longest wait, and the answers. */
async function postEight(
  session: HttpSession,
  bodyOf: (id: number) => string,
): Promise<{ worstMs: number; texts: string[] }> {
  // Encoded before the clock starts: the client's own work is not the server's delay.
  const bodies = Array.from({ length: 8 }, (_, i) => Buffer.from(bodyOf(100 + i)));
  for (const body of bodies) {
    expect(body.length).toBeGreaterThan(4_000_000);
    expect(body.length).toBeLessThan(4 * 1024 * 1024);
  }
  const flood = Promise.all(
    bodies.map((bytes) =>
      postRaw(session.url, bytes, { sessionId: session.sessionId, timeoutMs: 120_000 }),
    ),
  );
  const [answers, health] = await Promise.all([flood, pollHealth(session.url, flood)]);
  expect(health.polls).toBeGreaterThan(0);
  const texts = answers.map(
    (answer) =>
      (answer.messages[0]?.result as { content: { text: string }[] } | undefined)?.content[0]
        ?.text ??
      answer.messages[0]?.error?.message ??
      answer.body.slice(0, 200),
  );
  return { worstMs: health.worstMs, texts };
}

/** A body of just under 4 MiB: 276,000 argument keys at the top level, or nested in one. */
type FloodBody = (id: number) => string;
const topLevelKeys: FloodBody = (id) =>
  `{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":{"name":"find_tools","arguments":${argumentsOf(276_000)}}}`;
const nestedKeys: FloodBody = (id) =>
  `{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":{"name":"find_tools","arguments":{"a":{"b":${argumentsOf(276_000)}}}}}`;

async function floodHttp(session: HttpSession, flood: FloodBody): Promise<HttpFlood> {
  // One ordinary call first, so what a first call loads is not counted as the flood's cost.
  await session.call(99, 'tools/call', { name: 'find_tools', arguments: { query: 'x' } });
  // The floor, measured in the same run: moving 32 MB through both processes on this
  // machine, in bodies any server reads cheaply (one long string, for no such tool).
  const floor = await postEight(
    session,
    (id) =>
      `{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":{"name":"no_such_tool","arguments":{"text":"${'x'.repeat(4_050_000)}"}}}`,
  );
  for (const text of floor.texts) expect(text).toMatch(/no_such_tool/);
  const keys = await postEight(session, flood);
  return { worstMs: keys.worstMs, floorMs: floor.worstMs, texts: keys.texts };
}

async function floodHttpServer(variant: Variant, flood = topLevelKeys): Promise<HttpFlood> {
  const child = spawnServer(variant, 'http');
  let stderr = '';
  child.stdout.resume();
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  try {
    for (let i = 0; i < 300 && !/on http:\/\/\S+\/mcp/.test(stderr); i++)
      await new Promise((resolve) => setTimeout(resolve, 50));
    const address = /on (http:\/\/\S+\/mcp)/.exec(stderr)?.[1];
    if (address === undefined) throw new Error(`The server did not start:\n${stderr}`);
    return await floodHttp(await openHttpSession(new URL(address)), flood);
  } finally {
    child.kill('SIGKILL');
  }
}

describe('eight 4 MB HTTP bodies of argument keys', () => {
  it('are refused by the built mcp while /health answers within 100 ms', async () => {
    const { worstMs, floorMs, texts } = await floodHttpServer('built');
    for (const text of texts) expect(text).toMatch(/more than 1000 argument keys/);
    // Generous on a loaded machine: the bound on top of what moving the bytes cost this run.
    expect(worstMs).toBeLessThan(BOUND_MS + floorMs);
  }, 120_000);

  it('keep /health waiting without the streaming rule, and not with it', async () => {
    const without = await floodHttpServer('rule off');
    const withRule = await floodHttpServer('rule on');
    expect(without.texts).toEqual(withRule.texts);
    console.log(
      `eight 4 MB bodies: /health waited up to ${without.worstMs.toFixed(0)} ms without the streaming rule, ${withRule.worstMs.toFixed(1)} ms with it (floor: ${withRule.floorMs.toFixed(1)} ms)`,
    );
    expect(withRule.worstMs).toBeLessThan(BOUND_MS + withRule.floorMs);
    expect(without.worstMs).toBeGreaterThan(withRule.worstMs * 5);
  }, 180_000);
});

describe('eight 4 MB HTTP bodies of keys nested in one argument', () => {
  it('are refused by the built mcp while /health answers within 100 ms', async () => {
    const { worstMs, floorMs, texts } = await floodHttpServer('built', nestedKeys);
    for (const text of texts)
      expect(text).toMatch(/^Invalid params: the message holds more than 50000 values/);
    expect(worstMs).toBeLessThan(BOUND_MS + floorMs);
  }, 120_000);

  it('keep /health waiting without the streaming rule, and not with it', async () => {
    const without = await floodHttpServer('rule off', nestedKeys);
    const withRule = await floodHttpServer('rule on', nestedKeys);
    for (const text of without.texts) expect(text).toMatch(/Invalid arguments for tool/);
    console.log(
      `eight 4 MB bodies of nested keys: /health waited up to ${without.worstMs.toFixed(0)} ms without the streaming rule, ${withRule.worstMs.toFixed(1)} ms with it (floor: ${withRule.floorMs.toFixed(1)} ms)`,
    );
    expect(withRule.worstMs).toBeLessThan(BOUND_MS + withRule.floorMs);
    expect(without.worstMs).toBeGreaterThan(withRule.worstMs * 5);
  }, 180_000);
});

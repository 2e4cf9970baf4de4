import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { once } from 'node:events';
import { readdirSync, readFileSync } from 'node:fs';
import { request } from 'node:http';
import path from 'node:path';
import { childEnv, cliBin, startHttpServe, type SpawnedServer } from '@toolpack/server/testing';

export const repo = path.resolve(import.meta.dirname, '..', '..');
export const fixtures = path.join(import.meta.dirname, 'fixtures');

export interface JsonRpcMessage {
  jsonrpc?: unknown;
  id?: unknown;
  method?: string;
  params?: unknown;
  result?: Record<string, unknown>;
  error?: { code: number; message: string; data?: unknown };
}

export const INITIALIZE_PARAMS = {
  protocolVersion: '2025-11-25',
  capabilities: {},
  clientInfo: { name: 'toolpack-system', version: '1.0.0' },
};

/**
 * A raw stdio peer of `mcp serve`: it writes whatever bytes a test wants and keeps every
 * message the server sends, so tests can count answers per id (lost or duplicated).
 */
export interface RawStdioServer {
  child: ChildProcessWithoutNullStreams;
  pid: number;
  /** Every message from stdout, in order. */
  messages: JsonRpcMessage[];
  /** stdout lines that were not JSON (a protocol-channel leak). */
  junk: string[];
  stderr(): string;
  write(data: string | Buffer): void;
  send(message: Record<string, unknown>): void;
  /** Sends a request with this id and resolves with the first answer carrying it. */
  request(
    id: number | string,
    method: string,
    params?: unknown,
    timeoutMs?: number,
  ): Promise<JsonRpcMessage>;
  /** All answers (not server requests/notifications) carrying `id`. */
  answersFor(id: unknown): JsonRpcMessage[];
  waitForAnswer(id: unknown, timeoutMs?: number): Promise<JsonRpcMessage>;
  exited: Promise<number | string>;
  kill(): void;
}

function isAnswer(message: JsonRpcMessage): boolean {
  return message.method === undefined && ('result' in message || 'error' in message);
}

export function spawnRawStdio(
  args: string[],
  options: { cwd: string; env?: Record<string, string> },
): RawStdioServer {
  const child = spawn(process.execPath, [cliBin, 'serve', ...args], {
    cwd: options.cwd,
    env: childEnv(options.env),
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  const messages: JsonRpcMessage[] = [];
  const junk: string[] = [];
  // Answers by id, and who waits for which id: a burst of 1,000 requests in flight must not
  // make every incoming chunk wake every waiter to scan every message (quadratic client work
  // that competed with the server for the same cores and inflated the load test's latencies).
  const answersById = new Map<unknown, JsonRpcMessage[]>();
  const waiters = new Map<unknown, Set<() => void>>();
  const wake = (id: unknown): void => {
    for (const waiter of waiters.get(id) ?? []) waiter();
  };
  let stderr = '';
  let buffer = '';
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (chunk: string) => {
    stderr = (stderr + chunk).slice(-50_000);
  });
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (chunk: string) => {
    buffer += chunk;
    let newline = buffer.indexOf('\n');
    while (newline !== -1) {
      const line = buffer.slice(0, newline).trim();
      buffer = buffer.slice(newline + 1);
      newline = buffer.indexOf('\n');
      if (line === '') continue;
      let message: JsonRpcMessage;
      try {
        message = JSON.parse(line) as JsonRpcMessage;
      } catch {
        junk.push(line.slice(0, 200));
        continue;
      }
      messages.push(message);
      if (!isAnswer(message)) continue;
      const known = answersById.get(message.id);
      if (known === undefined) answersById.set(message.id, [message]);
      else known.push(message);
      wake(message.id);
    }
  });
  // A server that died must not turn the next write into an unhandled EPIPE.
  child.stdin.on('error', () => undefined);
  const exited = once(child, 'exit').then(
    ([code, signal]) => (code as number | null) ?? String(signal),
  );
  child.once('exit', () => {
    for (const id of waiters.keys()) wake(id);
  });

  const answersFor = (id: unknown): JsonRpcMessage[] => [...(answersById.get(id) ?? [])];

  async function waitForAnswer(id: unknown, timeoutMs = 10_000): Promise<JsonRpcMessage> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = answersById.get(id)?.[0];
      if (found !== undefined) return found;
      const left = deadline - Date.now();
      if (left <= 0 || child.exitCode !== null || child.signalCode !== null)
        throw new Error(
          `No answer for id ${JSON.stringify(id)} within ${timeoutMs} ms.\nstderr:\n${stderr.slice(-3000)}`,
        );
      await new Promise<void>((resolve) => {
        const forId = waiters.get(id) ?? new Set<() => void>();
        waiters.set(id, forId);
        const done = (): void => {
          clearTimeout(timer);
          forId.delete(done);
          if (forId.size === 0) waiters.delete(id);
          resolve();
        };
        const timer = setTimeout(done, left);
        forId.add(done);
      });
    }
  }

  const server: RawStdioServer = {
    child,
    pid: child.pid ?? -1,
    messages,
    junk,
    stderr: () => stderr,
    write: (data) => {
      child.stdin.write(data);
    },
    send: (message) => {
      child.stdin.write(`${JSON.stringify(message)}\n`);
    },
    request: (id, method, params, timeoutMs) => {
      server.send({ jsonrpc: '2.0', id, method, ...(params === undefined ? {} : { params }) });
      return waitForAnswer(id, timeoutMs);
    },
    answersFor,
    waitForAnswer,
    exited,
    kill: () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    },
  };
  return server;
}

/** Spawns a raw stdio server and completes the MCP handshake. */
export async function startRawStdio(
  args: string[],
  options: { cwd: string; env?: Record<string, string> },
): Promise<RawStdioServer> {
  const server = spawnRawStdio(args, options);
  try {
    const answer = await server.request('init', 'initialize', INITIALIZE_PARAMS, 20_000);
    if (answer.error !== undefined) throw new Error(`initialize failed: ${answer.error.message}`);
    server.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    return server;
  } catch (error) {
    server.kill();
    throw error;
  }
}

export interface HttpAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  /** JSON-RPC messages in the body (plain JSON or SSE `data:` lines). */
  messages: JsonRpcMessage[];
  body: string;
}

/** Parses a Streamable HTTP answer body: one JSON value, or SSE events of JSON. */
export function parseHttpBody(body: string, contentType: string | undefined): JsonRpcMessage[] {
  if (body.trim() === '') return [];
  if (contentType?.includes('text/event-stream')) {
    const out: JsonRpcMessage[] = [];
    for (const line of body.split('\n')) {
      if (!line.startsWith('data:')) continue;
      const data = line.slice(5).trim();
      if (data === '') continue;
      const value = JSON.parse(data) as JsonRpcMessage | JsonRpcMessage[];
      out.push(...(Array.isArray(value) ? value : [value]));
    }
    return out;
  }
  const value = JSON.parse(body) as JsonRpcMessage | JsonRpcMessage[];
  return Array.isArray(value) ? value : [value];
}

/** One raw POST to the MCP endpoint; `signal` aborts it mid-flight. */
export function postRaw(
  url: URL,
  body: string | Buffer,
  options: {
    sessionId?: string;
    headers?: Record<string, string>;
    signal?: AbortSignal;
    timeoutMs?: number;
  } = {},
): Promise<HttpAnswer> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: url.hostname,
        port: url.port,
        path: url.pathname,
        method: 'POST',
        agent: false,
        signal: options.signal,
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          ...(options.sessionId === undefined
            ? {}
            : {
                'mcp-session-id': options.sessionId,
                'mcp-protocol-version': INITIALIZE_PARAMS.protocolVersion,
              }),
          ...options.headers,
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('error', reject);
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let messages: JsonRpcMessage[];
          try {
            messages = parseHttpBody(text, res.headers['content-type']);
          } catch {
            // Not JSON-RPC at all: the tests assert on `body` and `status` then.
            messages = [];
          }
          resolve({ status: res.statusCode ?? 0, headers: res.headers, messages, body: text });
        });
      },
    );
    req.on('error', reject);
    req.setTimeout(options.timeoutMs ?? 15_000, () => req.destroy(new Error('request timed out')));
    req.end(body);
  });
}

export interface HttpSession {
  url: URL;
  sessionId: string;
  post(
    message: unknown,
    options?: { signal?: AbortSignal; timeoutMs?: number },
  ): Promise<HttpAnswer>;
  /** A request with this id; resolves with its single answer (fails when there is not exactly one). */
  call(
    id: number | string,
    method: string,
    params?: unknown,
    timeoutMs?: number,
  ): Promise<JsonRpcMessage>;
}

export async function openHttpSession(url: URL): Promise<HttpSession> {
  const init = await postRaw(
    url,
    JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'initialize', params: INITIALIZE_PARAMS }),
  );
  const sessionId = init.headers['mcp-session-id'];
  if (init.status !== 200 || typeof sessionId !== 'string')
    throw new Error(`initialize over HTTP failed: ${init.status} ${init.body}`);
  await postRaw(url, JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }), {
    sessionId,
  });
  const session: HttpSession = {
    url,
    sessionId,
    post: (message, options = {}) =>
      postRaw(url, typeof message === 'string' ? message : JSON.stringify(message), {
        ...options,
        sessionId,
      }),
    call: async (id, method, params, timeoutMs) => {
      const answer = await session.post(
        { jsonrpc: '2.0', id, method, ...(params === undefined ? {} : { params }) },
        { timeoutMs },
      );
      const answers = answer.messages.filter((message) => isAnswer(message));
      if (answers.length !== 1)
        throw new Error(
          `Expected one answer for id ${JSON.stringify(id)}, got ${answers.length}: ${answer.status} ${answer.body.slice(0, 500)}`,
        );
      return answers[0] as JsonRpcMessage;
    },
  };
  return session;
}

export { startHttpServe, type SpawnedServer };

/** Parent pid of every live process, from /proc. */
function readParents(): Map<number, number> {
  const parents = new Map<number, number>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      // The command name may hold spaces and parentheses; fields resume after the last ')'.
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      parents.set(Number(entry), Number(fields[1]));
    } catch {
      // The process ended while we looked.
    }
  }
  return parents;
}

/** Pids of every live descendant of `pid`. */
export function listDescendants(pid: number): number[] {
  const parents = readParents();
  const found: number[] = [];
  const frontier = [pid];
  while (frontier.length > 0) {
    const current = frontier.pop() as number;
    for (const [child, parent] of parents) {
      if (parent === current && !found.includes(child)) {
        found.push(child);
        frontier.push(child);
      }
    }
  }
  return found;
}

/**
 * Pids whose command line holds `marker`: fixture grandchildren carry a unique
 * `sleep 4242.N` so they can be found even after they were re-parented away from the server.
 */
export function listProcessesWith(marker: string): number[] {
  const found: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    try {
      const cmdline = readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0').join(' ');
      const state = /^State:\s+(\S)/m.exec(readFileSync(`/proc/${entry}/status`, 'utf8'))?.[1];
      if (state !== 'Z' && cmdline.includes(marker)) found.push(Number(entry));
    } catch {
      // The process ended while we looked.
    }
  }
  return found;
}

/** Resident memory of `pid` in bytes (VmRSS). */
export function readRssBytes(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = /^VmRSS:\s+(\d+)\s+kB/m.exec(status)?.[1];
  if (kb === undefined) throw new Error(`No VmRSS for pid ${pid}`);
  return Number(kb) * 1024;
}

export async function sleep(ms: number): Promise<void> {
  await new Promise((resolve) => setTimeout(resolve, ms));
}

/** Polls until `check` is true or `timeoutMs` passed; returns the last value of `check`. */
export async function settle(check: () => boolean, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) return false;
    await sleep(50);
  }
  return true;
}

export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] as number;
}

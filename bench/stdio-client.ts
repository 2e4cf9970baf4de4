// A newline-delimited JSON-RPC client on a child's stdio, with no MCP SDK: every server the
// peers benchmark drives sees exactly the same client, so the client's cost cancels out.
import type { ChildProcessWithoutNullStreams } from 'node:child_process';

export interface StdioClient {
  child: ChildProcessWithoutNullStreams;
  request(method: string, params?: Record<string, unknown>): Promise<Record<string, unknown>>;
  /** Sends initialize, waits for its answer, then sends notifications/initialized. */
  initialize(): Promise<Record<string, unknown>>;
  /** Milliseconds for one request's round trip. */
  timed(method: string, params?: Record<string, unknown>): Promise<number>;
  /**
   * The next notification named `method` the server sends after this call, rejected after the
   * per-request limit (bench/reload.ts waits for tools/list_changed this way).
   */
  nextNotification(method: string): Promise<Record<string, unknown>>;
  /** What the child wrote to stderr so far (for error messages). */
  stderr(): string;
  close(): Promise<void>;
}

export interface StdioClientOptions {
  child: ChildProcessWithoutNullStreams;
  /** Per-request limit; a server that stops answering fails the run instead of hanging it. */
  timeoutMs?: number;
}

export function createStdioClient({ child, timeoutMs = 60_000 }: StdioClientOptions): StdioClient {
  let buffer = '';
  let nextId = 1;
  let stderr = '';
  const pending = new Map<number, (message: Record<string, unknown>) => void>();
  const waiting = new Map<string, ((message: Record<string, unknown>) => void)[]>();
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (chunk: string) => {
    buffer += chunk;
    let newline: number;
    while ((newline = buffer.indexOf('\n')) !== -1) {
      const line = buffer.slice(0, newline);
      buffer = buffer.slice(newline + 1);
      if (line.trim() === '') continue;
      let message: Record<string, unknown>;
      try {
        message = JSON.parse(line) as Record<string, unknown>;
      } catch {
        continue; // a peer printing junk on stdout would be its bug, not a reason to stop
      }
      if (message.id === undefined && typeof message.method === 'string') {
        const listeners = waiting.get(message.method) ?? [];
        waiting.delete(message.method);
        for (const listener of listeners) listener(message);
        continue;
      }
      const resolve = typeof message.id === 'number' ? pending.get(message.id) : undefined;
      if (resolve !== undefined) {
        pending.delete(message.id as number);
        resolve(message);
      }
    }
  });
  child.stderr.on('data', (chunk: Buffer) => {
    // Keep only the tail: chatty servers (mcp-framework logs every call) would grow it forever.
    stderr = (stderr + chunk.toString('utf8')).slice(-8_000);
  });
  // A server that dies mid-run must fail its pending requests at once, not at the timeout.
  child.stdin.on('error', () => {});
  child.on('exit', (code, signal) => {
    const answer = {
      error: { message: `the server exited (${signal ?? `code ${code}`}) before answering` },
    };
    for (const settle of pending.values()) settle(answer);
    pending.clear();
  });

  const request = (method: string, params: Record<string, unknown> = {}) => {
    const id = nextId++;
    return new Promise<Record<string, unknown>>((resolve, reject) => {
      const timer = setTimeout(() => {
        pending.delete(id);
        reject(new Error(`${method} timed out after ${timeoutMs} ms\n${stderr}`));
      }, timeoutMs);
      pending.set(id, (message) => {
        clearTimeout(timer);
        if (message.error !== undefined)
          reject(new Error(`${method}: ${JSON.stringify(message.error)}\n${stderr}`));
        else resolve(message.result as Record<string, unknown>);
      });
      child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, params })}\n`);
    });
  };

  return {
    child,
    request,
    async initialize() {
      const result = await request('initialize', {
        protocolVersion: '2025-06-18',
        capabilities: {},
        clientInfo: { name: 'toolpack-bench', version: '1.0.0' },
      });
      child.stdin.write(
        `${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n`,
      );
      return result;
    },
    async timed(method, params = {}) {
      const start = process.hrtime.bigint();
      await request(method, params);
      return Number(process.hrtime.bigint() - start) / 1e6;
    },
    nextNotification(method) {
      return new Promise((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new Error(`no ${method} within ${timeoutMs} ms\n${stderr}`)),
          timeoutMs,
        );
        const listeners = waiting.get(method) ?? [];
        listeners.push((message) => {
          clearTimeout(timer);
          resolve(message);
        });
        waiting.set(method, listeners);
      });
    },
    stderr: () => stderr,
    close() {
      return new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.stdin.end();
        // Some servers (FastMCP, mcp-framework) keep running after stdin ends.
        setTimeout(() => child.kill('SIGTERM'), 1_000).unref();
        setTimeout(() => child.kill('SIGKILL'), 5_000).unref();
      });
    },
  };
}

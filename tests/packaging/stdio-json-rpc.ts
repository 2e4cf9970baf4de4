import type { ChildProcessWithoutNullStreams } from 'node:child_process';

export interface JsonRpcMessage {
  jsonrpc: '2.0';
  id?: number | string;
  method?: string;
  params?: unknown;
  result?: Record<string, unknown>;
  error?: { code: number; message: string; data?: unknown };
}

export interface StdioJsonRpcClient {
  request(method: string, params?: unknown): Promise<JsonRpcMessage>;
  notify(method: string, params?: unknown): void;
  /** Everything the server wrote to stderr so far (its logs; for failure messages). */
  stderr(): string;
  /** Resolves with the exit code once the process ends, or rejects after `timeoutMs`. */
  exited(timeoutMs: number): Promise<number | null>;
}

/**
 * A raw MCP stdio client: newline-delimited JSON-RPC on the child's stdin/stdout, as the
 * spec's stdio transport defines it. Every request fails after `timeoutMs` with the
 * server's stderr, so a hung server fails the test instead of stalling it.
 */
export function connectStdio(
  child: ChildProcessWithoutNullStreams,
  options: { timeoutMs: number },
): StdioJsonRpcClient {
  const pending = new Map<number, (message: JsonRpcMessage) => void>();
  const malformed: string[] = [];
  let stderr = '';
  let buffer = '';
  let nextId = 1;
  let exitCode: number | null | undefined;
  const exitWaiters: ((code: number | null) => void)[] = [];

  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (chunk: string) => {
    stderr = (stderr + chunk).slice(-20_000);
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
        // Anything but JSON-RPC on stdout breaks real clients; keep it for the assertion.
        malformed.push(line);
        continue;
      }
      if (typeof message.id === 'number' && message.method === undefined) {
        pending.get(message.id)?.(message);
        pending.delete(message.id);
      }
    }
  });
  child.on('exit', (code) => {
    exitCode = code;
    for (const waiter of exitWaiters.splice(0)) waiter(code);
  });

  function describe(): string {
    const junk = malformed.length > 0 ? `\nnon-JSON stdout: ${malformed.join('\n')}` : '';
    return `server stderr:\n${stderr}${junk}`;
  }

  return {
    request(method, params) {
      const id = nextId++;
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
          pending.delete(id);
          reject(
            new Error(`No answer to ${method} within ${options.timeoutMs} ms.\n${describe()}`),
          );
        }, options.timeoutMs);
        pending.set(id, (message) => {
          clearTimeout(timer);
          if (malformed.length > 0)
            reject(new Error(`The server wrote non-protocol output.\n${describe()}`));
          else resolve(message);
        });
        child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, params })}\n`);
      });
    },
    notify(method, params) {
      child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', method, params })}\n`);
    },
    stderr: () => stderr,
    exited(timeoutMs) {
      if (exitCode !== undefined) return Promise.resolve(exitCode);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new Error(`The server did not exit within ${timeoutMs} ms.\n${describe()}`)),
          timeoutMs,
        );
        exitWaiters.push((code) => {
          clearTimeout(timer);
          resolve(code);
        });
      });
    },
  };
}

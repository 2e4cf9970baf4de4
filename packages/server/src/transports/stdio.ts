import type { Readable, Writable } from 'node:stream';
import { StdioServerTransport, serveStdio } from '@modelcontextprotocol/server/stdio';
import type { ToolpackServer } from '../toolpack-server.ts';
import { JsonRpcLineGuard } from './json-rpc-line-guard.ts';
import { createLifecycleGate } from './stdio-lifecycle-gate.ts';

const STDIO_MAX_LINE_BYTES = 16 * 1024 * 1024;

export interface StartStdioServerOptions {
  /** Default `process.stdin`. */
  stdin?: Readable;
  /** Default `process.stdout`. Nothing but protocol messages is ever written to it. */
  stdout?: Writable;
  /** Out-of-band protocol errors (a malformed line, a write to a closed pipe). */
  onError?(error: Error): void;
}

export interface StdioServerHandle {
  /** Resolves when the client is gone: stdin reached its end or was closed. */
  readonly closed: Promise<void>;
  close(): Promise<void>;
}

/**
 * Serves a Toolpack server over stdio through the SDK's `serveStdio`, which picks the
 * protocol era from the client's first message (2025 `initialize`, or the 2026 per-request
 * envelope) and pins one `Server` from our factory for the connection.
 */
export function startStdioServer(
  toolpack: ToolpackServer,
  options: StartStdioServerOptions = {},
): StdioServerHandle {
  const stdin = options.stdin ?? process.stdin;
  const stdout = options.stdout ?? process.stdout;
  let resolveClosed!: () => void;
  const closed = new Promise<void>((resolve) => {
    resolveClosed = resolve;
  });
  // The transport closes itself on stdin's end, but only tells the pinned instance; watch
  // the stream too so a client that exits before initializing still ends the server.
  const onEnd = () => resolveClosed();
  stdin.once('end', onEnd);
  stdin.once('close', onEnd);
  // Every line the SDK would drop silently (not JSON, not a JSON-RPC message, too long) is
  // answered here with its JSON-RPC error instead, so no client waits for an answer forever.
  const guard = new JsonRpcLineGuard({
    maxLineBytes: STDIO_MAX_LINE_BYTES,
    admit: createLifecycleGate(),
    reject: ({ id, code, message }) => {
      if (stdout.writableEnded || stdout.destroyed) return;
      stdout.write(`${JSON.stringify({ jsonrpc: '2.0', id, error: { code, message } })}\n`);
    },
  });
  stdin.pipe(guard);
  // The SDK's 10 MiB line limit would refuse a 10 MB argument object. Not much more: the
  // SDK's line buffer grows by copying, so its cost is quadratic in the line's length.
  // The guard already refuses longer lines; the SDK's limit sits just above it.
  const wire = new StdioServerTransport(guard, stdout, {
    maxBufferSize: STDIO_MAX_LINE_BYTES + 1024,
  });
  // A line over the limit makes the transport close itself without ending stdin: without
  // this the server would stay up but deaf, and the client would wait forever.
  const closeWire = wire.close.bind(wire);
  wire.close = async () => {
    await closeWire();
    resolveClosed();
  };
  const send = wire.send.bind(wire);
  // The tool list is serialized once per reload, not once per request (1,000 tools are a
  // third of a megabyte of JSON); everything else goes through the SDK as usual.
  wire.send = (message) => {
    const line = toolpack.serializeToolsListResponse(message);
    if (line === undefined || stdout.writableEnded || stdout.destroyed) return send(message);
    return new Promise<void>((resolve, reject) => {
      const onError = (error: Error) => reject(error);
      stdout.once('error', onError);
      const done = () => {
        stdout.off('error', onError);
        resolve();
      };
      if (stdout.write(line)) done();
      else stdout.once('drain', done);
    });
  };
  const handle = serveStdio(() => toolpack.createMcpServer(), {
    transport: wire,
    ...(options.onError === undefined ? {} : { onerror: options.onError }),
  });
  return {
    closed,
    async close() {
      stdin.off('end', onEnd);
      stdin.off('close', onEnd);
      stdin.unpipe(guard);
      await handle.close();
      resolveClosed();
    },
  };
}

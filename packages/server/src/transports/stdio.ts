import { PassThrough, type Readable, type Writable } from 'node:stream';
import { StdioServerTransport, serveStdio } from '@modelcontextprotocol/server/stdio';
import type { ToolpackServer } from '../toolpack-server.ts';
import { JsonRpcLineGuard } from './json-rpc-line-guard.ts';
import { createLifecycleGate } from './stdio-lifecycle-gate.ts';
import { createInFlightRequests } from './stdio-in-flight-requests.ts';
import { findToolsListLine } from './tools-list-line.ts';

const STDIO_MAX_LINE_BYTES = 16 * 1024 * 1024;

export interface StartStdioServerOptions {
  /** Default `process.stdin`. */
  stdin?: Readable;
  /** Default `process.stdout`. Nothing but protocol messages is ever written to it. */
  stdout?: Writable;
  /** Out-of-band protocol errors (a malformed line, a write to a closed pipe). */
  onError?(error: Error): void;
  /**
   * How long requests read before the end of input have to be answered once it came; calls
   * still running then are cancelled. Default `END_OF_INPUT_GRACE_MS`.
   */
  endOfInputGraceMs?: number;
}

/**
 * A request piped right before the end of input (`printf ... | mcp serve`) is answered when
 * it can be within this; a longer call is cancelled, so an abandoned server always exits.
 */
export const END_OF_INPUT_GRACE_MS = 3_000;

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
  // The SDK's transport aborts every request still in flight when its input ends, so a
  // client that writes its requests and closes stdin (`printf ... | mcp serve`) would lose
  // the answers. The transport listens to a relay instead, which ends once every request
  // that got through has been answered (or cancelled), or the grace is over: then the SDK
  // aborts what is still running, each call stopped as a cancelled one is (its processes
  // killed on the path a timeout takes), and is not answered. The messages themselves do
  // not travel through the relay: the guard hands each to the transport as it parsed it.
  const inFlight = createInFlightRequests();
  const relay = new PassThrough();
  const graceMs = options.endOfInputGraceMs ?? END_OF_INPUT_GRACE_MS;
  let inputEnded = false;
  const onEnd = () => {
    if (inputEnded) return;
    inputEnded = true;
    let graceTimer: NodeJS.Timeout | undefined;
    const graceOver = new Promise<void>((resolve) => {
      graceTimer = setTimeout(resolve, graceMs);
    });
    // A client that exits before initializing still ends the server: nothing is in flight.
    void Promise.race([inFlight.whenAllAnswered(), graceOver]).then(() => {
      clearTimeout(graceTimer);
      relay.end();
      resolveClosed();
    });
  };
  const lifecycleGate = createLifecycleGate();
  const wire = new StdioServerTransport(relay, stdout);
  let wireClosed = false;
  // Every line the SDK would drop silently (not JSON, not a JSON-RPC message, too long) is
  // answered here with its JSON-RPC error instead, so no client waits for an answer forever.
  const guard = new JsonRpcLineGuard({
    maxLineBytes: STDIO_MAX_LINE_BYTES,
    maxArgumentKeys: toolpack.maxArgumentKeys,
    admit: (message) => {
      const rejected = lifecycleGate(message);
      if (rejected === undefined) inFlight.noteIncoming(message);
      return rejected;
    },
    deliver: (message) => {
      if (wireClosed) return;
      // As the SDK's transport does with each message it reads itself.
      try {
        wire.onmessage?.(message);
      } catch (error) {
        wire.onerror?.(error as Error);
      }
    },
    reject: ({ id, code, message, data }) => {
      if (stdout.writableEnded || stdout.destroyed) return;
      const error = data === undefined ? { code, message } : { code, message, data };
      stdout.write(`${JSON.stringify({ jsonrpc: '2.0', id, error })}\n`);
    },
  });
  // The guard finishes after its last line was delivered, so every request is counted.
  guard.once('finish', onEnd);
  // A stdin destroyed without an end (an error) does not end the pipe: end it here.
  const onStdinClose = () => {
    if (!guard.writableEnded) guard.end();
  };
  stdin.once('close', onStdinClose);
  stdin.pipe(guard);
  // The transport closes itself on a write error to stdout, without stdin ending: the
  // server would stay up but deaf, and the client would wait forever.
  const closeWire = wire.close.bind(wire);
  wire.close = async () => {
    wireClosed = true;
    await closeWire();
    resolveClosed();
  };
  const sendThroughSdk = wire.send.bind(wire);
  // The tool list is serialized once per reload, not once per request (1,000 tools are a
  // third of a megabyte of JSON); everything else goes through the SDK as usual.
  const send: typeof wire.send = (message) => {
    const line = findToolsListLine(message);
    if (line === undefined || stdout.writableEnded || stdout.destroyed)
      return sendThroughSdk(message);
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
  // A request counts as answered once its answer was handed to stdout (or could not be).
  wire.send = (message) => send(message).finally(() => inFlight.noteOutgoing(message));
  const handle = serveStdio(() => toolpack.createMcpServer(), {
    transport: wire,
    ...(options.onError === undefined ? {} : { onerror: options.onError }),
  });
  return {
    closed,
    async close() {
      guard.off('finish', onEnd);
      stdin.off('close', onStdinClose);
      stdin.unpipe(guard);
      await handle.close();
      resolveClosed();
    },
  };
}

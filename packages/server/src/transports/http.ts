import { createHash, randomUUID, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { isIP } from 'node:net';
import os from 'node:os';
import type { NodeStreamableHTTPServerTransport } from '@modelcontextprotocol/node';
import {
  createMcpHandler,
  isInitializeRequest,
  isLegacyRequest,
  type Server,
} from '@modelcontextprotocol/server';
import { ToolpackError } from '@toolpack/core';
import type { ToolpackServer } from '../toolpack-server.ts';
import { createBodyReader } from './http-body-reader.ts';
import { createSessionTable } from './http-session-table.ts';
import { checkMessageEnvelope } from './json-rpc-envelope.ts';
import { checkToolCallHeaders } from './mcp-param-headers.ts';
import { createOriginCheck, normalizeOrigin } from './origin-check.ts';

export interface StartHttpServerOptions {
  /** Default `127.0.0.1`. Anything but loopback requires a `token`. */
  host?: string;
  /** Default 0: a free port (read it from the handle). */
  port?: number;
  /** Bearer token required on `/mcp` and `/metrics`. */
  token?: string;
  /** Extra Host names to accept besides loopback and this machine's own names. */
  allowedHosts?: readonly string[];
  /**
   * Browser origins (`http://localhost:5173`) that may call the server besides pages from
   * its own address. Requests without an Origin (non-browser clients) are not affected.
   */
  allowedOrigins?: readonly string[];
  /** Largest request body read. Default 4 MiB. */
  maxBodyBytes?: number;
  /**
   * Bytes of request bodies being read at once, all requests together; a request that
   * would pass it gets 503 with Retry-After. Default 64 MiB.
   */
  maxBufferedBodyBytes?: number;
  /** A request body must arrive within this many ms of its headers, else 408. Default 30 s. */
  bodyTimeoutMs?: number;
  /**
   * Open 2025-era sessions at most. A new one evicts the session idle the longest; when
   * every session has a request in flight it is refused with 503. Default 256.
   */
  maxSessions?: number;
  /** A 2025-era session without a request in flight for this long is closed. Default 30 min. */
  sessionIdleTimeoutMs?: number;
  onError?(error: Error): void;
}

export interface HttpServerHandle {
  /** `http://host:port/mcp` */
  readonly url: string;
  readonly host: string;
  readonly port: number;
  close(): Promise<void>;
}

const MCP_PATH = '/mcp';
const LOOPBACK_NAMES = ['localhost', '127.0.0.1', '[::1]'];

export function isLoopbackHost(host: string): boolean {
  const bare = host.replace(/^\[|\]$/g, '');
  return bare === 'localhost' || bare === '::1' || (isIP(bare) === 4 && bare.startsWith('127.'));
}

/** The names a browser or client may put in Host/Origin for a server bound to `host`. */
export function allowedHostnamesFor(host: string, extra: readonly string[] = []): string[] {
  const names = new Set(LOOPBACK_NAMES);
  const bracket = (address: string) => (isIP(address) === 6 ? `[${address}]` : address);
  for (const name of extra) names.add(bracket(name.toLowerCase()));
  if (isLoopbackHost(host)) return [...names];
  const wildcard = host === '0.0.0.0' || host === '::' || host === '[::]';
  if (!wildcard) names.add(bracket(host.replace(/^\[|\]$/g, '').toLowerCase()));
  // Bound to every interface: the machine's own names and addresses are what clients use.
  names.add(os.hostname().toLowerCase());
  for (const addresses of Object.values(os.networkInterfaces())) {
    for (const address of addresses ?? []) {
      if (wildcard || address.address === host)
        names.add(bracket(address.address.split('%')[0] ?? address.address));
    }
  }
  return [...names];
}

function digest(value: string): Buffer {
  return createHash('sha256').update(value).digest();
}

function writeJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  if (res.headersSent) {
    res.end();
    return;
  }
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}

function rpcError(code: number, message: string, id: string | number | null = null): unknown {
  return { jsonrpc: '2.0', error: { code, message }, id };
}

/** The ids of the requests in a posted body (one message or a batch). */
function listRequestIds(body: unknown): (string | number)[] {
  const messages = Array.isArray(body) ? (body as unknown[]) : [body];
  const ids: (string | number)[] = [];
  for (const message of messages) {
    if (typeof message !== 'object' || message === null) continue;
    const { id, method } = message as { id?: unknown; method?: unknown };
    if (typeof method === 'string' && (typeof id === 'string' || typeof id === 'number'))
      ids.push(id);
  }
  return ids;
}

/** The request a posted `notifications/cancelled` names, if that is what the body is. */
function readCancelledRequestId(body: unknown): string | number | undefined {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return undefined;
  const { method, params } = body as { method?: unknown; params?: { requestId?: unknown } };
  if (method !== 'notifications/cancelled') return undefined;
  const requestId = params?.requestId;
  return typeof requestId === 'string' || typeof requestId === 'number' ? requestId : undefined;
}

interface Session {
  transport: NodeStreamableHTTPServerTransport;
  server: Server;
  close(): Promise<void>;
}

const DEFAULT_SESSION_IDLE_TIMEOUT_MS = 30 * 60 * 1000;

/**
 * Serves a Toolpack server over Streamable HTTP at `/mcp`, plus `/health` and Prometheus
 * `/metrics`. 2025-era clients get stateful sessions (so `list_changed`, logging levels
 * and cancellation work across requests); 2026-era requests, which carry their protocol
 * version in every message, go to the SDK's per-request handler. Every request passes the
 * Host and Origin checks first (DNS rebinding), then the bearer token when one is set.
 */
export async function startHttpServer(
  toolpack: ToolpackServer,
  options: StartHttpServerOptions = {},
): Promise<HttpServerHandle> {
  const host = options.host ?? '127.0.0.1';
  const token = options.token === '' ? undefined : options.token;
  if (!isLoopbackHost(host) && token === undefined) {
    throw new ToolpackError(
      'E_HTTP_TOKEN',
      `Refusing to serve HTTP on ${host} without a token: anyone who can reach that address could run your tools.`,
      { hint: 'Pass --token <secret> (or set TOOLPACK_TOKEN), or bind to 127.0.0.1.' },
    );
  }
  for (const origin of options.allowedOrigins ?? []) {
    if (normalizeOrigin(origin) === undefined) {
      throw new ToolpackError(
        'E_HTTP_ORIGIN',
        `Not an origin: ${JSON.stringify(origin)}. An allowed origin is a scheme, a host and an optional port.`,
        { hint: 'Write it as the browser sends it, e.g. --allowed-origin http://localhost:5173.' },
      );
    }
  }
  // Loaded only for HTTP: a stdio server does not carry the Node HTTP adapter (hono).
  const {
    NodeStreamableHTTPServerTransport: HttpTransport,
    hostHeaderValidation,
    toNodeHandler,
    toWebRequest,
  } = await import('@modelcontextprotocol/node');
  const maxBodyBytes = options.maxBodyBytes ?? 4 * 1024 * 1024;
  const maxSessions = options.maxSessions ?? 256;
  const reportError = (error: unknown) =>
    options.onError?.(error instanceof Error ? error : new Error(String(error)));
  const allowed = allowedHostnamesFor(host, options.allowedHosts);
  const checkHost = hostHeaderValidation(allowed);
  let boundPort = 0;
  const checkOrigin = createOriginCheck({
    hostnames: allowed,
    port: () => boundPort,
    ...(options.allowedOrigins === undefined ? {} : { allowedOrigins: options.allowedOrigins }),
  });
  const bodies = createBodyReader({
    maxBodyBytes,
    maxBufferedBytes: options.maxBufferedBodyBytes ?? 64 * 1024 * 1024,
    timeoutMs: options.bodyTimeoutMs ?? 30_000,
    maxArgumentKeys: toolpack.maxArgumentKeys,
  });
  const expected = token === undefined ? undefined : digest(token);
  const isAuthorized = (req: IncomingMessage): boolean => {
    if (expected === undefined) return true;
    const header = req.headers.authorization ?? '';
    const match = /^Bearer\s+(.+)$/i.exec(header);
    return match?.[1] !== undefined && timingSafeEqual(digest(match[1].trim()), expected);
  };

  const sessions = createSessionTable<Session>({
    maxSessions,
    idleTimeoutMs: options.sessionIdleTimeoutMs ?? DEFAULT_SESSION_IDLE_TIMEOUT_MS,
    onError: reportError,
  });
  const modern = createMcpHandler(() => toolpack.createMcpServer({ track: false }), {
    legacy: 'reject',
    onerror: reportError,
    maxRequestBodySize: maxBodyBytes,
  });
  const serveModern = toNodeHandler(modern, {
    onerror: reportError,
    maxRequestBodySize: maxBodyBytes,
  });
  const stopNotifying = toolpack.onToolsChanged(() => modern.notify.toolsChanged());

  const handleMcp = async (req: IncomingMessage, res: ServerResponse) => {
    let body: unknown;
    if (req.method === 'POST') {
      const read = await bodies.read(req);
      if (!read.ok) {
        if (read.status === 0) return;
        if (read.status === 400) {
          writeJson(
            res,
            400,
            rpcError(read.rejected.code, read.rejected.message, read.rejected.id),
          );
          return;
        }
        // The rest of the body is not read: close the connection once answered.
        res.once('finish', () => req.destroy());
        // 413 is the request's fault (-32600); 408 and 503 are the server protecting itself.
        const code = read.status === 413 ? -32600 : -32000;
        writeJson(res, read.status, rpcError(code, read.message), {
          connection: 'close',
          ...(read.status === 503 ? { 'retry-after': '1' } : {}),
        });
        return;
      }
      try {
        body = JSON.parse(read.text);
      } catch {
        writeJson(res, 400, rpcError(-32700, 'Parse error: the request body is not JSON.'));
        return;
      }
      // The same envelope rules as stdio, so both transports give a bad message the same
      // answer. A batch is refused on both eras: 2025-06-18 removed batching, and the
      // SDK's 2025 session transport would still have served one.
      if (Array.isArray(body)) {
        writeJson(
          res,
          400,
          rpcError(
            -32600,
            'Invalid Request: JSON-RPC batches are not supported (MCP 2025-06-18 removed them); send one message per request.',
          ),
        );
        return;
      }
      const rejected = checkMessageEnvelope(body);
      if (rejected !== undefined) {
        writeJson(res, 400, rpcError(rejected.code, rejected.message, rejected.id));
        return;
      }
    }
    const request = await toWebRequest(req, body);
    if (!(await isLegacyRequest(request, body))) {
      // The SDK checks these headers only for tools of its high-level McpServer. The
      // declarations are the listed ones: a client mirrors what its tools/list showed it.
      const mismatch = checkToolCallHeaders(toolpack.listed, body, req.headers);
      if (mismatch !== undefined) {
        const id = (body as { id?: string | number }).id ?? null;
        writeJson(res, 400, {
          jsonrpc: '2.0',
          id,
          error: {
            code: -32020,
            message: `Bad Request: the request headers and body disagree: ${mismatch.message}`,
            data: { mismatch: { header: mismatch.header } },
          },
        });
        return;
      }
      await serveModern(req, res, body);
      return;
    }
    const sessionId = req.headers['mcp-session-id'];
    if (typeof sessionId === 'string') {
      const session = sessions.get(sessionId);
      if (session === undefined) {
        writeJson(
          res,
          404,
          rpcError(
            -32001,
            'Session not found: it expired, was closed to make room for a new one, or the server restarted. Initialize again.',
          ),
        );
        return;
      }
      const end = sessions.begin(sessionId);
      // A client that disconnects mid-call cancels it, as notifications/cancelled would:
      // otherwise the call runs to its timeout holding a process slot nobody waits for.
      const ids = req.method === 'POST' ? listRequestIds(body) : [];
      res.once('close', () => {
        end();
        if (res.writableFinished) return;
        for (const requestId of ids) {
          session.transport.onmessage?.({
            jsonrpc: '2.0',
            method: 'notifications/cancelled',
            params: { requestId, reason: 'The client disconnected.' },
          });
        }
      });
      await session.transport.handleRequest(req, res, body);
      // A cancelled request gets no answer (the spec says so): end the stream that waits
      // for one instead of holding it open until the session ends.
      const cancelled = readCancelledRequestId(body);
      if (cancelled !== undefined) session.transport.closeSSEStream(cancelled);
      return;
    }
    if (req.method !== 'POST' || !isInitializeRequest(body)) {
      writeJson(
        res,
        400,
        rpcError(-32000, 'Bad Request: send initialize first, then the Mcp-Session-Id it returns.'),
      );
      return;
    }
    if (!sessions.makeRoom()) {
      writeJson(
        res,
        503,
        rpcError(
          -32000,
          `Too many open sessions (${maxSessions}), each with a request in flight; retry shortly.`,
        ),
        { 'retry-after': '5' },
      );
      return;
    }
    const server = toolpack.createMcpServer();
    const transport: NodeStreamableHTTPServerTransport = new HttpTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => {
        sessions.add(id, {
          transport,
          server,
          async close() {
            await transport.close();
            await server.close();
          },
        });
      },
      onsessionclosed: (id) => {
        sessions.remove(id);
        server.close().catch(reportError);
      },
    });
    await server.connect(transport);
    await transport.handleRequest(req, res, body);
  };

  // Headers that trickle in hold a connection: 10 s is plenty for any client, and Node
  // only checks every connectionsCheckingInterval (30 s by default).
  const httpServer = createServer(
    { headersTimeout: 10_000, connectionsCheckingInterval: 2_000 },
    (req, res) => {
      const url = new URL(req.url ?? '/', 'http://localhost');
      if (!checkHost(req, res)) return;
      const badOrigin = checkOrigin(req);
      if (badOrigin !== undefined) {
        writeJson(res, 403, rpcError(-32000, badOrigin));
        return;
      }
      if (url.pathname === '/health') {
        writeJson(res, 200, {
          status: 'ok',
          name: toolpack.name,
          version: toolpack.version,
          tools: toolpack.tools.length,
        });
        return;
      }
      if (url.pathname !== MCP_PATH && url.pathname !== '/metrics') {
        writeJson(res, 404, { error: `Not found: the MCP endpoint is ${MCP_PATH}.` });
        return;
      }
      if (!isAuthorized(req)) {
        writeJson(res, 401, rpcError(-32001, 'Unauthorized: send Authorization: Bearer <token>.'), {
          'www-authenticate': 'Bearer realm="toolpack"',
        });
        return;
      }
      if (url.pathname === '/metrics') {
        toolpack.metrics.render().then(
          (text) => {
            res.writeHead(200, { 'content-type': toolpack.metrics.contentType });
            res.end(text);
          },
          (error: unknown) => {
            reportError(error);
            writeJson(res, 500, { error: 'metrics failed' });
          },
        );
        return;
      }
      handleMcp(req, res).catch((error: unknown) => {
        reportError(error);
        writeJson(res, 500, rpcError(-32603, 'Internal error.'));
      });
    },
  );

  await new Promise<void>((resolve, reject) => {
    httpServer.once('error', reject);
    httpServer.listen(options.port ?? 0, host.replace(/^\[|\]$/g, ''), () => {
      httpServer.off('error', reject);
      resolve();
    });
  });
  const address = httpServer.address() as AddressInfo;
  boundPort = address.port;
  const shownHost = isIP(address.address) === 6 ? `[${address.address}]` : address.address;

  let closing: Promise<void> | undefined;
  return {
    url: `http://${shownHost}:${address.port}${MCP_PATH}`,
    host: address.address,
    port: address.port,
    close() {
      closing ??= (async () => {
        stopNotifying();
        await sessions.close();
        await modern.close();
        httpServer.closeAllConnections();
        await new Promise<void>((resolve) => httpServer.close(() => resolve()));
      })();
      return closing;
    },
  };
}

import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Diagnostic } from '@toolpack/core';

export type ReadBodyResult =
  { ok: true; bytes: Buffer } | { ok: false; reason: 'too-large' | 'aborted' | 'cancelled' };

/**
 * Reads a request body up to `maxBytes`. Past the cap it stops keeping bytes and reports
 * `too-large`; the caller answers 413 and `discardBody` drains the rest, so the client
 * hears the answer instead of a reset connection.
 */
export function readBody(
  request: IncomingMessage,
  maxBytes: number,
  signal?: AbortSignal,
): Promise<ReadBodyResult> {
  return new Promise((resolve) => {
    // `cancelled`: `signal` gave up on a body still arriving (a closing registry).
    if (signal?.aborted === true) {
      resolve({ ok: false, reason: 'cancelled' });
      return;
    }
    const chunks: Buffer[] = [];
    let received = 0;
    let settled = false;
    const settle = (result: ReadBodyResult) => {
      if (settled) return;
      settled = true;
      request.off('data', onData);
      request.off('end', onEnd);
      request.off('error', onError);
      request.off('aborted', onError);
      signal?.removeEventListener('abort', onCancel);
      resolve(result);
    };
    const onData = (chunk: Buffer) => {
      received += chunk.length;
      if (received > maxBytes) {
        request.pause();
        settle({ ok: false, reason: 'too-large' });
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = () => settle({ ok: true, bytes: Buffer.concat(chunks) });
    const onError = () => settle({ ok: false, reason: 'aborted' });
    const onCancel = () => {
      request.pause();
      settle({ ok: false, reason: 'cancelled' });
    };
    signal?.addEventListener('abort', onCancel, { once: true });
    request.on('data', onData);
    request.on('end', onEnd);
    request.on('error', onError);
    request.on('aborted', onError);
  });
}

/**
 * Throws away the rest of a body we will not read, up to a bound; a client still sending
 * past it is cut off. Answers carry `Connection: close` so the socket is not reused. It
 * settles once the body has ended or was cut off: an answer that must reach a client still
 * writing waits for it.
 */
export function discardBody(request: IncomingMessage, maxBytes: number): Promise<void> {
  if (request.readableEnded) return Promise.resolve();
  return new Promise((resolve) => {
    let drained = 0;
    request.on('data', (chunk: Buffer) => {
      drained += chunk.length;
      if (drained > maxBytes) request.destroy();
    });
    request.on('error', () => {});
    request.once('end', resolve);
    request.once('close', resolve);
    request.resume();
  });
}

export interface ErrorBody {
  code: Diagnostic['code'];
  message: string;
  hint?: string;
  problems?: Diagnostic[];
}

/** Headers every answer carries. */
const BASE_HEADERS = {
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
} as const;

export function sendJson(
  response: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  const text = JSON.stringify(body);
  response.writeHead(status, {
    ...BASE_HEADERS,
    'content-type': 'application/json; charset=utf-8',
    'content-length': String(Buffer.byteLength(text)),
    'access-control-allow-origin': '*',
    'cache-control': 'no-cache',
    ...headers,
  });
  response.end(response.req.method === 'HEAD' ? undefined : text);
}

/**
 * `{ "error": { code, message, hint? }, "problems": [...] }`: `@toolpack/packs`' client
 * reads `error.message` and every problem's `message`, `path`, `line` and `code`.
 */
export function sendError(
  response: ServerResponse,
  status: number,
  error: ErrorBody,
  headers: Record<string, string> = {},
): void {
  const { problems, ...rest } = error;
  sendJson(response, status, { error: rest, problems: problems ?? [] }, headers);
}

export function sendText(
  response: ServerResponse,
  status: number,
  contentType: string,
  body: string,
  headers: Record<string, string> = {},
): void {
  response.writeHead(status, {
    ...BASE_HEADERS,
    'content-type': contentType,
    'content-length': String(Buffer.byteLength(body)),
    ...headers,
  });
  response.end(response.req.method === 'HEAD' ? undefined : body);
}

/** The client's address: the socket's, or with `trustProxy` the first `X-Forwarded-For` hop. */
export function getClientAddress(request: IncomingMessage, trustProxy: boolean): string {
  if (trustProxy) {
    const forwarded = request.headers['x-forwarded-for'];
    const first = (Array.isArray(forwarded) ? forwarded[0] : forwarded)?.split(',')[0]?.trim();
    if (first !== undefined && first !== '') return first;
  }
  return request.socket.remoteAddress ?? 'unknown';
}

import type { IncomingMessage } from 'node:http';
import { createArgumentKeyLimiter } from './argument-key-limiter.ts';
import {
  MAX_MESSAGE_DEPTH,
  MAX_MESSAGE_VALUES,
  type RejectedMessage,
} from './json-rpc-envelope.ts';

export type BodyRead =
  | { ok: true; text: string }
  /** Read whole, and refused for its keys or nesting while it was read (answered with 400). */
  | { ok: false; status: 400; rejected: RejectedMessage }
  /** `status` 0: the client went away; nothing can be answered. */
  | { ok: false; status: 0 | 408 | 413 | 503; message: string };

export interface BodyReader {
  read(req: IncomingMessage): Promise<BodyRead>;
  /** Bytes of bodies being read right now, all requests together. */
  readonly bufferedBytes: number;
}

export interface BodyReaderOptions {
  /** Largest single body. */
  maxBodyBytes: number;
  /** Most bytes of all bodies being read at once; a request that would pass it gets 503. */
  maxBufferedBytes: number;
  /** A body not complete this long after its headers gets 408. */
  timeoutMs: number;
  /**
   * Decide the argument-key limit while a body arrives (argument-key-limiter.ts): arguments
   * past it come out as their first `maxArgumentKeys + 1` keys, never parsed whole; a body
   * past `MAX_MESSAGE_VALUES` values at any depth or `MAX_MESSAGE_DEPTH` levels is refused.
   */
  maxArgumentKeys?: number;
}

/**
 * Reads request bodies under two caps: one body, and all bodies in flight together, so
 * stalled uploads cannot pile up memory (250 stalled 4 MB uploads once held 1 GB), and a
 * deadline, so a trickling client cannot hold its share forever.
 */
export function createBodyReader(options: BodyReaderOptions): BodyReader {
  let buffered = 0;
  return {
    get bufferedBytes() {
      return buffered;
    },
    read(req) {
      return new Promise<BodyRead>((resolve) => {
        const chunks: Buffer[] = [];
        const limiter =
          options.maxArgumentKeys === undefined
            ? undefined
            : createArgumentKeyLimiter({
                maxArgumentKeys: options.maxArgumentKeys,
                maxMessageValues: MAX_MESSAGE_VALUES,
                maxDepth: MAX_MESSAGE_DEPTH,
              });
        let size = 0;
        let settled = false;
        const settle = (result: BodyRead) => {
          if (settled) return;
          settled = true;
          clearTimeout(timer);
          buffered -= size;
          req.off('data', onData);
          req.off('end', onEnd);
          req.off('error', onGone);
          req.off('close', onGone);
          resolve(result);
        };
        const onData = (chunk: Buffer) => {
          if (size + chunk.length > options.maxBodyBytes) {
            settle({
              ok: false,
              status: 413,
              message: `Request body larger than ${options.maxBodyBytes} bytes.`,
            });
            return;
          }
          if (buffered + chunk.length > options.maxBufferedBytes) {
            settle({
              ok: false,
              status: 503,
              message: `The server is reading too many request bodies at once (${options.maxBufferedBytes} bytes); retry shortly.`,
            });
            return;
          }
          buffered += chunk.length;
          size += chunk.length;
          // Read as it arrives: a body's cost is spread over its chunks, and /health and
          // other requests are answered between them.
          if (limiter === undefined) chunks.push(chunk);
          else limiter.push(chunk);
        };
        const onEnd = () => {
          const limited = limiter?.finish() ?? { bytes: Buffer.concat(chunks, size) };
          settle(
            'bytes' in limited
              ? { ok: true, text: limited.bytes.toString('utf8') }
              : { ok: false, status: 400, rejected: limited.refused },
          );
        };
        const onGone = () => settle({ ok: false, status: 0, message: 'The client went away.' });
        const timer = setTimeout(
          () =>
            settle({
              ok: false,
              status: 408,
              message: `The request body did not arrive within ${options.timeoutMs} ms.`,
            }),
          options.timeoutMs,
        );
        req.on('data', onData);
        req.on('end', onEnd);
        req.on('error', onGone);
        req.on('close', onGone);
      });
    },
  };
}

import { Transform, type TransformCallback } from 'node:stream';
import { checkMessageEnvelope, type RejectedMessage } from './json-rpc-envelope.ts';

const NEWLINE = 0x0a;

/**
 * Sits between stdin and the SDK's stdio transport, which drops lines that are not JSON and
 * only logs invalid messages: here each such line gets its JSON-RPC error answer (-32700,
 * -32600, -32602) and is not passed on, so every request a client sends is answered. A
 * line over `maxLineBytes` is answered and skipped instead of ending the connection.
 */
export class JsonRpcLineGuard extends Transform {
  readonly #reject: (rejected: RejectedMessage) => void;
  readonly #maxLineBytes: number;
  #pending: Buffer[] = [];
  #pendingBytes = 0;
  #discarding = false;

  constructor(options: { maxLineBytes: number; reject(rejected: RejectedMessage): void }) {
    super();
    this.#reject = options.reject;
    this.#maxLineBytes = options.maxLineBytes;
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    let start = 0;
    for (
      let newline = chunk.indexOf(NEWLINE);
      newline >= 0;
      newline = chunk.indexOf(NEWLINE, start)
    ) {
      this.#append(chunk.subarray(start, newline));
      this.#finishLine();
      start = newline + 1;
    }
    this.#append(chunk.subarray(start));
    callback();
  }

  override _flush(callback: TransformCallback): void {
    if (this.#pendingBytes > 0 || this.#discarding) this.#finishLine();
    callback();
  }

  #append(part: Buffer): void {
    if (this.#discarding || part.length === 0) return;
    if (this.#pendingBytes + part.length > this.#maxLineBytes) {
      this.#pending = [];
      this.#pendingBytes = 0;
      this.#discarding = true;
      return;
    }
    this.#pending.push(part);
    this.#pendingBytes += part.length;
  }

  #finishLine(): void {
    if (this.#discarding) {
      this.#discarding = false;
      this.#reject({
        id: null,
        code: -32600,
        message: `Invalid Request: the message is longer than ${this.#maxLineBytes} bytes.`,
      });
      return;
    }
    const line = Buffer.concat(this.#pending, this.#pendingBytes);
    this.#pending = [];
    this.#pendingBytes = 0;
    const text = line.toString('utf8').trim();
    if (text === '') return;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (error) {
      this.#reject({ id: null, code: -32700, message: `Parse error: ${(error as Error).message}` });
      return;
    }
    const rejected = checkMessageEnvelope(value);
    if (rejected !== undefined) {
      this.#reject(rejected);
      return;
    }
    this.push(Buffer.concat([line, Buffer.from('\n')]));
  }
}

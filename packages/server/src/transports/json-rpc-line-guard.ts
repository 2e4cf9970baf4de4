import { Writable } from 'node:stream';
import type { JSONRPCMessage } from '@modelcontextprotocol/server';
import { createArgumentKeyLimiter, type ArgumentKeyLimiter } from './argument-key-limiter.ts';
import {
  MAX_MESSAGE_DEPTH,
  MAX_MESSAGE_VALUES,
  readMessageEnvelope,
  type RejectedMessage,
} from './json-rpc-envelope.ts';

const NEWLINE = 0x0a;
const BYTE_ORDER_MARK = '\uFEFF';
const JSON_WHITESPACE_ONLY = /^[ \t\r]*$/;

export interface JsonRpcLineGuardOptions {
  maxLineBytes: number;
  /**
   * Decide the argument-key limit while a line is read (argument-key-limiter.ts): arguments
   * past it reach the server as their first `maxArgumentKeys + 1` keys, never parsed whole;
   * and a line past `MAX_MESSAGE_VALUES` values at any depth or `MAX_MESSAGE_DEPTH` levels is
   * answered with its refusal, never kept or parsed.
   */
  maxArgumentKeys?: number;
  /** Each message that passed, parsed and checked against the SDK's message schema once. */
  deliver(message: JSONRPCMessage): void;
  reject(rejected: RejectedMessage): void;
  /** A last say on a well-formed message (the MCP lifecycle); undefined lets it through. */
  admit?(message: Record<string, unknown>): RejectedMessage | undefined;
}

/**
 * Reads stdin's lines for the SDK's stdio transport, which drops lines that are not JSON and
 * only logs invalid messages: here each such line gets its JSON-RPC error answer (-32700,
 * -32600, -32602) and is not passed on, so every request a client sends is answered. A
 * line over `maxLineBytes` is answered and skipped instead of ending the connection.
 * A message that passes is delivered as parsed here: the transport would otherwise parse the
 * same line and check it against the same schema again (two JSON parses and two schema checks
 * per request). 'finish' comes after the last line was delivered.
 */
export class JsonRpcLineGuard extends Writable {
  readonly #deliver: (message: JSONRPCMessage) => void;
  readonly #reject: (rejected: RejectedMessage) => void;
  readonly #admit: JsonRpcLineGuardOptions['admit'];
  readonly #maxLineBytes: number;
  readonly #limiter: ArgumentKeyLimiter | undefined;
  #pending: Buffer[] = [];
  #pendingBytes = 0;
  /** Bytes of the line as sent (what the line cap counts), whatever is kept of them. */
  #lineBytes = 0;
  #discarding = false;

  constructor(options: JsonRpcLineGuardOptions) {
    super();
    this.#deliver = options.deliver;
    this.#reject = options.reject;
    this.#admit = options.admit;
    this.#maxLineBytes = options.maxLineBytes;
    this.#limiter =
      options.maxArgumentKeys === undefined
        ? undefined
        : createArgumentKeyLimiter({
            maxArgumentKeys: options.maxArgumentKeys,
            maxMessageValues: MAX_MESSAGE_VALUES,
            maxDepth: MAX_MESSAGE_DEPTH,
          });
  }

  override _write(chunk: Buffer, _encoding: BufferEncoding, callback: () => void): void {
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

  override _final(callback: () => void): void {
    if (this.#lineBytes > 0 || this.#discarding) this.#finishLine();
    callback();
  }

  #append(part: Buffer): void {
    if (this.#discarding || part.length === 0) return;
    if (this.#lineBytes + part.length > this.#maxLineBytes) {
      this.#pending = [];
      this.#pendingBytes = 0;
      this.#lineBytes = 0;
      this.#limiter?.reset();
      this.#discarding = true;
      return;
    }
    this.#lineBytes += part.length;
    if (this.#limiter !== undefined) {
      this.#limiter.push(part);
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
    // A line that arrived in one chunk (the usual case) is read where it lies, not copied.
    const [first] = this.#pending;
    const limited = this.#limiter?.finish();
    const line =
      limited !== undefined
        ? 'bytes' in limited
          ? limited.bytes
          : undefined
        : this.#pending.length === 1 && first !== undefined
          ? first
          : Buffer.concat(this.#pending, this.#pendingBytes);
    this.#pending = [];
    this.#pendingBytes = 0;
    this.#lineBytes = 0;
    if (line === undefined) {
      this.#reject((limited as { refused: RejectedMessage }).refused);
      return;
    }
    // Not trimmed: String#trim also strips a byte-order mark and Unicode spaces, which the
    // SDK's own line reader (JSON.parse of the line as it is) refuses: they are refused here too.
    const text = line.toString('utf8');
    if (JSON_WHITESPACE_ONLY.test(text)) return;
    if (text.startsWith(BYTE_ORDER_MARK)) {
      this.#reject({
        id: null,
        code: -32700,
        message: 'Parse error: the line starts with a byte-order mark; send UTF-8 without one.',
      });
      return;
    }
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (error) {
      this.#reject({ id: null, code: -32700, message: `Parse error: ${(error as Error).message}` });
      return;
    }
    const read = readMessageEnvelope(value);
    const rejected =
      'rejected' in read ? read.rejected : this.#admit?.(value as Record<string, unknown>);
    if (rejected !== undefined) {
      this.#reject(rejected);
      return;
    }
    this.#deliver((read as { message: JSONRPCMessage }).message);
  }
}

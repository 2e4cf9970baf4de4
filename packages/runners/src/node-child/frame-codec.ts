// The call channel between the server and a module's child: each message is a 4-byte
// big-endian length, then that many bytes of UTF-8 JSON. The length comes first so a reader
// can refuse a frame over its cap before holding any of it (node's 'ipc' channel parses whole
// messages of any size, so a child could make the server hold gigabytes).

const HEADER_BYTES = 4;
/** The most a 4-byte length can say; the caps are far below it. */
const MAX_ENCODABLE_BYTES = 0xffff_ffff;

export function encodeFrame(message: unknown): Buffer {
  const json = JSON.stringify(message);
  // The body is written straight after the header: one buffer per frame, not two and a copy.
  const bodyBytes = Buffer.byteLength(json, 'utf8');
  if (bodyBytes > MAX_ENCODABLE_BYTES) throw new RangeError('message too large for one frame');
  const frame = Buffer.allocUnsafe(HEADER_BYTES + bodyBytes);
  frame.writeUInt32BE(bodyBytes, 0);
  frame.write(json, HEADER_BYTES, 'utf8');
  return frame;
}

export interface FrameReaderOptions {
  /** Largest body accepted; a longer frame is refused from its header alone. */
  maxFrameBytes: number;
  /** `bytes`: the length of the frame's JSON text, an upper bound for any value within it. */
  onMessage(message: unknown, bytes: number): void;
  /** The stream is unusable from here on: the reader ignores everything after. */
  onViolation(problem: { kind: 'oversize'; bytes: number } | { kind: 'malformed' }): void;
}

/** Returns the function to feed each chunk read from the channel. */
export function createFrameReader(options: FrameReaderOptions): (chunk: Buffer) => void {
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  let expected: number | undefined;
  let broken = false;

  const take = (count: number): Buffer => {
    const [first] = pending;
    const joined =
      pending.length === 1 && first !== undefined ? first : Buffer.concat(pending, pendingBytes);
    const head = joined.subarray(0, count);
    const rest = joined.subarray(count);
    pending = rest.length === 0 ? [] : [rest];
    pendingBytes = rest.length;
    return head;
  };

  return (chunk) => {
    if (broken) return;
    pending.push(chunk);
    pendingBytes += chunk.length;
    for (;;) {
      if (expected === undefined) {
        if (pendingBytes < HEADER_BYTES) return;
        expected = take(HEADER_BYTES).readUInt32BE(0);
        if (expected > options.maxFrameBytes) {
          broken = true;
          pending = [];
          options.onViolation({ kind: 'oversize', bytes: expected });
          return;
        }
      }
      if (pendingBytes < expected) return;
      const body = take(expected);
      expected = undefined;
      let message: unknown;
      try {
        message = JSON.parse(body.toString('utf8')) as unknown;
      } catch {
        broken = true;
        pending = [];
        options.onViolation({ kind: 'malformed' });
        return;
      }
      options.onMessage(message, body.length);
    }
  };
}

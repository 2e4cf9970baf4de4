/**
 * Keeps the first `limit` bytes of a stream and counts the rest, so a tool that prints
 * gigabytes costs the runner `limit` bytes of memory while the child is never blocked.
 */
export interface HeadBuffer {
  push(chunk: Buffer): void;
  readonly keptBytes: number;
  readonly droppedBytes: number;
  toBuffer(): Buffer;
}

export function createHeadBuffer(limit: number): HeadBuffer {
  const chunks: Buffer[] = [];
  let kept = 0;
  let dropped = 0;
  return {
    push(chunk) {
      const room = limit - kept;
      if (room <= 0) {
        dropped += chunk.length;
        return;
      }
      const part = chunk.length <= room ? chunk : chunk.subarray(0, room);
      // Copy a partial slice so the rest of the source chunk can be garbage-collected.
      chunks.push(part === chunk ? chunk : Buffer.from(part));
      kept += part.length;
      dropped += chunk.length - part.length;
    },
    get keptBytes() {
      return kept;
    },
    get droppedBytes() {
      return dropped;
    },
    toBuffer() {
      return Buffer.concat(chunks, kept);
    },
  };
}

/** Keeps the last `limit` bytes of a stream: the end of stderr is where the reason for a failure is. */
export interface TailBuffer {
  push(chunk: Buffer): void;
  readonly totalBytes: number;
  toString(): string;
}

export function createTailBuffer(limit: number): TailBuffer {
  let chunks: Buffer[] = [];
  let kept = 0;
  let total = 0;
  return {
    push(chunk) {
      total += chunk.length;
      chunks.push(chunk);
      kept += chunk.length;
      if (kept > limit * 2) {
        const joined = Buffer.concat(chunks, kept);
        const tail = Buffer.from(joined.subarray(joined.length - limit));
        chunks = [tail];
        kept = tail.length;
      }
    },
    get totalBytes() {
      return total;
    },
    toString() {
      const joined = Buffer.concat(chunks, kept);
      const tail = joined.length > limit ? joined.subarray(joined.length - limit) : joined;
      let start = 0;
      // Skip continuation bytes so the tail does not begin with half a character.
      while (start < tail.length && start < 4 && ((tail[start] ?? 0) & 0xc0) === 0x80) start += 1;
      return tail.subarray(start).toString('utf8');
    },
  };
}

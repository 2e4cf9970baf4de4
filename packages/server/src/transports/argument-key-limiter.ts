const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
const COMMA = 0x2c;

/** Envelope keys longer than this (escapes included) cannot be "params" or "arguments". */
const MAX_ENVELOPE_KEY_BYTES = 128;

/**
 * What a container being read is, as far as the rule cares: a JSON-RPC message, its `params`,
 * the `params.arguments` whose keys are counted, a batch of messages, and
 * `params.arguments.arguments`: the arguments `call_tool` passes on, which the pipeline
 * limits the same way.
 */
const Role = { Batch: 0, Message: 1, Params: 2, Arguments: 3, Inner: 4 } as const;
type Role = (typeof Role)[keyof typeof Role];

interface Frame {
  role: Role;
  /** An object frame: the next string is a key (after `{` or `,`), not a value. */
  expectKey: boolean;
  /** The last key read in this object (what its next value is). */
  key: string | undefined;
}

export interface ArgumentKeyLimiter {
  /** Reads the next bytes of the message; keeps what the parse will need. */
  push(chunk: Buffer): void;
  /** The message as it will be parsed: as sent, or with oversized arguments replaced. */
  finish(): Buffer;
  /** Bytes kept so far (what the message costs in memory while it is read). */
  readonly keptBytes: number;
  /**
   * Whether an arguments object passed the limit in this message so far (call_tool's
   * arguments are decided by `finish`, once the tool's name is known).
   */
  readonly limited: boolean;
  /** Forgets the message read so far: ready for the next one. */
  reset(): void;
}

/**
 * Decides the argument-key limit while a message is read, not after it was parsed: a
 * streaming scan of the JSON structure counts the distinct top-level keys of each
 * `params.arguments` (in one message, or each message of a batch). Once an arguments object
 * has `maxKeys + 1` distinct keys, the rest of it is skipped unread and it is replaced by an
 * object of just those keys (values `null`), which the call pipeline refuses as before. So a
 * message with a million argument keys costs a scan of its bytes in the chunks they arrive
 * in, never a parse of a million keys, a schema check of them or a walk over them; every
 * other message comes out byte for byte as it went in.
 *
 * The scan only follows strings and brackets; whether the message is valid JSON is still
 * decided by JSON.parse on the result (a broken message stays broken).
 */
export function createArgumentKeyLimiter(maxKeys: number): ArgumentKeyLimiter {
  // n distinct keys take more than 4n bytes (`"":0,"a":0,...`): a shorter message cannot
  // pass the limit, so it is only collected, never scanned (most messages, at no cost).
  const scanFrom = 4 * (maxKeys + 1);
  let scanning = false;
  let unscanned: Buffer[] = [];
  let unscannedBytes = 0;
  let kept: Buffer[] = [];
  let keptBytes = 0;
  /** Tracked containers, outermost first (batch, message, params, arguments, inner). */
  const frames: Frame[] = [];
  /** Containers nested below the innermost tracked one (their contents do not matter). */
  let untrackedDepth = 0;
  let inString = false;
  let escaped = false;
  /** The bytes of the key being read, when it is one the rule reads. */
  let keyParts: Buffer[] | undefined;
  let keyBytes = 0;
  let keyHasEscape = false;
  /** Distinct keys of the arguments object being read. */
  const argumentKeys = new Set<string>();
  /** Where, in `kept`, the arguments object being read starts. */
  let argumentsStart = 0;
  /** Reading the rest of an arguments object past the limit: nothing is kept. */
  let skipping = false;
  let limited = false;
  /** The batch being read: call_tool's arguments are limited in a single message only. */
  let inBatch = false;
  /** `params.name` of the message, when read (a string value up to 128 bytes). */
  let toolName: string | undefined;
  let readingToolName = false;
  /**
   * The last `params.arguments.arguments` object: its distinct keys (up to the limit + 1) and
   * where it lies in `kept`. Whether it is call_tool's is known only when the whole message
   * was read (`name` may come after it), so it is kept, and replaced at the end if it is.
   */
  const innerKeys = new Set<string>();
  let innerStart = -1;
  let innerEnd = -1;

  const keep = (chunk: Buffer, start: number, end: number) => {
    if (end <= start) return;
    kept.push(chunk.subarray(start, end));
    keptBytes += end - start;
  };

  const truncateKept = (length: number) => {
    let total = 0;
    const next: Buffer[] = [];
    for (const part of kept) {
      if (total + part.length <= length) {
        next.push(part);
        total += part.length;
        continue;
      }
      if (length > total) next.push(part.subarray(0, length - total));
      total = length;
      break;
    }
    kept = next;
    keptBytes = total;
  };

  const captureKey = (chunk: Buffer, start: number, end: number) => {
    if (keyParts === undefined || end <= start) return;
    keyBytes += end - start;
    const role = frames.at(-1)?.role;
    if (keyBytes > MAX_ENVELOPE_KEY_BYTES && role !== Role.Arguments && role !== Role.Inner)
      keyParts = undefined;
    else keyParts.push(chunk.subarray(start, end));
  };

  const readKey = (): string | undefined => {
    const bytes = keyParts!.length === 1 ? keyParts![0]! : Buffer.concat(keyParts!, keyBytes);
    if (!keyHasEscape) return bytes.toString('utf8');
    try {
      return JSON.parse(`"${bytes.toString('utf8')}"`) as string;
    } catch {
      // Not a valid string: JSON.parse of the whole message will say so.
      return undefined;
    }
  };

  const childRole = (parent: Frame | undefined, opensObject: boolean): Role | undefined => {
    if (parent === undefined) return opensObject ? Role.Message : Role.Batch;
    if (parent.role === Role.Batch) return opensObject ? Role.Message : undefined;
    if (!opensObject || parent.expectKey) return undefined;
    if (parent.role === Role.Message && parent.key === 'params') return Role.Params;
    if (parent.role === Role.Params && parent.key === 'arguments') return Role.Arguments;
    if (parent.role === Role.Arguments && parent.key === 'arguments' && !skipping)
      return Role.Inner;
    return undefined;
  };

  /** The key just read belongs to `frame`; returns true when the limit was passed. */
  const noteKey = (frame: Frame): boolean => {
    const key = keyParts === undefined ? undefined : readKey();
    keyParts = undefined;
    frame.key = key;
    if (key === undefined) return false;
    if (frame.role === Role.Inner) {
      if (innerKeys.size <= maxKeys) innerKeys.add(key);
      return false;
    }
    if (frame.role !== Role.Arguments) return false;
    argumentKeys.add(key);
    return argumentKeys.size > maxKeys;
  };

  const standIn = (keys: ReadonlySet<string>): Buffer => {
    const parts: string[] = [];
    for (const key of keys) parts.push(`${JSON.stringify(key)}:null`);
    return Buffer.from(`{${parts.join(',')}}`);
  };

  /** The whole message, with call_tool's oversized arguments replaced if that is what it has. */
  const joinKept = (): Buffer => {
    const whole = kept.length === 1 ? kept[0]! : Buffer.concat(kept, keptBytes);
    if (inBatch || toolName !== 'call_tool' || innerKeys.size <= maxKeys || innerEnd < 0)
      return whole;
    limited = true;
    return Buffer.concat([
      whole.subarray(0, innerStart),
      standIn(innerKeys),
      whole.subarray(innerEnd),
    ]);
  };

  return {
    get keptBytes() {
      return scanning ? keptBytes : unscannedBytes;
    },
    get limited() {
      return limited;
    },
    push(chunk) {
      if (!scanning) {
        if (unscannedBytes + chunk.length < scanFrom) {
          unscanned.push(chunk);
          unscannedBytes += chunk.length;
          return;
        }
        scanning = true;
        for (const part of unscanned) scan(part);
        unscanned = [];
        unscannedBytes = 0;
      }
      scan(chunk);
    },
    finish() {
      const message = scanning
        ? joinKept()
        : unscanned.length === 1
          ? unscanned[0]!
          : Buffer.concat(unscanned, unscannedBytes);
      reset();
      return message;
    },
    reset,
  };

  function scan(chunk: Buffer): void {
    /** Where the bytes to keep in this chunk start; -1 while skipping. */
    let segment = skipping ? -1 : 0;
    let nextBackslash = -2;
    let i = 0;
    while (i < chunk.length) {
      if (inString) {
        if (escaped) {
          escaped = false;
          captureKey(chunk, i, i + 1);
          i++;
          continue;
        }
        // Strings are most of a large message's bytes: jump to the next quote, unless a
        // backslash comes first.
        const quote = chunk.indexOf(QUOTE, i);
        if (nextBackslash !== -1 && nextBackslash < i) nextBackslash = chunk.indexOf(BACKSLASH, i);
        const end = quote === -1 ? chunk.length : quote;
        if (nextBackslash !== -1 && nextBackslash < end) {
          keyHasEscape = true;
          captureKey(chunk, i, nextBackslash + 1);
          escaped = true;
          i = nextBackslash + 1;
          continue;
        }
        captureKey(chunk, i, end);
        if (quote === -1) break;
        inString = false;
        i = quote + 1;
        const frame = untrackedDepth === 0 ? frames.at(-1) : undefined;
        if (readingToolName) {
          readingToolName = false;
          toolName = keyParts === undefined ? undefined : readKey();
          keyParts = undefined;
        } else if (frame !== undefined && frame.expectKey && frame.role !== Role.Batch) {
          frame.expectKey = false;
          if (noteKey(frame) && !skipping) {
            // Past the limit: drop the arguments read so far, skip the rest of them.
            if (segment >= 0) keep(chunk, segment, i);
            truncateKept(argumentsStart);
            // call_tool's arguments were inside what was dropped.
            innerKeys.clear();
            innerEnd = -1;
            skipping = true;
            limited = true;
            segment = -1;
          }
        }
        continue;
      }
      const byte = chunk[i]!;
      if (byte === QUOTE) {
        inString = true;
        const frame = untrackedDepth === 0 ? frames.at(-1) : undefined;
        if (frame !== undefined && frame.role !== Role.Batch && !skipping) {
          const isToolName = !frame.expectKey && frame.role === Role.Params && frame.key === 'name';
          // call_tool's keys past the limit need not be read: their count is all that matters.
          const isKey = frame.expectKey && (frame.role !== Role.Inner || innerKeys.size <= maxKeys);
          if (isKey || isToolName) {
            keyParts = [];
            keyBytes = 0;
            keyHasEscape = false;
            readingToolName = isToolName;
          }
        }
      } else if (byte === OPEN_OBJECT || byte === OPEN_ARRAY) {
        const role =
          untrackedDepth === 0 ? childRole(frames.at(-1), byte === OPEN_OBJECT) : undefined;
        if (role === undefined) untrackedDepth++;
        else {
          const offset = keptBytes + (segment >= 0 ? i - segment : 0);
          if (role === Role.Batch) inBatch = true;
          else if (role === Role.Message) toolName = undefined;
          else if (role === Role.Arguments) {
            argumentKeys.clear();
            argumentsStart = offset;
          } else if (role === Role.Inner) {
            innerKeys.clear();
            innerStart = offset;
            innerEnd = -1;
          }
          frames.push({ role, expectKey: byte === OPEN_OBJECT, key: undefined });
        }
      } else if (byte === CLOSE_OBJECT || byte === CLOSE_ARRAY) {
        if (untrackedDepth > 0) untrackedDepth--;
        else {
          const closed = frames.pop();
          if (closed?.role === Role.Inner)
            innerEnd = keptBytes + (segment >= 0 ? i + 1 - segment : 0);
          if (closed?.role === Role.Arguments && skipping) {
            // The stand-in takes the place of the whole object, its closing brace included.
            const replacement = standIn(argumentKeys);
            kept.push(replacement);
            keptBytes += replacement.length;
            skipping = false;
            segment = i + 1;
          }
        }
      } else if (byte === COMMA && untrackedDepth === 0) {
        const frame = frames.at(-1);
        if (frame !== undefined && frame.role !== Role.Batch) frame.expectKey = true;
      }
      i++;
    }
    if (segment >= 0) keep(chunk, segment, chunk.length);
  }

  function reset(): void {
    scanning = false;
    unscanned = [];
    unscannedBytes = 0;
    kept = [];
    keptBytes = 0;
    frames.length = 0;
    untrackedDepth = 0;
    inString = false;
    escaped = false;
    keyParts = undefined;
    argumentKeys.clear();
    skipping = false;
    limited = false;
    inBatch = false;
    toolName = undefined;
    readingToolName = false;
    innerKeys.clear();
    innerStart = -1;
    innerEnd = -1;
  }
}

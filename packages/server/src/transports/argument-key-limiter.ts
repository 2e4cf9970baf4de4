import { readId, type RejectedMessage } from './json-rpc-envelope.ts';

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
const COMMA = 0x2c;
const COLON = 0x3a;

/** Envelope keys longer than this (escapes included) cannot be "params" or "arguments". */
const MAX_ENVELOPE_KEY_BYTES = 128;
/** An `id` written longer than this is no id the SDK accepts: a refusal is answered with null. */
const MAX_ID_BYTES = 128;

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

export interface ArgumentKeyLimiterOptions {
  /**
   * Distinct top-level keys of `params.arguments` (and of call_tool's inner arguments) passed
   * on; past it they reach the server as their first `maxArgumentKeys + 1` keys.
   */
  maxArgumentKeys: number;
  /**
   * Values in one message (or batch): object members and array elements at every depth. Past
   * it the message is refused whole and nothing more of it is kept. The values of arguments
   * past `maxArgumentKeys` are not counted: they are skipped unread, and that call is refused
   * by the argument-key limit instead.
   */
  maxMessageValues: number;
  /** Nesting of arrays and objects in one message, the message itself level 1. */
  maxDepth: number;
}

/** The message as it will be parsed, or the answer for one refused while it was read. */
export type LimitedMessage = { bytes: Buffer } | { refused: RejectedMessage };

export interface ArgumentKeyLimiter {
  /** Reads the next bytes of the message; keeps what the parse will need. */
  push(chunk: Buffer): void;
  /**
   * The message as it will be parsed (as sent, or with oversized arguments replaced), or,
   * when it holds more values or nests deeper than the limits, its refusal.
   */
  finish(): LimitedMessage;
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
 * The same scan bounds what a message may cost to parse at all: it counts the values at every
 * depth (each container's first, and one more after each comma outside strings) and the
 * nesting, so a message with more than `maxMessageValues` values (a million keys inside one
 * argument, arrays of objects or of numbers) or nested deeper than `maxDepth` is refused as
 * soon as it passes either limit, and nothing of it is kept or parsed. Its answer carries the
 * `id` read before that point; when none was, the rest is scanned for one.
 *
 * The scan only follows strings and brackets; whether the message is valid JSON is still
 * decided by JSON.parse on the result (a broken message stays broken).
 */
export function createArgumentKeyLimiter(options: ArgumentKeyLimiterOptions): ArgumentKeyLimiter {
  const { maxArgumentKeys: maxKeys, maxMessageValues, maxDepth } = options;
  // n distinct keys take more than 4n bytes (`"":0,"a":0,...`) and n values more than 2n
  // (`[0,0,...`): a shorter message cannot pass either limit, so it is only collected, never
  // scanned (most messages, at no cost). A short message nested too deep is cheap to parse,
  // and is refused after parsing.
  const scanFrom = Math.min(4 * (maxKeys + 1), 2 * (maxMessageValues + 1));
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
  /**
   * Values read in the message so far (object members and array elements, at every depth),
   * but the top-level ones of call_tool's arguments.
   */
  let messageValues = 0;
  /**
   * Members of `params.arguments.arguments` objects, counted apart: call_tool's are passed on
   * as at most `maxKeys + 1`, and whether it is call_tool is known only at the end.
   */
  let innerValues = 0;
  /** Of those, the ones inside the arguments object being read (dropped if it is cut). */
  let innerValuesInArguments = 0;
  /** Of those, the last inner object's (the one call_tool's stand-in may replace). */
  let lastInnerValues = 0;
  /** Why the message is refused, once it passed a limit: nothing more of it is kept. */
  let refusal: string | undefined;
  /** The raw bytes of the message's `id` value being read, undefined once too long. */
  let idParts: Buffer[] | undefined;
  let idBytes = 0;
  /** Reading the message's `id` value (it may span chunks). */
  let readingId = false;
  /** The last complete `id` value read (raw JSON), and whether the message has a `method`. */
  let idText: string | undefined;
  let hasMethod = false;

  const keep = (chunk: Buffer, start: number, end: number) => {
    if (end <= start || refusal !== undefined) return;
    kept.push(chunk.subarray(start, end));
    keptBytes += end - start;
  };

  const refuse = (reason: string) => {
    if (refusal !== undefined) return;
    refusal = reason;
    kept = [];
    keptBytes = 0;
  };

  const appendId = (chunk: Buffer, start: number, end: number) => {
    if (idParts === undefined || end <= start) return;
    idBytes += end - start;
    if (idBytes > MAX_ID_BYTES) idParts = undefined;
    else idParts.push(chunk.subarray(start, end));
  };

  /** The answer for a refused message: its id when it has a usable one (never in a batch). */
  const describeRefusal = (reason: string): RejectedMessage => {
    let id: string | number | null = null;
    if (!inBatch && idText !== undefined) {
      try {
        id = readId({ id: JSON.parse(idText) as unknown });
      } catch {
        // Not a JSON value: no id to answer with.
      }
    }
    const isRequest = id !== null && hasMethod;
    return {
      id,
      code: isRequest ? -32602 : -32600,
      message: `${isRequest ? 'Invalid params' : 'Invalid Request'}: ${reason}`,
    };
  };

  /** Refused, with the id to answer known: the rest of the message need not be read at all. */
  const isSettled = () => refusal !== undefined && (inBatch || idText !== undefined);

  const valuesReason = () =>
    `the message holds more than ${maxMessageValues} values (object members and array elements, counted at every depth); send bulk data as one string (JSON or CSV text), or over several calls.`;

  /** Counts one more value; true when that refused the message and nothing more need be read. */
  const countValue = (inner: boolean): boolean => {
    if (inner) {
      innerValues++;
      innerValuesInArguments++;
      lastInnerValues++;
      return false;
    }
    if (++messageValues <= maxMessageValues) return false;
    refuse(valuesReason());
    return isSettled();
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
    if (frame.role === Role.Message && key === 'method') hasMethod = true;
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
      if (isSettled()) return;
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
      if (!scanning) {
        const bytes =
          unscanned.length === 1 ? unscanned[0]! : Buffer.concat(unscanned, unscannedBytes);
        reset();
        return { bytes };
      }
      if (refusal === undefined) {
        // call_tool's arguments past the limit are passed on as a stand-in of maxKeys + 1 keys.
        const cut =
          !inBatch && toolName === 'call_tool' && innerKeys.size > maxKeys && innerEnd >= 0;
        const passedOn = cut ? innerValues - lastInnerValues + innerKeys.size : innerValues;
        if (messageValues + passedOn > maxMessageValues) refuse(valuesReason());
      }
      const result: LimitedMessage =
        refusal === undefined ? { bytes: joinKept() } : { refused: describeRefusal(refusal) };
      reset();
      return result;
    },
    reset,
  };

  function scan(chunk: Buffer): void {
    /** Where the bytes to keep in this chunk start; -1 while skipping. */
    let segment = skipping ? -1 : 0;
    /** Where the `id` value being read starts in this chunk; -1 when none is read. */
    let idFrom = readingId ? 0 : -1;
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
            innerValues -= innerValuesInArguments;
            innerValuesInArguments = 0;
            lastInnerValues = 0;
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
        if (frames.length + untrackedDepth >= maxDepth) {
          refuse(`the message nests more than ${maxDepth} levels deep; flatten the arguments.`);
          if (isSettled()) return;
        }
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
            innerValuesInArguments = 0;
          } else if (role === Role.Inner) {
            innerKeys.clear();
            innerStart = offset;
            innerEnd = -1;
            lastInnerValues = 0;
          }
          frames.push({ role, expectKey: byte === OPEN_OBJECT, key: undefined });
        }
        // A container opens with its first value (and one more after each comma in it).
        if (!skipping && countValue(role === Role.Inner)) return;
      } else if (byte === CLOSE_OBJECT || byte === CLOSE_ARRAY) {
        if (untrackedDepth > 0) untrackedDepth--;
        else {
          if (idFrom >= 0) idFrom = endId(chunk, idFrom, i);
          const closed = frames.pop();
          if (closed?.role === Role.Inner)
            innerEnd = keptBytes + (segment >= 0 ? i + 1 - segment : 0);
          if (closed?.role === Role.Arguments && skipping) {
            // The stand-in takes the place of the whole object, its closing brace included.
            if (refusal === undefined) {
              const replacement = standIn(argumentKeys);
              kept.push(replacement);
              keptBytes += replacement.length;
            }
            skipping = false;
            segment = i + 1;
          }
        }
      } else if (byte === COMMA) {
        const frame = untrackedDepth === 0 ? frames.at(-1) : undefined;
        if (frame !== undefined) {
          if (idFrom >= 0) idFrom = endId(chunk, idFrom, i);
          if (frame.role !== Role.Batch) frame.expectKey = true;
        }
        if (!skipping && countValue(frame?.role === Role.Inner)) return;
      } else if (byte === COLON && untrackedDepth === 0) {
        const frame = frames.at(-1);
        if (frame?.role === Role.Message && frame.key === 'id') {
          readingId = true;
          idFrom = i + 1;
          idParts = [];
          idBytes = 0;
          idText = undefined;
        }
      }
      i++;
    }
    if (segment >= 0) keep(chunk, segment, chunk.length);
    if (idFrom >= 0) appendId(chunk, idFrom, chunk.length);
  }

  /** The message's `id` value ends at `end`: keeps its raw text. */
  function endId(chunk: Buffer, from: number, end: number): number {
    appendId(chunk, from, end);
    idText = idParts === undefined ? undefined : Buffer.concat(idParts, idBytes).toString('utf8');
    idParts = undefined;
    readingId = false;
    return -1;
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
    messageValues = 0;
    innerValues = 0;
    innerValuesInArguments = 0;
    lastInnerValues = 0;
    refusal = undefined;
    idParts = undefined;
    idBytes = 0;
    readingId = false;
    idText = undefined;
    hasMethod = false;
  }
}

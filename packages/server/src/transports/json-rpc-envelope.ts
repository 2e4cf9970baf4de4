import {
  parseJSONRPCMessage,
  RELATED_TASK_META_KEY,
  type JSONRPCMessage,
} from '@modelcontextprotocol/server';
import { isPlainObject } from '@toolpack/core';

/** A JSON-RPC error answer for a message refused before it reaches the SDK. */
export interface RejectedMessage {
  id: string | number | null;
  /**
   * -32000: refused by the MCP lifecycle (a request before `initialize`); -32022: a
   * 2026-07-28 request naming a protocol version the connection does not speak.
   */
  code: -32700 | -32600 | -32602 | -32000 | -32022;
  message: string;
  data?: Record<string, unknown>;
}

/**
 * Deepest nesting accepted in one message, envelope included. Real tool arguments stay far
 * below it; far deeper ones overflow the stack of every recursive walk after parsing
 * (JSON.stringify, structuredClone to a worker, the SDK's own re-serialising), which would
 * turn a bad request into an internal error or a lost answer.
 */
export const MAX_MESSAGE_DEPTH = 128;

/**
 * Most values in one message (a batch counts as one): object members and array elements,
 * counted at every depth. Parsing them, the SDK's schema and the depth walk cost the server's
 * one thread, where every client waits: keys of one large object the most, about 1.1 µs of
 * CPU each (a million nested in one argument, a 12 MB line: 1.16 s in the line guard alone,
 * 3.6-5.8 s of block in the whole server at load 7-17). This many such keys cost about 36 ms
 * there, within the 100 ms `ping` bound with room for the rest of the call; a 16 MiB line
 * could hold eight million. More than a model writes in one call's arguments: bulk data
 * belongs in one string. The transports count while reading (argument-key-limiter.ts): a
 * message past it is refused without being parsed.
 */
export const MAX_MESSAGE_VALUES = 50_000;

/**
 * The SDK's request ids and progress tokens: a string or an integer it can hold exactly.
 * 1.5, 1e300 and 2^53+1 are numbers JSON allows but the SDK drops the message carrying them.
 */
function isIdentifier(value: unknown): value is string | number {
  return typeof value === 'string' || Number.isSafeInteger(value);
}

/** The id to answer with: the message's own when it is a usable one, null otherwise. */
export function readId(value: unknown): string | number | null {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return null;
  const id = (value as Record<string, unknown>).id;
  return isIdentifier(id) ? id : null;
}

/** What is wrong with a request's `params._meta`, or undefined when the SDK accepts it. */
function findMetaProblem(params: Record<string, unknown>): string | undefined {
  if (!('_meta' in params)) return undefined;
  const meta = params._meta;
  if (!isPlainObject(meta)) return '"params._meta" must be an object';
  if ('progressToken' in meta && !isIdentifier(meta.progressToken))
    return '"params._meta.progressToken" must be a string or an integer';
  if (RELATED_TASK_META_KEY in meta) {
    const task = meta[RELATED_TASK_META_KEY];
    if (!isPlainObject(task) || typeof task.taskId !== 'string')
      return `"params._meta.${RELATED_TASK_META_KEY}" must be an object with a string "taskId"`;
  }
  return undefined;
}

/** The first reason the SDK's own message schema gives, in one short line. */
function describeSchemaFailure(error: unknown): { inParams: boolean; text: string } {
  const issue = (error as { issues?: { path?: unknown[]; message?: string }[] }).issues?.[0];
  if (issue === undefined)
    return {
      inParams: false,
      text: 'it is not a JSON-RPC 2.0 request, notification or response',
    };
  const path = issue.path ?? [];
  const where = path.length > 0 ? `"${path.map(String).join('.')}": ` : '';
  return {
    inParams: path[0] === 'params',
    text: `${where}${issue.message ?? 'is invalid'}`.slice(0, 300),
  };
}

/**
 * Whether `value` nests arrays/objects more than `limit` levels deep; walks without recursion,
 * and without an object per node (two parallel stacks): it runs on every message.
 */
export function nestsDeeperThan(value: unknown, limit: number): boolean {
  const values: unknown[] = [value];
  const depths: number[] = [1];
  while (values.length > 0) {
    const current = values.pop();
    const depth = depths.pop()!;
    if (typeof current !== 'object' || current === null) continue;
    if (depth > limit) return true;
    if (Array.isArray(current)) {
      for (const child of current) {
        if (typeof child === 'object' && child !== null) {
          values.push(child);
          depths.push(depth + 1);
        }
      }
      continue;
    }
    for (const key in current) {
      const child = (current as Record<string, unknown>)[key];
      if (typeof child === 'object' && child !== null && Object.hasOwn(current, key)) {
        values.push(child);
        depths.push(depth + 1);
      }
    }
  }
  return false;
}

/** The answer for a parsed message nested beyond `limit`, or undefined when it is within. */
export function checkMessageDepth(
  value: unknown,
  limit = MAX_MESSAGE_DEPTH,
): RejectedMessage | undefined {
  if (!nestsDeeperThan(value, limit)) return undefined;
  const id = readId(value);
  const isRequest = id !== null && typeof (value as Record<string, unknown>).method === 'string';
  return {
    id,
    code: isRequest ? -32602 : -32600,
    message: `${isRequest ? 'Invalid params' : 'Invalid Request'}: the message nests more than ${limit} levels deep; flatten the arguments.`,
  };
}

/**
 * What the SDK would drop or mishandle in one parsed message: not an object, a batch, a
 * wrong `jsonrpc`, a non-string method, a bad id, non-object params, or nesting beyond
 * `MAX_MESSAGE_DEPTH`. Undefined when the message may go on to the SDK.
 */
export function checkMessageEnvelope(value: unknown): RejectedMessage | undefined {
  const read = readMessageEnvelope(value);
  return 'rejected' in read ? read.rejected : undefined;
}

/**
 * checkMessageEnvelope's checks, and for a message that passes them the SDK's own parse of it:
 * the message exactly as the SDK's stdio transport would have read it from the line, so it can
 * be handed on without being parsed and schema-checked a second time.
 */
export function readMessageEnvelope(
  value: unknown,
): { message: JSONRPCMessage } | { rejected: RejectedMessage } {
  const rejected = checkMessageShape(value);
  if (rejected !== undefined) return { rejected };
  // Whatever else the SDK's schema refuses it would drop without a word: answer it here.
  try {
    return { message: parseJSONRPCMessage(value) };
  } catch (error) {
    const failure = describeSchemaFailure(error);
    const isRequest = 'id' in (value as object) && 'method' in (value as object);
    const invalidParams = isRequest && failure.inParams;
    return {
      rejected: {
        id: readId(value),
        code: invalidParams ? -32602 : -32600,
        message: `${invalidParams ? 'Invalid params' : 'Invalid Request'}: ${failure.text}.`,
      },
    };
  }
}

/** The envelope checks the SDK's schema does not answer for; undefined when all pass. */
function checkMessageShape(value: unknown): RejectedMessage | undefined {
  if (typeof value !== 'object' || value === null) {
    return { id: null, code: -32600, message: 'Invalid Request: a message must be a JSON object.' };
  }
  if (Array.isArray(value)) {
    return {
      id: null,
      code: -32600,
      message: 'Invalid Request: batches are not supported; send one message per line.',
    };
  }
  const message = value as Record<string, unknown>;
  const id = readId(message);
  const isRequest = 'id' in message && 'method' in message;
  if (message.jsonrpc !== '2.0') {
    return { id, code: -32600, message: 'Invalid Request: "jsonrpc" must be "2.0".' };
  }
  if ('method' in message && typeof message.method !== 'string') {
    return { id, code: -32600, message: 'Invalid Request: "method" must be a string.' };
  }
  // A response may carry id null (an error about an unreadable request); a request may not.
  if ('id' in message && (message.id !== null || 'method' in message) && id === null) {
    return {
      id: null,
      code: -32600,
      message: 'Invalid Request: "id" must be a string or an integer between -(2^53-1) and 2^53-1.',
    };
  }
  if (isRequest && 'params' in message) {
    if (!isPlainObject(message.params))
      return { id, code: -32602, message: 'Invalid params: "params" must be an object.' };
    const metaProblem = findMetaProblem(message.params);
    if (metaProblem !== undefined)
      return { id, code: -32602, message: `Invalid params: ${metaProblem}.` };
  }
  return checkMessageDepth(message);
}

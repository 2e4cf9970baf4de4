/** A JSON-RPC error answer for a message refused before it reaches the SDK. */
export interface RejectedMessage {
  id: string | number | null;
  code: -32700 | -32600 | -32602;
  message: string;
}

/**
 * Deepest nesting accepted in one message, envelope included. Real tool arguments stay far
 * below it; far deeper ones overflow the stack of every recursive walk after parsing
 * (JSON.stringify, structuredClone to a worker, the SDK's own re-serialising), which would
 * turn a bad request into an internal error or a lost answer.
 */
export const MAX_MESSAGE_DEPTH = 128;

function readId(value: unknown): string | number | null {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return null;
  const id = (value as Record<string, unknown>).id;
  return typeof id === 'string' || typeof id === 'number' ? id : null;
}

/** Whether `value` nests arrays/objects more than `limit` levels deep; walks without recursion. */
export function nestsDeeperThan(value: unknown, limit: number): boolean {
  const stack: { value: unknown; depth: number }[] = [{ value, depth: 1 }];
  while (stack.length > 0) {
    const { value: current, depth } = stack.pop()!;
    if (typeof current !== 'object' || current === null) continue;
    if (depth > limit) return true;
    const children = Array.isArray(current) ? current : Object.values(current);
    for (const child of children) {
      if (typeof child === 'object' && child !== null)
        stack.push({ value: child, depth: depth + 1 });
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
  if ('id' in message && message.id !== null && id === null) {
    return {
      id: null,
      code: -32600,
      message: 'Invalid Request: "id" must be a string or a number.',
    };
  }
  if (
    isRequest &&
    'params' in message &&
    (typeof message.params !== 'object' || message.params === null)
  ) {
    return { id, code: -32602, message: 'Invalid params: "params" must be an object.' };
  }
  return checkMessageDepth(message);
}

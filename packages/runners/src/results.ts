import type { ToolCallResult, ToolContent } from '@toolpack/core';

/** A successful result with one text block, or none for an empty string. */
export function createTextResult(text: string): ToolCallResult {
  return text === '' ? { content: [] } : { content: [{ type: 'text', text }] };
}

/** A tool execution error: MCP's `isError: true` with a message the model can act on. */
export function createErrorResult(
  message: string,
  extra: readonly ToolContent[] = [],
): ToolCallResult {
  return { content: [{ type: 'text', text: message }, ...extra], isError: true };
}

/**
 * The same check as @toolpack/core's isPlainObject, kept here because the module child
 * (child-entry.ts) imports this file and must start without loading @toolpack/core.
 */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const prototype = Object.getPrototypeOf(value) as unknown;
  return prototype === Object.prototype || prototype === null;
}

/**
 * Turns a tool's printed output into a result: a JSON object becomes `structuredContent`
 * (and stays the text, for clients that ignore structured output); anything else is text.
 */
export function createResultFromOutput(
  output: string,
  options: { truncated?: boolean; note?: string } = {},
): ToolCallResult {
  const text = output.replace(/\s+$/u, '');
  const notes = options.note === undefined ? [] : [options.note];
  if (!options.truncated && text.trimStart().startsWith('{')) {
    const parsed = parseJson(text);
    if (isPlainObject(parsed)) {
      return { content: [{ type: 'text', text }], structuredContent: parsed };
    }
  }
  const body = [text, ...notes].filter((part) => part !== '').join('\n');
  return createTextResult(body);
}

/**
 * A tool's return value as a result: strings as text, objects as `structuredContent` plus
 * their JSON text, arrays and scalars as JSON text.
 */
export function createResultFromValue(value: unknown, maxOutputBytes: number): ToolCallResult {
  if (value === undefined || value === null) return { content: [] };
  if (typeof value === 'string') return createTextResult(truncateText(value, maxOutputBytes).text);
  const json = JSON.stringify(value, replaceBigInt);
  if (json === undefined) return { content: [] };
  const { text, truncated } = truncateText(json, maxOutputBytes);
  if (!truncated && isPlainObject(value)) {
    return {
      content: [{ type: 'text', text }],
      structuredContent: JSON.parse(json) as Record<string, unknown>,
    };
  }
  return createTextResult(text);
}

export function replaceBigInt(_key: string, value: unknown): unknown {
  return typeof value === 'bigint' ? value.toString() : value;
}

export function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/** The marker appended wherever output was cut, so neither the model nor a human mistakes it for all of it. */
export function formatTruncationMarker(limitBytes: number, droppedBytes?: number): string {
  const dropped = droppedBytes === undefined ? '' : `${droppedBytes} more bytes dropped; `;
  return `[output truncated: ${dropped}the limit is ${limitBytes} bytes]`;
}

/** Cuts `text` to at most `maxBytes` of UTF-8 (on a character boundary) and marks the cut. */
export function truncateText(text: string, maxBytes: number): { text: string; truncated: boolean } {
  // Fast path: a UTF-8 character is at most 3 bytes per UTF-16 unit.
  if (text.length * 3 <= maxBytes) return { text, truncated: false };
  const bytes = Buffer.byteLength(text, 'utf8');
  if (bytes <= maxBytes) return { text, truncated: false };
  const head = sliceUtf8(Buffer.from(text, 'utf8'), maxBytes);
  return {
    text: `${head}\n${formatTruncationMarker(maxBytes, bytes - Buffer.byteLength(head, 'utf8'))}`,
    truncated: true,
  };
}

/** Decodes at most `maxBytes` of `buffer` without leaving half a character at the end. */
export function sliceUtf8(buffer: Buffer, maxBytes: number): string {
  if (buffer.length <= maxBytes) return buffer.toString('utf8');
  let end = maxBytes;
  // Back off continuation bytes (10xxxxxx) so the cut falls before a character's first byte.
  while (end > 0 && end > maxBytes - 4 && ((buffer[end] ?? 0) & 0xc0) === 0x80) end -= 1;
  return buffer.subarray(0, end).toString('utf8');
}

/** Caps on a whole result, whatever built it: every runner's answer passes `limitToolResult`. */
export interface ResultLimits {
  /** Content items in one result. */
  maxItems: number;
  /** The result as JSON, in UTF-8 bytes: what the client is sent. */
  maxBytes: number;
}

/** Results whose JSON is known to be at most so many bytes, by whoever parsed them. */
const jsonBytesAtMost = new WeakMap<ToolCallResult, number>();

/**
 * How much larger parsed JSON can come out when serialized again, per byte it was parsed
 * from: a number below 1e21 prints in full (`1e20`, 4 bytes, comes back as 21 digits), a byte
 * that is not valid UTF-8 is read as U+FFFD (3 bytes); everything else comes back the same
 * size or smaller (escapes, spaces, `1e21` as `1e+21` is 5 for 4). 21 / 4 rounded up.
 */
export const PARSED_JSON_GROWTH = 6;

/**
 * Records that `result` was parsed from `textBytes` bytes of UTF-8 JSON text, so
 * `limitToolResult` need not serialize it again to measure it while it is well under the cap.
 */
export function noteParsedJsonBytes(result: ToolCallResult, textBytes: number): void {
  jsonBytesAtMost.set(result, textBytes * PARSED_JSON_GROWTH);
}

/**
 * The result as it is, or an error result saying which cap it broke. One result is refused
 * whole rather than cut, so a model never reads a partial list as the full answer.
 */
export function limitToolResult(
  result: ToolCallResult,
  limits: ResultLimits,
  toolName: string,
): ToolCallResult {
  const items = Array.isArray(result.content) ? result.content.length : 0;
  if (items > limits.maxItems) {
    return createErrorResult(
      `Tool "${toolName}" returned ${items} content items; the limit is ${limits.maxItems} per result. ` +
        'Return fewer, larger items or page through the data, or raise maxResultItems in the runner options.',
    );
  }
  const bound = jsonBytesAtMost.get(result);
  const bytes =
    bound !== undefined && bound <= limits.maxBytes
      ? bound
      : measureJsonBytes(result, limits.maxBytes);
  if (bytes > limits.maxBytes) {
    return createErrorResult(
      `Tool "${toolName}" returned a result of more than ${limits.maxBytes} bytes as JSON; ` +
        `the limit is ${limits.maxBytes} bytes per result. Return less per call (page through the data), ` +
        'or raise maxResultBytes in the runner options.',
    );
  }
  return result;
}

/** UTF-8 bytes of `value` as JSON, or `cap + 1` once it is known to exceed `cap`. */
export function measureJsonBytes(value: ToolCallResult, cap: number): number {
  // The strings of the content alone (a lower bound) decide a huge result without building its JSON.
  let floor = 0;
  for (const item of Array.isArray(value.content) ? value.content : []) {
    for (const field of ['text', 'data', 'blob'] as const) {
      const text = (item as Partial<Record<typeof field, unknown>>)[field];
      if (typeof text === 'string') floor += text.length;
    }
    if (floor > cap) return cap + 1;
  }
  const json = JSON.stringify(value, replaceBigInt) ?? '';
  // Every UTF-16 unit is at most 3 UTF-8 bytes: most results are decided without encoding.
  if (json.length * 3 <= cap) return Buffer.byteLength(json, 'utf8');
  if (json.length > cap) return cap + 1;
  return Buffer.byteLength(json, 'utf8');
}

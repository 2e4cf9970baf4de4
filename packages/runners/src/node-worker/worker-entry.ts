// Runs inside a worker thread, one per JS/TS tool module. Self-contained on purpose: it is
// bundled as its own entry, and it must load fast and without @toolpack/core (which would
// pull in ajv and zod before the user's module even starts).
import { parentPort, workerData } from 'node:worker_threads';
import { isAbsolute } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { ToolCallResult, ToolContent, ToolLogLevel, ToolRunContext } from '@toolpack/core';
import type { FromWorkerMessage, ToWorkerMessage, WorkerStartData } from './worker-protocol.ts';

// The same registry-wide symbol core's defineTool brands its values with (see isDefinedTool).
const TOOL_BRAND = Symbol.for('@toolpack/core/defined-tool');

interface RunnableTool {
  run(args: unknown, context: ToolRunContext): Promise<unknown>;
}

const port = parentPort;
const start = workerData as WorkerStartData;
const controllers = new Map<number, AbortController>();
let loading: Promise<Record<string, unknown>> | undefined;

function post(message: FromWorkerMessage): void {
  port?.postMessage(message);
}

function loadModule(): Promise<Record<string, unknown>> {
  const specifier = isAbsolute(start.modulePath)
    ? pathToFileURL(start.modulePath).href
    : start.modulePath;
  loading ??= import(specifier) as Promise<Record<string, unknown>>;
  return loading;
}

function isRunnableTool(value: unknown): value is RunnableTool {
  return (
    typeof value === 'object' &&
    value !== null &&
    (value as Record<symbol, unknown>)[TOOL_BRAND] === true &&
    typeof (value as { run?: unknown }).run === 'function'
  );
}

function findTool(module: Record<string, unknown>, exportName: string): RunnableTool | undefined {
  const direct = module[exportName];
  if (isRunnableTool(direct)) return direct;
  // A CommonJS module's exports arrive as `default`.
  const fallback = module.default as Record<string, unknown> | undefined;
  const nested =
    typeof fallback === 'object' && fallback !== null ? fallback[exportName] : undefined;
  return isRunnableTool(nested) ? nested : undefined;
}

function describeError(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const name =
    error.name && error.name !== 'Error' && error.name !== 'ToolpackError' ? `${error.name}: ` : '';
  const frame = error.stack
    ?.split('\n')
    .map((line) => line.trim())
    .find(
      (line) => line.startsWith('at ') && !line.includes('node:') && !line.includes('worker-entry'),
    );
  const where =
    frame === undefined ? '' : ` (${frame.replace(/^at\s+/u, '').replace(/^.*\((.*)\)$/u, '$1')})`;
  return `${name}${error.message}${where}`;
}

function replaceBigInt(_key: string, value: unknown): unknown {
  return typeof value === 'bigint' ? value.toString() : value;
}

function truncate(text: string): string {
  const limit = start.maxOutputBytes;
  if (text.length * 3 <= limit || Buffer.byteLength(text, 'utf8') <= limit) return text;
  const bytes = Buffer.from(text, 'utf8');
  let end = limit;
  while (end > 0 && end > limit - 4 && ((bytes[end] ?? 0) & 0xc0) === 0x80) end -= 1;
  return `${bytes.subarray(0, end).toString('utf8')}\n[output truncated: ${bytes.length - end} more bytes dropped; the limit is ${limit} bytes]`;
}

function isCallToolResult(value: unknown): value is ToolCallResult {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const content = (value as { content?: unknown }).content;
  return (
    Array.isArray(content) &&
    content.every(
      (item) =>
        typeof item === 'object' &&
        item !== null &&
        typeof (item as { type?: unknown }).type === 'string',
    )
  );
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const prototype = Object.getPrototypeOf(value) as unknown;
  return prototype === Object.prototype || prototype === null;
}

/** Plain, cloneable data only crosses back: JSON round trips drop functions, class instances' methods and cycles fail loudly. */
function toResult(value: unknown): ToolCallResult {
  if (value === undefined || value === null) return { content: [] };
  if (typeof value === 'string')
    return value === '' ? { content: [] } : { content: [{ type: 'text', text: truncate(value) }] };
  if (isCallToolResult(value)) {
    const result = JSON.parse(JSON.stringify(value, replaceBigInt)) as ToolCallResult;
    result.content = result.content.map((item: ToolContent) =>
      item.type === 'text' ? { ...item, text: truncate(String(item.text)) } : item,
    );
    return result;
  }
  const json = JSON.stringify(value, replaceBigInt);
  if (json === undefined) return { content: [] };
  const text = truncate(json);
  if (text !== json || !isPlainObject(value)) return { content: [{ type: 'text', text }] };
  return {
    content: [{ type: 'text', text }],
    structuredContent: JSON.parse(json) as Record<string, unknown>,
  };
}

async function runCall(message: Extract<ToWorkerMessage, { type: 'call' }>): Promise<void> {
  const controller = new AbortController();
  controllers.set(message.id, controller);
  const { id } = message;
  try {
    let module: Record<string, unknown>;
    try {
      module = await loadModule();
    } catch (error) {
      post({
        type: 'error',
        id,
        message: `Cannot load module ${start.modulePath}: ${describeError(error)}`,
      });
      return;
    }
    const tool = findTool(module, message.exportName);
    if (tool === undefined) {
      post({
        type: 'error',
        id,
        message: `Module ${start.modulePath} has no export "${message.exportName}" made with defineTool; re-run discovery after changing the module.`,
      });
      return;
    }
    const context: ToolRunContext = {
      signal: controller.signal,
      projectRoot: start.projectRoot,
      progress(progress, total, text) {
        if (typeof progress !== 'number' || !Number.isFinite(progress)) return;
        post({
          type: 'progress',
          id,
          progress,
          ...(typeof total === 'number' && Number.isFinite(total) ? { total } : {}),
          ...(typeof text === 'string' ? { message: text } : {}),
        });
      },
      log(level: ToolLogLevel, text: string) {
        post({ type: 'log', id, level, message: String(text) });
      },
    };
    const value = await tool.run(message.args, context);
    let result: ToolCallResult;
    try {
      result = toResult(value);
    } catch (error) {
      post({
        type: 'error',
        id,
        message: `The result of ${message.toolName} cannot be sent as JSON: ${describeError(error)}`,
      });
      return;
    }
    post({ type: 'result', id, result });
  } catch (error) {
    post({ type: 'error', id, message: describeError(error) });
  } finally {
    controllers.delete(id);
  }
}

port?.on('message', (message: ToWorkerMessage) => {
  switch (message.type) {
    case 'load':
      loadModule().then(
        () => post({ type: 'loaded' }),
        (error: unknown) => post({ type: 'load-error', message: describeError(error) }),
      );
      break;
    case 'call':
      void runCall(message);
      break;
    case 'abort':
      controllers.get(message.id)?.abort(message.reason);
      break;
  }
});

// Runs in a child process, one per JS/TS tool module. Its fd 1 and 2 are pipes the runner
// reads as logs; calls come and go as length-prefixed frames on CALL_CHANNEL_FD, so nothing a
// tool prints or writes to fd 1 can reach the server's protocol channel. Self-contained on
// purpose: it is bundled as its own entry, and it must load fast and without @toolpack/core
// (which would pull in ajv and zod before the user's module even starts).
import module from 'node:module';
import { Socket } from 'node:net';
import { isAbsolute } from 'node:path';
import { pathToFileURL } from 'node:url';
import type {
  ToolCallResult,
  ToolContent,
  ToolLogLevel,
  ToolQuestionAnswer,
  ToolRunContext,
} from '@toolpack/core';
import { isPlainObject, limitToolResult, replaceBigInt, truncateText } from '../results.ts';
import {
  CHANNEL_FD,
  type ChildStartData,
  type FromChildMessage,
  type ToChildMessage,
} from './child-protocol.ts';
import { createFrameReader, encodeFrame } from './frame-codec.ts';

// The same registry-wide symbol core's defineTool brands its values with (see isDefinedTool).
const TOOL_BRAND = Symbol.for('@toolpack/core/defined-tool');

interface RunnableTool {
  run(args: unknown, context: ToolRunContext): Promise<unknown>;
}

// A JS tool's first call waits on this child's start: V8's cached code of the user's module
// and what it imports (often @toolpack/core and zod) spares recompiling them on every start,
// as the CLI (bin.ts) and the listing child (list-module-tools.mjs) already do.
module.enableCompileCache?.();

const start = JSON.parse(process.argv[2] ?? '{}') as ChildStartData;
const channel = new Socket({ fd: CHANNEL_FD, readable: true, writable: true });
const controllers = new Map<number, AbortController>();
/** The questions calls asked (`context.ask`) and wait to hear answered, by call and ask id. */
const questions = new Map<
  string,
  { settle(answer: { answer: ToolQuestionAnswer } | { error: string }): void }
>();
let nextAskId = 1;
let loading: Promise<Record<string, unknown>> | undefined;
/** The module once imported: calls after the first find their tool without an await. */
let loaded: Record<string, unknown> | undefined;

function post(message: FromChildMessage): void {
  let frame: Buffer;
  try {
    frame = encodeFrame(message);
  } catch (error) {
    if (!('id' in message)) return;
    frame = encodeFrame({
      type: 'error',
      id: message.id,
      message: `A message of the tool could not be sent: ${describeError(error)}`,
    });
  }
  channel.write(frame);
}

function loadModule(): Promise<Record<string, unknown>> {
  if (loading === undefined) {
    const specifier = isAbsolute(start.modulePath)
      ? pathToFileURL(start.modulePath).href
      : start.modulePath;
    loading = import(specifier) as Promise<Record<string, unknown>>;
    loading.then(
      (module) => (loaded = module),
      () => undefined,
    );
  }
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
      (line) => line.startsWith('at ') && !line.includes('node:') && !line.includes('child-entry'),
    );
  const where =
    frame === undefined ? '' : ` (${frame.replace(/^at\s+/u, '').replace(/^.*\((.*)\)$/u, '$1')})`;
  return `${name}${error.message}${where}`;
}

function truncate(text: string): string {
  return truncateText(text, start.maxOutputBytes).text;
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

/** Plain data only crosses back: JSON round trips drop functions, class instances' methods and cycles fail loudly. */
function toResult(value: unknown, toolName: string): ToolCallResult {
  // Capped here too, so a result over the caps is never built into a frame at all.
  return limitToolResult(
    buildResult(value),
    {
      maxItems: start.maxResultItems,
      maxBytes: start.maxResultBytes,
    },
    toolName,
  );
}

function buildResult(value: unknown): ToolCallResult {
  if (value === undefined || value === null) return { content: [] };
  if (typeof value === 'string')
    return value === '' ? { content: [] } : { content: [{ type: 'text', text: truncate(value) }] };
  if (isCallToolResult(value)) {
    // Refused by the caps anyway: not worth a JSON round trip of every item first.
    if (value.content.length > start.maxResultItems) return value;
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

async function runCall(message: Extract<ToChildMessage, { type: 'call' }>): Promise<void> {
  const controller = new AbortController();
  controllers.set(message.id, controller);
  const { id } = message;
  try {
    let module: Record<string, unknown>;
    try {
      module = loaded ?? (await loadModule());
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
      ask(question) {
        return new Promise<ToolQuestionAnswer>((resolve, reject) => {
          if (controller.signal.aborted) {
            reject(new Error(`The call was stopped: ${String(controller.signal.reason)}`));
            return;
          }
          // Checked by the runner, which answers a bad one with why.
          const named: unknown = question?.key;
          const askId = nextAskId++;
          const key = `${id}:${askId}`;
          const onAbort = () => {
            questions.delete(key);
            reject(new Error(`The call was stopped: ${String(controller.signal.reason)}`));
          };
          controller.signal.addEventListener('abort', onAbort, { once: true });
          questions.set(key, {
            settle(answer) {
              controller.signal.removeEventListener('abort', onAbort);
              questions.delete(key);
              if ('error' in answer) reject(new Error(answer.error));
              else resolve(answer.answer);
            },
          });
          post({
            type: 'ask',
            id,
            askId,
            message: String(question?.message ?? ''),
            fields: question?.fields ?? [],
            ...(named === undefined ? {} : { key: String(named) }),
          });
        });
      },
    };
    const value = await tool.run(message.args, context);
    let result: ToolCallResult;
    try {
      result = toResult(value, message.toolName);
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

function receive(message: ToChildMessage): void {
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
    case 'answer':
      questions.get(`${message.id}:${message.askId}`)?.settle(message);
      break;
    case 'abort':
      controllers.get(message.id)?.abort(message.reason);
      break;
  }
}

channel.on(
  'data',
  createFrameReader({
    // Arguments were validated and bounded by the server; the cap only guards a broken channel.
    maxFrameBytes: 256 * 1024 * 1024,
    onMessage: (message) => receive(message as ToChildMessage),
    onViolation: () => process.exit(70),
  }),
);
// The server is gone (or closed the channel to retire this child): nothing more can be answered.
channel.on('end', () => process.exit(0));
channel.on('error', () => process.exit(0));

// A throw from a timer would end the process with only a stack on stderr: say what it was first.
process.on('uncaughtException', (error) => {
  channel.write(encodeFrame({ type: 'crash', message: describeError(error) }), () =>
    process.exit(70),
  );
  setTimeout(() => process.exit(70), 1_000).unref();
});

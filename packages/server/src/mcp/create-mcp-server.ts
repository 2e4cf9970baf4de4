import {
  MissingRequiredClientCapabilityError,
  ProtocolError,
  ProtocolErrorCode,
  Server,
  type CallToolRequest,
  type CallToolResult,
  type InputRequiredResult,
  type JSONRPCRequest,
  type LoggingLevel,
  type Notification,
  type Result,
  type ServerContext,
  type Tool,
} from '@modelcontextprotocol/server';
import type { ToolLogLevel } from '@toolpack/core';
import { z } from 'zod';
import type { ToolProgress, ToolQuestion, ToolQuestionAnswer } from '@toolpack/runners';
import type { ToolAnswer } from '../call-pipeline/call-tool.ts';
import {
  readTaskCallParams,
  relatedTaskMeta,
  serveTaskRequests,
  startToolTask,
  TASKS_CAPABILITY,
} from '../tasks/serve-tasks.ts';
import { createTaskStore, type TaskStore } from '../tasks/task-store.ts';
import {
  createClientAsker,
  readInputResponse,
  refuseQuestionInTask,
  toInputRequest,
  verifyElicitationDeclared,
} from './ask-client.ts';
import type { SuspendedCalls } from './suspended-calls.ts';
import { SERVED_PROTOCOL_VERSIONS } from './protocol-versions.ts';

/** What one protocol connection needs from the Toolpack server behind it. */
export interface McpToolHost {
  info: { name: string; version: string };
  instructions?: string;
  /** The tools/list answer, prepared once per reload so listing 1,000 tools costs nothing. */
  listTools(): Tool[];
  /**
   * How long a 2026-07-28 client may reuse a tools/list answer (its `ttlMs`) before asking
   * again; a reload that changes the list also sends tools/list_changed, which ends it early.
   * Without it the SDK answers `ttlMs: 0` (ask every time).
   */
  listTtlMs?: number;
  outputSchemaOf(name: string): Record<string, unknown> | undefined;
  callTool(
    name: string,
    args: unknown,
    options: {
      signal: AbortSignal;
      onProgress?(progress: ToolProgress): void;
      onLog(level: ToolLogLevel, message: string): void;
      ask?(question: ToolQuestion): Promise<ToolQuestionAnswer>;
    },
  ): Promise<ToolAnswer>;
}

// A stuck client must not hold answers back for long waiting on its notifications.
const FLUSH_LIMIT_MS = 1_000;
const PROGRESS_GAP_MS = 15;
const delay = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms).unref());

const LOG_LEVELS: Record<ToolLogLevel, LoggingLevel> = {
  debug: 'debug',
  info: 'info',
  notice: 'notice',
  warning: 'warning',
  error: 'error',
};

const MCP_LOG_LEVELS: readonly string[] = [
  'debug',
  'info',
  'notice',
  'warning',
  'error',
  'critical',
  'alert',
  'emergency',
];

type RequestHandler = (request: JSONRPCRequest, ctx: ServerContext) => Promise<Result>;

/** The 2026-07-28 tasks extension, which this server does not offer its 2026 clients. */
const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';
const TASK_METHODS = new Set([
  'tasks/get',
  'tasks/update',
  'tasks/cancel',
  'tasks/list',
  'tasks/result',
]);

/**
 * Whether a request came with the 2026-07-28 per-request envelope. The SDK lifts the
 * envelope out of `params._meta` before handlers run and hands it over in the context.
 */
function isModernRequest(ctx: ServerContext): boolean {
  return ctx.mcpReq.envelope !== undefined;
}

/**
 * The SDK validates the params of its built-in `logging/setLevel` with a plain Error, which
 * reaches the client as -32603 (an internal error) with a schema dump; a bad level is the
 * client's mistake and gets -32602 with the levels it may use.
 *
 * A task-augmented tools/call is answered with a CreateTaskResult, which the SDK's own
 * tools/call wrapper refuses (it checks every answer against CallToolResult); such calls go
 * to `callAsTask` before that wrapper. The session's tasks end with its connection.
 *
 * Tasks are 2025-11-25 vocabulary: under 2026-07-28 they are an extension this server does
 * not offer, so a 2026 request's `task` field is ignored (the call runs and is answered
 * synchronously, as the extension asks of a client that did not negotiate it) and the
 * tasks/* methods answer -32021 naming the extension. A 2026 request over HTTP gets a
 * server of its own, so a task started there could never have been read back.
 *
 * `server/discover` lists every revision served, not only the modern ones the SDK knows of:
 * a client that finds no 2026 revision it speaks can still initialize with a 2025 one.
 */
class ToolpackMcpServer extends Server {
  readonly tasks: TaskStore = createTaskStore();
  callAsTask: RequestHandler | undefined;

  protected override _wrapHandler(method: string, handler: RequestHandler): RequestHandler {
    const wrapped = super._wrapHandler(method, handler);
    if (method === 'tools/call') {
      return async (request, ctx) => {
        const task = (request.params as { task?: unknown } | undefined)?.task;
        if (task === undefined || this.callAsTask === undefined) return wrapped(request, ctx);
        if (isModernRequest(ctx)) {
          const { task: _ignored, ...params } = request.params as Record<string, unknown>;
          return wrapped({ ...request, params }, ctx);
        }
        return this.callAsTask(request, ctx);
      };
    }
    if (TASK_METHODS.has(method)) {
      return async (request, ctx) => {
        if (!isModernRequest(ctx)) return wrapped(request, ctx);
        throw new MissingRequiredClientCapabilityError(
          { requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } } },
          `${method} belongs to the ${TASKS_EXTENSION} extension, which this server does not offer 2026-07-28 clients; call the tool without a task and wait for its result.`,
        );
      };
    }
    if (method === 'server/discover') {
      return async (request, ctx) => ({
        ...(await wrapped(request, ctx)),
        supportedVersions: [...SERVED_PROTOCOL_VERSIONS],
      });
    }
    if (method !== 'logging/setLevel') return wrapped;
    return async (request, ctx) => {
      const level = (request.params as { level?: unknown } | undefined)?.level;
      if (typeof level !== 'string' || !MCP_LOG_LEVELS.includes(level)) {
        throw new ProtocolError(
          ProtocolErrorCode.InvalidParams,
          `Invalid params: "level" must be one of ${MCP_LOG_LEVELS.join(', ')}.`,
        );
      }
      return wrapped(request, ctx);
    };
  }

  protected override _onclose(): void {
    this.tasks.close();
    super._onclose();
  }
}

interface CallChannels {
  signal: AbortSignal;
  notify(notification: Notification): Promise<void>;
  log(level: LoggingLevel, message: string, logger: string): Promise<void>;
  ask(question: ToolQuestion): Promise<ToolQuestionAnswer>;
}

// Keyed by the tools/list array itself, which is replaced whole by each reload.
const listedByName = new WeakMap<readonly Tool[], Map<string, Tool>>();

function findListedTool(tools: readonly Tool[], name: string): Tool | undefined {
  let byName = listedByName.get(tools);
  if (byName === undefined) {
    byName = new Map(tools.map((tool) => [tool.name, tool]));
    listedByName.set(tools, byName);
  }
  return byName.get(name);
}

/**
 * A low-level SDK `Server` for one connection (or one request, on the stateless paths).
 * The low-level class, not `McpServer`: our tools arrive with finished JSON Schemas, and
 * `McpServer.registerTool` wants a schema library object per tool and rebuilds the list on
 * every tools/list; here tools/list hands back an array prepared at (re)load time.
 */
export function createMcpServerInstance(
  host: McpToolHost,
  suspended: SuspendedCalls<ServerContext>,
): Server {
  const server = new ToolpackMcpServer(
    { name: host.info.name, version: host.info.version },
    {
      // The SDK leaves `tasks` out of what it sends a 2026-07-28 client, where tasks are
      // an extension it does not implement yet (docs/serving-clients.md).
      capabilities: { tools: { listChanged: true }, logging: {}, tasks: TASKS_CAPABILITY },
      ...(host.instructions === undefined ? {} : { instructions: host.instructions }),
    },
  );

  const runCall = async (
    params: CallToolRequest['params'],
    channels: CallChannels,
  ): Promise<CallToolResult> => {
    const { name, arguments: args } = params;
    const progressToken = params._meta?.progressToken;
    // Notifications are sent asynchronously; the answer must not overtake them, or a client
    // drops the last progress updates (it stops listening once the call is answered).
    // Made with the first notification: most calls send none.
    let sending: Set<Promise<unknown>> | undefined;
    let lastProgressAt = 0;
    const track = (promise: Promise<unknown>) => {
      const pending = (sending ??= new Set());
      const settled = promise.catch(() => undefined).finally(() => pending.delete(settled));
      pending.add(settled);
    };
    const answer = await host.callTool(name, args, {
      signal: channels.signal,
      ...(progressToken === undefined
        ? {}
        : {
            onProgress: (progress: ToolProgress) => {
              lastProgressAt = performance.now();
              track(
                channels.notify({
                  method: 'notifications/progress',
                  params: {
                    progressToken,
                    progress: progress.progress,
                    ...(progress.total === undefined ? {} : { total: progress.total }),
                    ...(progress.message === undefined ? {} : { message: progress.message }),
                  },
                }),
              );
            },
          }),
      onLog: (level, message) => {
        track(channels.log(LOG_LEVELS[level] ?? 'info', message, name));
      },
      ask: channels.ask,
    });
    if ('unknownTool' in answer) {
      const { message, hint } = answer.unknownTool;
      throw new ProtocolError(
        ProtocolErrorCode.InvalidParams,
        `${message}${hint === undefined ? '' : ` ${hint}`}`,
      );
    }
    if (sending !== undefined && sending.size > 0)
      await Promise.race([Promise.all(sending), delay(FLUSH_LIMIT_MS)]);
    // SDK clients run notification handlers a microtask later but settle a response at once,
    // and forget the call's progress handler with it: a last progress update that arrives in
    // the same read as the answer is dropped. Leave it a moment to be read on its own.
    const sinceProgress = performance.now() - lastProgressAt;
    if (lastProgressAt > 0 && sinceProgress < PROGRESS_GAP_MS)
      await delay(PROGRESS_GAP_MS - sinceProgress);
    return server.projectCallToolResult(answer.result as CallToolResult, host.outputSchemaOf(name));
  };

  const requestChannels = (ctx: ServerContext): CallChannels => ({
    signal: ctx.mcpReq.signal,
    notify: ctx.mcpReq.notify,
    log: ctx.mcpReq.log,
    ask: createClientAsker(server, ctx, suspended.waitMs),
  });
  // 2025-era answers stay `{tools}` alone: the stdio transport sends those as a line
  // serialized once per reload (tools-list-line.ts).
  server.setRequestHandler('tools/list', (_request, ctx) =>
    isModernRequest(ctx) && host.listTtlMs !== undefined
      ? { tools: host.listTools(), ttlMs: host.listTtlMs }
      : { tools: host.listTools() },
  );
  /**
   * A 2026-07-28 call: a question the tool asks answers the request with `input_required`
   * while the tool stays suspended (see suspended-calls.ts); the client's retry with the
   * answer and the `requestState` runs it on. Progress and logs go to the request of the
   * current leg.
   */
  const runModernCall = async (
    params: CallToolRequest['params'],
    ctx: ServerContext,
  ): Promise<CallToolResult | InputRequiredResult> => {
    const binding = { tool: params.name, args: params.arguments ?? {} };
    const request = { signal: ctx.mcpReq.signal, context: ctx };
    const requestState = ctx.mcpReq.requestState();
    const leg =
      typeof requestState === 'string'
        ? await suspended.resume<CallToolResult>(
            requestState,
            binding,
            readInputResponse(
              ctx.mcpReq.inputResponses,
              suspended.questionOf(requestState, binding),
            ),
            request,
          )
        : await suspended.start<CallToolResult>(
            binding,
            (ask, signal, current) =>
              runCall(params, {
                signal,
                notify: (notification) => current().mcpReq.notify(notification),
                log: (level, data, logger) => current().mcpReq.log(level, data, logger),
                ask: (question) => {
                  verifyElicitationDeclared(current());
                  return ask(question);
                },
              }),
            request,
          );
    if (leg.kind === 'done') return leg.result;
    if (leg.kind === 'failed') throw leg.error;
    return {
      resultType: 'input_required',
      inputRequests: toInputRequest(leg.question),
      requestState: leg.requestState,
    };
  };
  server.setRequestHandler('tools/call', (request, ctx) =>
    isModernRequest(ctx)
      ? runModernCall(request.params, ctx)
      : runCall(request.params, requestChannels(ctx)),
  );

  serveTaskRequests(server, server.tasks);
  // Only the 2026 tasks extension has tasks/update; registered so that a 2026 client gets
  // the extension's -32021 for it like for the other tasks/* methods (see _wrapHandler).
  server.setRequestHandler('tasks/update', { params: z.looseObject({}) }, () => {
    throw new ProtocolError(ProtocolErrorCode.MethodNotFound, 'Method not found');
  });
  server.callAsTask = async (request, ctx) => {
    const { task, ...plain } = readTaskCallParams(request.params);
    const params = plain as CallToolRequest['params'];
    const tool = findListedTool(host.listTools(), params.name);
    // An unknown or denied tool gets the answer a plain call gets (an error, or a refusal).
    if (tool === undefined) return runCall(params, requestChannels(ctx));
    return startToolTask({
      store: server.tasks,
      tool,
      requestedTtl: task.ttl,
      // The call has been answered with the task: what it sends later goes to the session,
      // tied to the task, as the spec asks (the progress token stays valid for the task).
      run: (signal, taskId) =>
        runCall(params, {
          signal,
          notify: (notification) =>
            server.notification({
              ...notification,
              params: { ...notification.params, _meta: relatedTaskMeta(taskId) },
            } as Notification),
          log: (level, data, logger) => server.sendLoggingMessage({ level, data, logger }),
          ask: refuseQuestionInTask,
        }),
    });
  };
  return server;
}

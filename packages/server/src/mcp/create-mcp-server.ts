import {
  ProtocolError,
  ProtocolErrorCode,
  Server,
  type CallToolResult,
  type JSONRPCRequest,
  type LoggingLevel,
  type Result,
  type ServerContext,
  type Tool,
} from '@modelcontextprotocol/server';
import type { ToolLogLevel } from '@toolpack/core';
import type { ToolProgress } from '@toolpack/runners';
import type { ToolAnswer } from '../call-pipeline/call-tool.ts';

/** What one protocol connection needs from the Toolpack server behind it. */
export interface McpToolHost {
  info: { name: string; version: string };
  instructions?: string;
  /** The tools/list answer, prepared once per reload so listing 1,000 tools costs nothing. */
  listTools(): Tool[];
  outputSchemaOf(name: string): Record<string, unknown> | undefined;
  callTool(
    name: string,
    args: unknown,
    options: {
      signal: AbortSignal;
      onProgress?(progress: ToolProgress): void;
      onLog(level: ToolLogLevel, message: string): void;
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

/**
 * The SDK validates the params of its built-in `logging/setLevel` with a plain Error, which
 * reaches the client as -32603 (an internal error) with a schema dump; a bad level is the
 * client's mistake and gets -32602 with the levels it may use.
 */
class ToolpackMcpServer extends Server {
  protected override _wrapHandler(method: string, handler: RequestHandler): RequestHandler {
    const wrapped = super._wrapHandler(method, handler);
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
}

/**
 * A low-level SDK `Server` for one connection (or one request, on the stateless paths).
 * The low-level class, not `McpServer`: our tools arrive with finished JSON Schemas, and
 * `McpServer.registerTool` wants a schema library object per tool and rebuilds the list on
 * every tools/list; here tools/list hands back an array prepared at (re)load time.
 */
export function createMcpServerInstance(host: McpToolHost): Server {
  const server = new ToolpackMcpServer(
    { name: host.info.name, version: host.info.version },
    {
      capabilities: { tools: { listChanged: true }, logging: {} },
      ...(host.instructions === undefined ? {} : { instructions: host.instructions }),
    },
  );
  server.setRequestHandler('tools/list', () => ({ tools: host.listTools() }));
  server.setRequestHandler('tools/call', async (request, ctx) => {
    const { name, arguments: args } = request.params;
    const progressToken = request.params._meta?.progressToken;
    const notify = ctx.mcpReq.notify;
    const log = ctx.mcpReq.log;
    // Notifications are sent asynchronously; the answer must not overtake them, or a client
    // drops the last progress updates (it stops listening once the call is answered).
    const sending = new Set<Promise<unknown>>();
    let lastProgressAt = 0;
    const track = (promise: Promise<unknown>) => {
      const settled = promise.catch(() => undefined).finally(() => sending.delete(settled));
      sending.add(settled);
    };
    const answer = await host.callTool(name, args, {
      signal: ctx.mcpReq.signal,
      ...(progressToken === undefined
        ? {}
        : {
            onProgress: (progress: ToolProgress) => {
              lastProgressAt = performance.now();
              track(
                notify({
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
        track(log(LOG_LEVELS[level] ?? 'info', message, name));
      },
    });
    if ('unknownTool' in answer) {
      const { message, hint } = answer.unknownTool;
      throw new ProtocolError(
        ProtocolErrorCode.InvalidParams,
        `${message}${hint === undefined ? '' : ` ${hint}`}`,
      );
    }
    if (sending.size > 0) await Promise.race([Promise.all(sending), delay(FLUSH_LIMIT_MS)]);
    // SDK clients run notification handlers a microtask later but settle a response at once,
    // and forget the call's progress handler with it: a last progress update that arrives in
    // the same read as the answer is dropped. Leave it a moment to be read on its own.
    const sinceProgress = performance.now() - lastProgressAt;
    if (lastProgressAt > 0 && sinceProgress < PROGRESS_GAP_MS)
      await delay(PROGRESS_GAP_MS - sinceProgress);
    return server.projectCallToolResult(answer.result as CallToolResult, host.outputSchemaOf(name));
  });
  return server;
}

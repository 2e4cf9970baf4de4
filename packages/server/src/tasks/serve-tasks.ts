import {
  ProtocolError,
  ProtocolErrorCode,
  RELATED_TASK_META_KEY,
  type CallToolResult,
  type Result,
  type Server,
  type Tool,
} from '@modelcontextprotocol/server';
import { z } from 'zod';
import { TaskRequestError, type TaskStore } from './task-store.ts';

/**
 * The 2025-11-25 `tasks` capability: tools/call may be task-augmented, and tasks can be
 * listed and cancelled. Listing is safe because a store belongs to one session.
 */
export const TASKS_CAPABILITY = {
  list: {},
  cancel: {},
  requests: { tools: { call: {} } },
} as const;

const TaskIdParams = z.looseObject({ taskId: z.string() });
// What a task-augmented tools/call must carry; the SDK's own check of tools/call is skipped
// on this path (its wrapper would refuse the CreateTaskResult).
const TaskCallParams = z.looseObject({
  name: z.string(),
  arguments: z.record(z.string(), z.unknown()).optional(),
  task: z.looseObject({ ttl: z.number().nonnegative().optional() }),
});
const ListParams = z.looseObject({ cursor: z.string().optional() });

function toProtocolError(error: unknown): unknown {
  if (!(error instanceof TaskRequestError)) return error;
  // A full store is the server protecting itself, not a malformed request.
  const code =
    error.kind === 'full' ? ProtocolErrorCode.InternalError : ProtocolErrorCode.InvalidParams;
  return new ProtocolError(code, error.message);
}

async function answering<T>(work: () => T | Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    throw toProtocolError(error);
  }
}

/** The params of a task-augmented tools/call, or -32602 naming what is wrong. */
export function readTaskCallParams(params: unknown): z.infer<typeof TaskCallParams> {
  const parsed = TaskCallParams.safeParse(params);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  throw new ProtocolError(
    ProtocolErrorCode.InvalidParams,
    `Invalid task-augmented tools/call: ${issue?.path.join('.') || 'params'}: ${issue?.message ?? 'invalid'}.`,
  );
}

/** `_meta` that ties a message to its task, as the spec asks of everything a task sends. */
export function relatedTaskMeta(taskId: string): Record<string, unknown> {
  return { [RELATED_TASK_META_KEY]: { taskId } };
}

/**
 * Serves tasks/get, tasks/result, tasks/cancel and tasks/list from `store`. The SDK (2.4)
 * parses the task vocabulary but has no runtime for it and keeps the methods out of its
 * typed handler surface, so they are registered as custom methods with their own params.
 */
export function serveTaskRequests(server: Server, store: TaskStore): void {
  server.setRequestHandler('tasks/get', { params: TaskIdParams }, (params) =>
    answering(() => ({ ...store.get(params.taskId) })),
  );
  server.setRequestHandler('tasks/cancel', { params: TaskIdParams }, (params) =>
    answering(() => ({ ...store.cancel(params.taskId) })),
  );
  server.setRequestHandler('tasks/list', { params: ListParams }, (params) =>
    answering(() => store.list(params.cursor)),
  );
  server.setRequestHandler('tasks/result', { params: TaskIdParams }, (params) =>
    answering(async (): Promise<Result> => {
      const settled = await store.outcome(params.taskId);
      if ('error' in settled) throw settled.error;
      const result: CallToolResult = settled.result;
      return { ...result, _meta: { ...result._meta, ...relatedTaskMeta(params.taskId) } };
    }),
  );
}

/**
 * Starts a task-augmented tools/call: the tool must be listed with `execution.taskSupport`
 * (the spec's -32601 otherwise). Answers the CreateTaskResult at once; the run goes on
 * with the task's own AbortSignal, so tasks/cancel stops it as a cancelled call would.
 */
export function startToolTask(options: {
  store: TaskStore;
  tool: Tool;
  requestedTtl: number | undefined;
  run(signal: AbortSignal, taskId: string): Promise<CallToolResult>;
}): Promise<Result> {
  const { store, tool } = options;
  const support = tool.execution?.taskSupport;
  if (support !== 'optional' && support !== 'required')
    throw new ProtocolError(
      ProtocolErrorCode.MethodNotFound,
      `Tool "${tool.name}" does not run as a task (it does not declare itself long-running); call it without "task".`,
    );
  return answering(() => ({ task: { ...store.start(options.run, options.requestedTtl) } }));
}

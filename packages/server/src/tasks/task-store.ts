import { randomUUID } from 'node:crypto';
import type { CallToolResult, Task } from '@modelcontextprotocol/server';

/** How a run ended: the tool's answer, or the error the plain call would have answered. */
export type TaskOutcome = { result: CallToolResult } | { error: Error };

export interface TaskStoreOptions {
  /** Lifetime when the client asks for none. Default 10 minutes. */
  defaultTtlMs?: number;
  /** A client's `ttl` is clamped to [minTtlMs, maxTtlMs]. Defaults 1 second and 1 hour. */
  minTtlMs?: number;
  maxTtlMs?: number;
  /** Tasks one session keeps at once; the oldest finished one makes room. Default 100. */
  maxTasks?: number;
  /** The poll interval suggested to clients. Default 1 second. */
  pollIntervalMs?: number;
  /** Page size of tasks/list. Default 50. */
  pageSize?: number;
}

export const TASK_DEFAULTS = {
  defaultTtlMs: 10 * 60_000,
  minTtlMs: 1_000,
  maxTtlMs: 60 * 60_000,
  maxTasks: 100,
  pollIntervalMs: 1_000,
  pageSize: 50,
} as const satisfies Required<TaskStoreOptions>;

/** Why a task request was refused; the MCP layer turns it into a JSON-RPC error. */
export class TaskRequestError extends Error {
  readonly kind: 'unknown-task' | 'terminal' | 'bad-cursor' | 'full';
  constructor(kind: TaskRequestError['kind'], message: string) {
    super(message);
    this.kind = kind;
  }
}

interface StoredTask {
  task: Task;
  controller: AbortController;
  outcome: Promise<TaskOutcome>;
  expiry: NodeJS.Timeout;
}

export interface TaskStore {
  /**
   * Starts `run` as a new task and returns it in the `working` status. Throws a
   * `TaskRequestError` ('full') when `maxTasks` are all still running.
   */
  start(
    run: (signal: AbortSignal, taskId: string) => Promise<CallToolResult>,
    requestedTtl?: number,
  ): Task;
  get(taskId: string): Task;
  /** Waits for the run to settle (whatever the status) and answers what it answered. */
  outcome(taskId: string): Promise<TaskOutcome>;
  /** Marks the task cancelled and aborts its run (the runner stops the process). */
  cancel(taskId: string): Task;
  list(cursor?: string): { tasks: Task[]; nextCursor?: string };
  /** Aborts every run and forgets every task: the session is gone. */
  close(): void;
}

const TERMINAL = new Set<Task['status']>(['completed', 'failed', 'cancelled']);

// tasks/get is polled every second: a failed tool's whole output does not belong in it.
const STATUS_MESSAGE_LIMIT = 1_000;

function firstText(result: CallToolResult): string | undefined {
  const block = result.content?.find((item) => item.type === 'text');
  if (block?.type !== 'text') return undefined;
  return block.text.length > STATUS_MESSAGE_LIMIT
    ? `${block.text.slice(0, STATUS_MESSAGE_LIMIT)}…`
    : block.text;
}

/**
 * The tasks of one session (one SDK `Server`): another session holds another store and
 * cannot name these. Memory stays bounded: each task lives `ttl` from its creation (an
 * unfinished one is stopped then), and at most `maxTasks` are kept, the oldest finished one
 * dropped to make room.
 */
export function createTaskStore(options: TaskStoreOptions = {}): TaskStore {
  const settings = { ...TASK_DEFAULTS, ...options };
  const tasks = new Map<string, StoredTask>();

  const find = (taskId: string): StoredTask => {
    const stored = tasks.get(taskId);
    if (stored === undefined)
      throw new TaskRequestError(
        'unknown-task',
        `No task "${taskId}" in this session: it never existed here, or its ttl ran out.`,
      );
    return stored;
  };
  const update = (stored: StoredTask, status: Task['status'], statusMessage?: string) => {
    if (TERMINAL.has(stored.task.status)) return;
    stored.task = {
      ...stored.task,
      status,
      ...(statusMessage === undefined ? {} : { statusMessage }),
      lastUpdatedAt: new Date().toISOString(),
    };
  };
  const forget = (taskId: string) => {
    const stored = tasks.get(taskId);
    if (stored === undefined) return;
    clearTimeout(stored.expiry);
    stored.controller.abort(new Error('The task expired.'));
    tasks.delete(taskId);
  };
  const makeRoom = () => {
    if (tasks.size < settings.maxTasks) return;
    for (const [taskId, stored] of tasks) {
      if (TERMINAL.has(stored.task.status)) {
        forget(taskId);
        return;
      }
    }
    throw new TaskRequestError(
      'full',
      `This session already runs ${settings.maxTasks} tasks; wait for one to finish or cancel one (tasks/cancel).`,
    );
  };

  return {
    start(run, requestedTtl) {
      makeRoom();
      const ttl = Math.min(
        settings.maxTtlMs,
        Math.max(settings.minTtlMs, requestedTtl ?? settings.defaultTtlMs),
      );
      const now = new Date().toISOString();
      const taskId = randomUUID();
      const controller = new AbortController();
      const task: Task = {
        taskId,
        status: 'working',
        ttl,
        createdAt: now,
        lastUpdatedAt: now,
        pollInterval: settings.pollIntervalMs,
      };
      // A run that throws before its first await fails the task, not the tools/call.
      const outcome = Promise.resolve()
        .then(() => run(controller.signal, taskId))
        .then(
          (result): TaskOutcome => ({ result }),
          (error: unknown): TaskOutcome => ({
            error: error instanceof Error ? error : new Error(String(error)),
          }),
        );
      const stored: StoredTask = {
        task,
        controller,
        outcome,
        expiry: setTimeout(() => forget(taskId), ttl).unref(),
      };
      tasks.set(taskId, stored);
      void outcome.then((settled) => {
        if ('error' in settled) update(stored, 'failed', settled.error.message);
        else if (settled.result.isError === true)
          update(stored, 'failed', firstText(settled.result));
        else update(stored, 'completed');
      });
      return task;
    },
    get: (taskId) => find(taskId).task,
    outcome: (taskId) => find(taskId).outcome,
    cancel(taskId) {
      const stored = find(taskId);
      if (TERMINAL.has(stored.task.status))
        throw new TaskRequestError(
          'terminal',
          `Task "${taskId}" is already ${stored.task.status}; only a working task can be cancelled.`,
        );
      update(stored, 'cancelled', 'Cancelled by the client.');
      stored.controller.abort(new Error('The client cancelled the task.'));
      return stored.task;
    },
    list(cursor) {
      const all = [...tasks.values()].map((stored) => stored.task);
      let start = 0;
      if (cursor !== undefined) {
        const at = all.findIndex((task) => task.taskId === cursor);
        if (at < 0)
          throw new TaskRequestError(
            'bad-cursor',
            `The cursor "${cursor}" names no task of this session; start again without a cursor.`,
          );
        start = at + 1;
      }
      const page = all.slice(start, start + settings.pageSize);
      const last = page.at(-1);
      return start + page.length < all.length && last !== undefined
        ? { tasks: page, nextCursor: last.taskId }
        : { tasks: page };
    },
    close() {
      for (const taskId of [...tasks.keys()]) forget(taskId);
    },
  };
}

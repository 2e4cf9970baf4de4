import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { Worker, type ResourceLimits } from 'node:worker_threads';
import {
  readNodeOptionsConditionFlags,
  type ToolCallResult,
  type ToolInvocation,
} from '@toolpack/core';
import { createConcurrencyLimiter } from '../concurrency-limiter.ts';
import { createErrorResult } from '../results.ts';
import type { KindRunner, RunnerCall } from '../runner-types.ts';
import { describeStopReason } from '../runner-types.ts';
import type { FromWorkerMessage, ToWorkerMessage, WorkerStartData } from './worker-protocol.ts';

type WorkerInvocation = Extract<ToolInvocation, { runner: 'node-worker' }>;

export interface NodeWorkerRunnerOptions {
  projectRoot: string;
  maxOutputBytes: number;
  concurrency: number;
  environment: Readonly<Record<string, string>>;
  /** How long an aborted call may take to honour its signal before its worker is terminated. */
  stopGraceMs: number;
  resourceLimits?: ResourceLimits;
  /**
   * Node flags for workers (e.g. `--conditions=...`). When absent, workers get the server's
   * own, plus the condition flags of its NODE_OPTIONS (which a worker given its own `env`
   * would not read), so a tool resolves packages as the server does.
   */
  execArgv?: string[];
}

export interface NodeWorkerRunner extends KindRunner {
  /** Starts the module's worker and imports the module, so the first call does not pay for it. */
  warm(modulePath: string): Promise<void>;
  /**
   * Forgets the workers of these modules (all when absent): the next call imports the module
   * afresh in a new worker; the old one ends once its running calls have answered.
   */
  reload(modulePaths?: readonly string[]): void;
  readonly workerCount: number;
}

/**
 * The worker entry sits next to this module: `worker-entry.ts` in the sources (Node strips
 * the types), `worker-entry.mjs` next to the bundled `dist/index.mjs`.
 */
export function resolveWorkerEntry(): URL {
  for (const name of ['./worker-entry.mjs', './worker-entry.ts']) {
    const url = new URL(name, import.meta.url);
    if (existsSync(url)) return url;
  }
  return new URL('./worker-entry.mjs', import.meta.url);
}

interface PendingCall {
  call: RunnerCall;
  /** Bytes of console output still forwarded as logs for this call. */
  consoleBudget: number;
  settle(result: ToolCallResult): void;
}

const CONSOLE_LOG_LIMIT_BYTES = 64 * 1024;

interface ModuleWorker {
  readonly modulePath: string;
  readonly worker: Worker;
  readonly pending: Map<number, PendingCall>;
  /** Calls told to stop that have not ended yet: the worker may be stuck in a loop. */
  readonly stopping: Set<number>;
  /** Resolved when `stopping` empties or the worker is retired. */
  stopWaiters: Array<() => void>;
  loaded: Promise<void> | undefined;
  dead: boolean;
  /** Set by `reload`: no new calls come here, and the worker ends with its last call. */
  retireWhenIdle: boolean;
}

function releaseStopWaiters(handle: ModuleWorker): void {
  const waiters = handle.stopWaiters;
  handle.stopWaiters = [];
  for (const waiter of waiters) waiter();
}

function whenNoCallIsStopping(handle: ModuleWorker): Promise<void> {
  if (handle.stopping.size === 0 || handle.dead) return Promise.resolve();
  return new Promise((resolveWait) => handle.stopWaiters.push(resolveWait));
}

function abortedPromise(signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolveAbort) =>
    signal.addEventListener('abort', () => resolveAbort(), { once: true }),
  );
}

export function createNodeWorkerRunner(options: NodeWorkerRunnerOptions): NodeWorkerRunner {
  const limiter = createConcurrencyLimiter(options.concurrency);
  const workers = new Map<string, ModuleWorker>();
  const live = new Set<ModuleWorker>();
  const entry = resolveWorkerEntry();
  const fromNodeOptions = readNodeOptionsConditionFlags();
  const execArgv =
    options.execArgv ??
    (fromNodeOptions.length > 0 ? [...process.execArgv, ...fromNodeOptions] : undefined);
  let nextId = 1;
  let closed = false;

  const retire = (handle: ModuleWorker, reason: string): void => {
    if (handle.dead) return;
    handle.dead = true;
    live.delete(handle);
    if (workers.get(handle.modulePath) === handle) workers.delete(handle.modulePath);
    void handle.worker.terminate().catch(() => {});
    for (const [id, pending] of handle.pending) {
      handle.pending.delete(id);
      pending.settle(
        createErrorResult(`Tool "${pending.call.tool.name}" did not finish: ${reason}`),
      );
    }
    handle.stopping.clear();
    releaseStopWaiters(handle);
  };

  const retireIfIdle = (handle: ModuleWorker): void => {
    if (handle.retireWhenIdle && handle.pending.size === 0)
      retire(handle, 'the module was reloaded.');
  };

  const spawnWorker = (modulePath: string): ModuleWorker => {
    const startData: WorkerStartData = {
      modulePath,
      projectRoot: options.projectRoot,
      maxOutputBytes: options.maxOutputBytes,
    };
    const worker = new Worker(entry, {
      workerData: startData,
      env: { ...options.environment, TOOLPACK_PROJECT_ROOT: options.projectRoot },
      // Captured so console output of a tool can never reach the server's stdout (the MCP channel).
      stdout: true,
      stderr: true,
      ...(options.resourceLimits === undefined ? {} : { resourceLimits: options.resourceLimits }),
      ...(execArgv === undefined ? {} : { execArgv }),
    });
    const handle: ModuleWorker = {
      modulePath,
      worker,
      pending: new Map(),
      stopping: new Set(),
      stopWaiters: [],
      loaded: undefined,
      dead: false,
      retireWhenIdle: false,
    };
    live.add(handle);

    const forwardConsole = (level: 'info' | 'warning') => (chunk: Buffer) => {
      // Output cannot be attributed to a call when several run at once; then it is dropped.
      if (handle.pending.size !== 1) return;
      const [pending] = handle.pending.values();
      if (pending === undefined || pending.consoleBudget <= 0) return;
      const text = chunk
        .subarray(0, Math.min(chunk.length, pending.consoleBudget))
        .toString('utf8')
        .trimEnd();
      pending.consoleBudget -= chunk.length;
      if (text !== '') pending.call.onLog(level, text);
    };
    worker.stdout.on('data', forwardConsole('info'));
    worker.stderr.on('data', forwardConsole('warning'));

    worker.on('message', (message: FromWorkerMessage) => {
      if (message.type === 'loaded' || message.type === 'load-error') return;
      const pending = handle.pending.get(message.id);
      if (pending === undefined) return;
      switch (message.type) {
        case 'result':
          handle.pending.delete(message.id);
          pending.settle(message.result);
          retireIfIdle(handle);
          break;
        case 'error':
          handle.pending.delete(message.id);
          pending.settle(createErrorResult(message.message));
          retireIfIdle(handle);
          break;
        case 'progress':
          pending.call.onProgress({
            progress: message.progress,
            ...(message.total === undefined ? {} : { total: message.total }),
            ...(message.message === undefined ? {} : { message: message.message }),
          });
          break;
        case 'log':
          pending.call.onLog(message.level, message.message);
          break;
      }
    });
    worker.on('error', (error: Error & { code?: string }) => {
      const what =
        error.code === 'ERR_WORKER_OUT_OF_MEMORY'
          ? `the worker for ${modulePath} ran out of memory${formatMemoryLimit(options.resourceLimits)} and was replaced.`
          : `the worker for ${modulePath} crashed (${error.message}) and was replaced.`;
      retire(handle, what);
    });
    worker.on('exit', (code) => {
      retire(
        handle,
        `the worker for ${modulePath} exited (code ${code}), e.g. through process.exit(); it was replaced.`,
      );
    });
    return handle;
  };

  const getWorker = (modulePath: string): ModuleWorker => {
    let handle = workers.get(modulePath);
    if (handle === undefined || handle.dead) {
      handle = spawnWorker(modulePath);
      workers.set(modulePath, handle);
    }
    return handle;
  };

  const runOnWorker = (
    handle: ModuleWorker,
    call: RunnerCall,
    invocation: WorkerInvocation,
  ): Promise<ToolCallResult> =>
    new Promise((settle) => {
      const id = nextId++;
      let graceTimer: NodeJS.Timeout | undefined;
      const onAbort = (): void => {
        const reason = describeStopReason(call.signal.reason);
        handle.stopping.add(id);
        post(handle, { type: 'abort', id, reason });
        // A tool stuck in a loop never sees its signal: replace the worker after the grace period.
        graceTimer = setTimeout(() => {
          if (!handle.pending.has(id)) return;
          retire(
            handle,
            `the worker for ${handle.modulePath} was replaced because tool "${call.tool.name}" ignored its ${reason} ` +
              `for ${options.stopGraceMs} ms (a synchronous loop?); calls running on it were interrupted, retry them.`,
          );
        }, options.stopGraceMs);
        graceTimer.unref();
      };
      handle.pending.set(id, {
        call,
        consoleBudget: CONSOLE_LOG_LIMIT_BYTES,
        settle(result) {
          clearTimeout(graceTimer);
          call.signal.removeEventListener('abort', onAbort);
          if (handle.stopping.delete(id) && handle.stopping.size === 0) releaseStopWaiters(handle);
          settle(result);
        },
      });
      call.signal.addEventListener('abort', onAbort, { once: true });
      const failure = post(handle, {
        type: 'call',
        id,
        exportName: invocation.exportName,
        toolName: call.tool.name,
        args: call.args,
      });
      if (failure !== undefined) {
        // Without this the call would wait for its timeout: the worker never saw it.
        const message =
          `Tool "${call.tool.name}" was not run: its arguments could not be passed to the ` +
          `worker (${failure.message}). Send less deeply nested arguments.`;
        const pending = handle.pending.get(id);
        handle.pending.delete(id);
        pending?.settle(createErrorResult(message));
        return;
      }
      if (call.signal.aborted) onAbort();
    });

  return {
    async execute(call) {
      const invocation = call.tool.invocation as WorkerInvocation;
      const release = await limiter.acquire(call.signal);
      if (release === undefined) {
        return createErrorResult(
          `Tool "${call.tool.name}" was stopped (${describeStopReason(call.signal.reason)}) before it started.`,
        );
      }
      try {
        if (closed)
          return createErrorResult(`Tool "${call.tool.name}" was not run: the runner is closed.`);
        const modulePath = resolve(options.projectRoot, invocation.modulePath);
        let handle = getWorker(modulePath);
        // A call that ignored its stop may have the worker stuck in a loop: wait until it ends
        // or the worker is replaced, rather than queue behind a loop.
        while (handle.stopping.size > 0 && !handle.dead) {
          await Promise.race([whenNoCallIsStopping(handle), abortedPromise(call.signal)]);
          if (call.signal.aborted) {
            return createErrorResult(
              `Tool "${call.tool.name}" was stopped (${describeStopReason(call.signal.reason)}) before it started.`,
            );
          }
          handle = getWorker(modulePath);
        }
        return await runOnWorker(handle, call, invocation);
      } finally {
        release();
      }
    },
    warm(modulePath) {
      const handle = getWorker(resolve(options.projectRoot, modulePath));
      handle.loaded ??= new Promise<void>((done) => {
        const onMessage = (message: FromWorkerMessage): void => {
          if (message.type !== 'loaded' && message.type !== 'load-error') return;
          handle.worker.off('message', onMessage);
          done();
        };
        handle.worker.on('message', onMessage);
        handle.worker.once('exit', () => done());
        post(handle, { type: 'load' });
      });
      return handle.loaded;
    },
    reload(modulePaths) {
      const targets =
        modulePaths === undefined
          ? undefined
          : new Set(modulePaths.map((path) => resolve(options.projectRoot, path)));
      for (const [modulePath, handle] of [...workers]) {
        if (targets !== undefined && !targets.has(modulePath)) continue;
        workers.delete(modulePath);
        handle.retireWhenIdle = true;
        retireIfIdle(handle);
      }
    },
    get workerCount() {
      return workers.size;
    },
    async close() {
      closed = true;
      // Every live worker, including those a reload took out of the map that still run calls.
      const all = [...live];
      for (const handle of all) retire(handle, 'the runner was closed.');
      await Promise.all(all.map((handle) => handle.worker.terminate().catch(() => 0)));
    },
  };
}

/** Returns the error when the message could not be cloned (e.g. arguments nested ~10,000 deep). */
function post(handle: ModuleWorker, message: ToWorkerMessage): Error | undefined {
  if (handle.dead) return undefined;
  try {
    handle.worker.postMessage(message);
    return undefined;
  } catch (error) {
    // A terminated worker is handled by 'exit'; a clone failure is the caller's to answer.
    return error instanceof Error ? error : new Error(String(error));
  }
}

function formatMemoryLimit(limits: ResourceLimits | undefined): string {
  return limits?.maxOldGenerationSizeMb === undefined
    ? ''
    : ` (limit ${limits.maxOldGenerationSizeMb} MB)`;
}

import { existsSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Readable, Writable } from 'node:stream';
import {
  buildCompileCacheEnvironment,
  spawnContained,
  type ContainedProcess,
} from '@toolpack/containment';
import {
  pickConditionFlags,
  readNodeOptionsConditionFlags,
  TOOL_QUESTION_KEY_PATTERN,
  type ToolCallResult,
  type ToolInvocation,
} from '@toolpack/core';
import { askWithoutSlot, createConcurrencyLimiter, holdSlot } from '../concurrency-limiter.ts';
import { describeQuestionFailure } from '../describe-question-failure.ts';
import { createSandboxPlanner } from '../plan-call-sandbox.ts';
import { readQuestionFields } from '../read-question-fields.ts';
import { createErrorResult, noteParsedJsonBytes } from '../results.ts';
import type { CallConfinement, KindRunner, RunnerCall } from '../runner-types.ts';
import { describeStopReason } from '../runner-types.ts';
import { findInstallFolder } from '@toolpack/containment';
import type { ChildStartData, FromChildMessage, ToChildMessage } from './child-protocol.ts';
import { CHANNEL_FD } from './child-protocol.ts';
import { createFrameReader, encodeFrame } from './frame-codec.ts';
import { readTreeResidentBytes } from './resident-memory.ts';

type ModuleInvocation = Extract<ToolInvocation, { runner: 'node-worker' }>;

export interface NodeChildRunnerOptions {
  projectRoot: string;
  maxOutputBytes: number;
  /** Caps on one whole result; the call channel refuses a frame larger than the byte cap. */
  maxResultBytes: number;
  maxResultItems: number;
  concurrency: number;
  /** How long an aborted call may take to honour its signal before its child is killed. */
  stopGraceMs: number;
  /** V8 old-space limit of each child (`--max-old-space-size`). */
  maxHeapMb: number;
  /** Resident memory of each child and all it started, watched from outside: over it, the child is killed. */
  maxResidentMb: number;
  /**
   * Node flags for the children (e.g. `--conditions=...`). When absent, children get the
   * condition flags of the server's own flags and of its NODE_OPTIONS (which the allow-listed
   * environment of a child does not carry), so a tool resolves packages as the server does.
   */
  execArgv?: string[];
}

export interface NodeChildRunner extends KindRunner {
  /** Starts the module's child and imports the module, so the first call does not pay for it. */
  warm(modulePath: string, confinement: CallConfinement): Promise<void>;
  /**
   * Forgets the children of these modules (all when absent): the next call imports the module
   * afresh in a new child; the old one ends once its running calls have answered.
   */
  reload(modulePaths?: readonly string[]): void;
  readonly childCount: number;
}

/**
 * The child entry sits next to this module: `child-entry.ts` in the sources (Node strips
 * the types), `node-child-entry.mjs` next to the bundled `dist/index.mjs`.
 */
export function resolveChildEntry(): URL {
  for (const name of ['./node-child-entry.mjs', './child-entry.ts']) {
    const url = new URL(name, import.meta.url);
    if (existsSync(url)) return url;
  }
  return new URL('./node-child-entry.mjs', import.meta.url);
}

/**
 * The code the child entry loads, as a folder to bind into a sandbox: the bundle's folder, or
 * in the sources the `src/` folder (the entry imports `../results.ts`).
 */
function findChildCodeFolder(entry: URL): string {
  const folder = dirname(fileURLToPath(entry));
  return entry.pathname.endsWith('.ts') ? dirname(folder) : folder;
}

interface PendingCall {
  call: RunnerCall;
  /** Bytes of console output still forwarded as logs for this call. */
  consoleBudget: number;
  settle(result: ToolCallResult): void;
}

const CONSOLE_LOG_LIMIT_BYTES = 64 * 1024;
/** One log or progress message from a tool, at most; the rest is cut. */
const MESSAGE_LIMIT_CHARS = 64 * 1024;
/** Room for the frame's own fields around a result of the largest allowed size. */
const FRAME_ENVELOPE_BYTES = 64 * 1024;
/** How often a child's resident memory is read while it runs calls (a read costs ~0.1 ms)... */
const MEMORY_POLL_MS = 50;
/** ...and, in ticks of MEMORY_POLL_MS, while it is idle (only its timers can allocate then). */
const IDLE_POLL_TICKS = 10;
const HEAP_EXHAUSTED_MARKERS = ['Reached heap limit', 'JavaScript heap out of memory'];

interface ModuleChild {
  readonly modulePath: string;
  /** Its entry in the runner's map: the confinement's key and the module path. */
  readonly childKey: string;
  readonly contained: ContainedProcess;
  readonly channel: Writable;
  readonly pending: Map<number, PendingCall>;
  /** Calls told to stop that have not ended yet: the child may be stuck in a loop. */
  readonly stopping: Set<number>;
  /** Resolved when `stopping` empties or the child is retired. */
  stopWaiters: Array<() => void>;
  loaded: Promise<void> | undefined;
  /** Resolved by the child's answer to `load`, or by its exit. */
  readonly loadWaiters: Array<() => void>;
  dead: boolean;
  /** Resolved once the child process has exited (or never started). */
  readonly exited: Promise<void>;
  /** Set by `reload`: no new calls come here, and the child ends with its last call. */
  retireWhenIdle: boolean;
  /** V8 said on stderr that the heap limit was reached: the coming exit is that. */
  heapExhausted: boolean;
  /** Sent by the child just before it ends after an uncaught exception. */
  crash: string | undefined;
}

function releaseStopWaiters(handle: ModuleChild): void {
  const waiters = handle.stopWaiters;
  handle.stopWaiters = [];
  for (const waiter of waiters) waiter();
}

function whenNoCallIsStopping(handle: ModuleChild): Promise<void> {
  if (handle.stopping.size === 0 || handle.dead) return Promise.resolve();
  return new Promise((resolveWait) => handle.stopWaiters.push(resolveWait));
}

function abortedPromise(signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolveAbort) =>
    signal.addEventListener('abort', () => resolveAbort(), { once: true }),
  );
}

function clip(text: string): string {
  return text.length <= MESSAGE_LIMIT_CHARS
    ? text
    : `${text.slice(0, MESSAGE_LIMIT_CHARS)} [message cut at ${MESSAGE_LIMIT_CHARS} characters]`;
}

/**
 * JS/TS module tools, each module in a child process of its own (one long-lived child per
 * module, calls multiplexed by id). The child's stdout and stderr are read as logs; calls
 * travel on a separate socket, so nothing a tool writes can reach the server's own stdout.
 */
export function createNodeChildRunner(options: NodeChildRunnerOptions): NodeChildRunner {
  const limiter = createConcurrencyLimiter(options.concurrency);
  const children = new Map<string, ModuleChild>();
  const live = new Set<ModuleChild>();
  const entry = resolveChildEntry();
  const planner = createSandboxPlanner(options.projectRoot);
  // A confined child runs node from its install folder, and the entry with what it imports.
  const runtimePaths = (): string[] => [
    findInstallFolder(process.execPath),
    findChildCodeFolder(entry),
  ];
  const nodeFlags = [
    ...(options.execArgv ?? [
      ...pickConditionFlags(process.execArgv),
      ...readNodeOptionsConditionFlags(),
    ]),
    `--max-old-space-size=${options.maxHeapMb}`,
  ];
  const maxResidentBytes = options.maxResidentMb * 1024 * 1024;
  // A tool's module path as the child is keyed by: resolved once per path, not per call.
  const resolvedPaths = new Map<string, string>();
  const resolveModulePath = (modulePath: string): string => {
    let resolved = resolvedPaths.get(modulePath);
    if (resolved === undefined) {
      resolved = resolve(options.projectRoot, modulePath);
      resolvedPaths.set(modulePath, resolved);
    }
    return resolved;
  };
  let nextId = 1;
  let closed = false;

  const retire = (handle: ModuleChild, reason: string): void => {
    if (handle.dead) return;
    handle.dead = true;
    live.delete(handle);
    if (children.get(handle.childKey) === handle) children.delete(handle.childKey);
    handle.contained.kill();
    for (const [id, pending] of handle.pending) {
      handle.pending.delete(id);
      pending.settle(
        createErrorResult(`Tool "${pending.call.tool.name}" did not finish: ${reason}`),
      );
    }
    handle.stopping.clear();
    releaseStopWaiters(handle);
  };

  const retireIfIdle = (handle: ModuleChild): void => {
    if (handle.retireWhenIdle && handle.pending.size === 0)
      retire(handle, 'the module was reloaded.');
  };

  const describeExit = (
    handle: ModuleChild,
    code: number | null,
    signal: NodeJS.Signals | null,
  ): string => {
    const who = `the child process for ${handle.modulePath}`;
    if (handle.heapExhausted)
      return `${who} ran out of memory (heap limit ${options.maxHeapMb} MB) and was replaced.`;
    if (handle.crash !== undefined) return `${who} crashed (${handle.crash}) and was replaced.`;
    return signal === null
      ? `${who} exited (code ${code}), e.g. through process.exit(); it was replaced.`
      : `${who} was ended by ${signal}; it was replaced.`;
  };

  const spawnChild = (
    modulePath: string,
    childKey: string,
    confinement: CallConfinement,
  ): ModuleChild => {
    const startData: ChildStartData = {
      modulePath,
      projectRoot: options.projectRoot,
      maxOutputBytes: options.maxOutputBytes,
      maxResultBytes: options.maxResultBytes,
      maxResultItems: options.maxResultItems,
    };
    const sandbox = planner.plan({ confinement, variant: 'child', runtimePaths });
    const contained = spawnContained({
      command: process.execPath,
      args: [...nodeFlags, fileURLToPath(entry), JSON.stringify(startData)],
      cwd: sandbox?.cwd ?? options.projectRoot,
      env: {
        ...confinement.environment,
        ...(sandbox === undefined ? buildCompileCacheEnvironment() : {}),
        TOOLPACK_PROJECT_ROOT: options.projectRoot,
      },
      // fd 1 and 2 are the child's own pipes (read as logs); calls travel on a socket as fd 3,
      // an inherited descriptor, so it reaches a child inside the sandbox just the same.
      stdio: ['ignore', 'pipe', 'pipe', 'pipe'],
      ...(sandbox === undefined ? {} : { sandbox }),
    });
    const { child } = contained;
    const channel = child.stdio[CHANNEL_FD] as Readable & Writable;
    let markExited: () => void = () => {};
    const handle: ModuleChild = {
      modulePath,
      childKey,
      contained,
      channel,
      pending: new Map(),
      stopping: new Set(),
      stopWaiters: [],
      loaded: undefined,
      loadWaiters: [],
      dead: false,
      exited: new Promise<void>((done) => {
        markExited = done;
      }),
      retireWhenIdle: false,
      heapExhausted: false,
      crash: undefined,
    };
    live.add(handle);

    const forwardConsole = (level: 'info' | 'warning') => (chunk: Buffer) => {
      if (level === 'warning' && HEAP_EXHAUSTED_MARKERS.some((marker) => chunk.includes(marker)))
        handle.heapExhausted = true;
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
    // Always read, so a child that prints without end never blocks on a full pipe.
    child.stdout?.on('data', forwardConsole('info'));
    child.stderr?.on('data', forwardConsole('warning'));

    const onMessage = (message: FromChildMessage, bytes: number): void => {
      if (message.type === 'crash') {
        handle.crash = clip(String(message.message));
        return;
      }
      if (message.type === 'loaded' || message.type === 'load-error') return;
      const pending = handle.pending.get(message.id);
      if (pending === undefined) return;
      switch (message.type) {
        case 'result':
          handle.pending.delete(message.id);
          // Parsed from this frame: the result caps need not serialize it again to measure it.
          if (typeof message.result === 'object' && message.result !== null)
            noteParsedJsonBytes(message.result, bytes);
          pending.settle(message.result);
          retireIfIdle(handle);
          break;
        case 'error':
          handle.pending.delete(message.id);
          pending.settle(createErrorResult(clip(String(message.message))));
          retireIfIdle(handle);
          break;
        case 'progress':
          pending.call.onProgress({
            progress: message.progress,
            ...(typeof message.total === 'number' ? { total: message.total } : {}),
            ...(typeof message.message === 'string' ? { message: clip(message.message) } : {}),
          });
          break;
        case 'log':
          pending.call.onLog(message.level, clip(String(message.message)));
          break;
        case 'ask': {
          const { id, askId, key } = message;
          const badKey = key !== undefined && !TOOL_QUESTION_KEY_PATTERN.test(String(key));
          (badKey
            ? Promise.reject(
                new Error(
                  `context.ask: key ${JSON.stringify(clip(String(key)))} is not 1 to 64 letters, digits, "_", "-" or ".".`,
                ),
              )
            : pending.call.ask({
                message: clip(String(message.message)),
                fields: readQuestionFields(message.fields),
                ...(key === undefined ? {} : { key: String(key) }),
              })
          )
            .then(
              (answer) => ({ type: 'answer' as const, id, askId, answer }),
              (error: unknown) => ({
                type: 'answer' as const,
                id,
                askId,
                error: describeQuestionFailure(error),
              }),
            )
            .then((reply) => {
              if (handle.pending.has(id)) send(handle, reply);
            });
          break;
        }
      }
    };
    channel.on(
      'data',
      createFrameReader({
        maxFrameBytes: options.maxResultBytes + FRAME_ENVELOPE_BYTES,
        onMessage(message, bytes) {
          if (typeof message !== 'object' || message === null) return;
          const typed = message as FromChildMessage;
          if (typed.type === 'loaded' || typed.type === 'load-error')
            for (const waiter of handle.loadWaiters.splice(0)) waiter();
          onMessage(typed, bytes);
        },
        onViolation(problem) {
          // Refused from the header: the frame's body is never read, let alone parsed.
          retire(
            handle,
            problem.kind === 'oversize'
              ? `the child process for ${modulePath} sent a message of ${problem.bytes} bytes, over the ` +
                  `${options.maxResultBytes}-byte result limit (maxResultBytes in the runner options); it was killed and replaced. ` +
                  'Return less per call, e.g. page through the data.'
              : `the child process for ${modulePath} wrote something other than a message to its call channel; it was killed and replaced.`,
          );
        },
      }),
    );
    channel.on('error', () => {
      // The child is gone; 'exit' says why.
    });

    let tick = 0;
    const memoryWatch = setInterval(() => {
      tick += 1;
      const pid = child.pid;
      if (pid === undefined || handle.dead) return;
      if (handle.pending.size === 0 && tick % IDLE_POLL_TICKS !== 0) return;
      const resident = readTreeResidentBytes(pid);
      if (resident === undefined || resident <= maxResidentBytes) return;
      retire(
        handle,
        `the child process for ${modulePath} used ${Math.round(resident / 1024 / 1024)} MB of resident memory, ` +
          `over its limit of ${options.maxResidentMb} MB; it was killed and replaced. ` +
          'Use less memory per call, or raise the limit (worker.maxResidentMb in the runner options).',
      );
    }, MEMORY_POLL_MS);
    memoryWatch.unref();

    child.on('error', (error) => {
      clearInterval(memoryWatch);
      retire(handle, `the child process for ${modulePath} could not start (${error.message}).`);
      markExited();
    });
    child.on('exit', (code, signal) => {
      clearInterval(memoryWatch);
      for (const waiter of handle.loadWaiters.splice(0)) waiter();
      retire(handle, describeExit(handle, code, signal));
      markExited();
    });
    return handle;
  };

  /** One child per module and confinement: a module never shares a process across sandboxes. */
  const getChild = (modulePath: string, confinement: CallConfinement): ModuleChild => {
    const childKey = `${confinement.key}\0${modulePath}`;
    let handle = children.get(childKey);
    if (handle === undefined || handle.dead) {
      handle = spawnChild(modulePath, childKey, confinement);
      children.set(childKey, handle);
    }
    return handle;
  };

  const runOnChild = (
    handle: ModuleChild,
    call: RunnerCall,
    invocation: ModuleInvocation,
  ): Promise<ToolCallResult> =>
    new Promise((settle) => {
      const id = nextId++;
      let graceTimer: NodeJS.Timeout | undefined;
      const onAbort = (): void => {
        const reason = describeStopReason(call.signal.reason);
        handle.stopping.add(id);
        send(handle, { type: 'abort', id, reason });
        // A tool stuck in a loop never sees its signal: replace the child after the grace period.
        graceTimer = setTimeout(() => {
          if (!handle.pending.has(id)) return;
          retire(
            handle,
            `the child process for ${handle.modulePath} was replaced because tool "${call.tool.name}" ignored its ${reason} ` +
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
      const failure = send(handle, {
        type: 'call',
        id,
        exportName: invocation.exportName,
        toolName: call.tool.name,
        args: call.args,
      });
      if (failure !== undefined) {
        // Without this the call would wait for its timeout: the child never saw it.
        const message =
          `Tool "${call.tool.name}" was not run: its arguments could not be passed to the ` +
          `module's process (${failure.message}). Send less deeply nested arguments.`;
        const pending = handle.pending.get(id);
        handle.pending.delete(id);
        pending?.settle(createErrorResult(message));
        return;
      }
      if (call.signal.aborted) onAbort();
    });

  return {
    async execute(call) {
      const invocation = call.tool.invocation as ModuleInvocation;
      const release = await limiter.acquire(call.signal);
      if (release === undefined) {
        return createErrorResult(
          `Tool "${call.tool.name}" was stopped (${describeStopReason(call.signal.reason)}) before it started.`,
        );
      }
      const slot = holdSlot(limiter, release, call.signal);
      call = { ...call, ask: askWithoutSlot(slot, call.ask) };
      try {
        if (closed)
          return createErrorResult(`Tool "${call.tool.name}" was not run: the runner is closed.`);
        const modulePath = resolveModulePath(invocation.modulePath);
        let handle = getChild(modulePath, call.confinement);
        // A call that ignored its stop may have the child stuck in a loop: wait until it ends
        // or the child is replaced, rather than queue behind a loop.
        while (handle.stopping.size > 0 && !handle.dead) {
          await Promise.race([whenNoCallIsStopping(handle), abortedPromise(call.signal)]);
          if (call.signal.aborted) {
            return createErrorResult(
              `Tool "${call.tool.name}" was stopped (${describeStopReason(call.signal.reason)}) before it started.`,
            );
          }
          handle = getChild(modulePath, call.confinement);
        }
        return await runOnChild(handle, call, invocation);
      } finally {
        slot.release();
      }
    },
    warm(modulePath, confinement) {
      const handle = getChild(resolveModulePath(modulePath), confinement);
      handle.loaded ??= new Promise<void>((done) => {
        if (handle.dead) {
          done();
          return;
        }
        handle.loadWaiters.push(done);
        send(handle, { type: 'load' });
      });
      return handle.loaded;
    },
    reload(modulePaths) {
      const targets =
        modulePaths === undefined
          ? undefined
          : new Set(modulePaths.map((path) => resolve(options.projectRoot, path)));
      for (const [childKey, handle] of [...children]) {
        if (targets !== undefined && !targets.has(handle.modulePath)) continue;
        children.delete(childKey);
        handle.retireWhenIdle = true;
        retireIfIdle(handle);
      }
    },
    get childCount() {
      return children.size;
    },
    async close() {
      closed = true;
      // Every live child, including those a reload took out of the map that still run calls.
      const all = [...live];
      for (const handle of all) retire(handle, 'the runner was closed.');
      await Promise.all(all.map((handle) => handle.exited));
    },
  };
}

/** Returns the error when the message could not be encoded (e.g. arguments nested ~10,000 deep). */
function send(handle: ModuleChild, message: ToChildMessage): Error | undefined {
  if (handle.dead) return undefined;
  try {
    handle.channel.write(encodeFrame(message));
    return undefined;
  } catch (error) {
    return error instanceof Error ? error : new Error(String(error));
  }
}

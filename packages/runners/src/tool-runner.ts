import { availableParallelism } from 'node:os';
import { resolve } from 'node:path';
import {
  ToolpackError,
  type DiscoveredTool,
  type PwshSession,
  type ToolCallResult,
  type ToolLogLevel,
  type ToolpackErrorCode,
} from '@toolpack/core';
import { buildToolEnvironment, describeSandbox } from '@toolpack/containment';
import { createConfinementResolver } from './call-confinement.ts';
import { createCallDeadlines } from './call-deadlines.ts';
import { bindToolArguments, checkToolArguments } from './check-tool-arguments.ts';
import { checkToolResult } from './check-tool-result.ts';
import { createNodeChildRunner } from './node-child/node-child-runner.ts';
import { createProcessRunner } from './process/process-runner.ts';
import { createProgressThrottle } from './progress-throttle.ts';
import { CONFIRM_ARGUMENT, readConfirmRequest } from './read-confirm-request.ts';
import { createPwshRunner } from './pwsh/pwsh-runner.ts';
import { createErrorResult, limitToolResult, type ResultLimits } from './results.ts';
import type {
  CallConfinement,
  KindRunner,
  RunnerCall,
  StopReason,
  ToolProgress,
  ToolQuestion,
  ToolQuestionAnswer,
} from './runner-types.ts';
import { describeStopReason } from './runner-types.ts';

export interface ToolRunnerOptions {
  /** The project the tools belong to: their working directory and `TOOLPACK_PROJECT_ROOT`. */
  projectRoot: string;
  /** Per-call timeout when neither the call nor the tool sets one. Default 30 000 ms. */
  defaultTimeoutMs?: number;
  /**
   * The longest a call of a tool with `progressResetsTimeout` may run in all, however often
   * its reports restart its timeout (never less than that timeout). Default 3 600 000 ms.
   */
  progressTimeoutCapMs?: number;
  /** Cap on a tool's output (stdout, returned text or JSON). Default 1 MiB. */
  maxOutputBytes?: number;
  /**
   * Cap on one whole result as JSON, every runner: a larger result becomes an error result.
   * Default 16 MiB (16 of the largest single outputs).
   */
  maxResultBytes?: number;
  /** Cap on the content items of one result, every runner. Default 10 000. */
  maxResultItems?: number;
  /** Calls running at once per runner kind; further calls wait in a queue. */
  concurrency?: { process?: number; pwsh?: number; worker?: number };
  /** Extension -> argv prefix (`{ '.bas': ['basic', 'run'] }`); the script path is appended. */
  interpreters?: Record<string, readonly string[]>;
  /**
   * Environment variable names (or `PREFIX*`) unconfined tools may see besides the defaults.
   * A confined tool (`tool.source.sandbox`) sees the defaults and its pack's declared names only.
   */
  envAllowList?: readonly string[];
  /** Variables set for every tool, confined ones included (e.g. a pack's declared `env` values). */
  env?: Record<string, string>;
  /**
   * A confined tool whose OS sandbox cannot be had here (`describeSandbox`) is refused with an
   * `E_SANDBOX_REQUIRED` error result instead of running unconfined. Default false.
   */
  requireSandbox?: boolean;
  /**
   * Where server-bound PowerShell credentials (toolpack.yaml `credentials:`) read their
   * `{ env: NAME }` secrets: the server's environment, which tools never see. Default
   * `process.env`.
   */
  secretEnvironment?: Readonly<Record<string, string | undefined>>;
  /** The pwsh executable. Found on PATH when absent. */
  pwshPath?: string;
  /** Start the PowerShell host now rather than on the first PowerShell call. */
  warm?: boolean;
  /**
   * How long a stopped call may take to end (pipeline stop, a worker honouring its signal)
   * before its host or worker is killed and replaced. Default 2 000 ms.
   */
  stopGraceMs?: number;
  /** How long pwsh may take to start. Default 30 000 ms. */
  pwshStartTimeoutMs?: number;
  /**
   * How long the PowerShell host's runspace pool must go without calls before the runspaces
   * a burst opened beyond its floor (two) are closed and their memory collected. Default
   * 5 000 ms.
   */
  pwshIdleReleaseMs?: number;
  /** Told what Toolpack's own background work could not do (a PowerShell startup-profile warm-up). */
  onDebug?(message: string): void;
  /**
   * JS/TS module tools (a child process per module): its V8 heap limit (default 512 MB), the
   * limit on the resident memory of the child and all it starts, watched from outside
   * (default 1024 MB; over it the child is killed and the call fails), and Node flags.
   */
  worker?: { maxHeapMb?: number; maxResidentMb?: number; execArgv?: string[] };
}

export interface ToolCallOptions {
  /** Aborting it cancels the call (MCP `notifications/cancelled`). */
  signal?: AbortSignal;
  /** Overrides the tool's and the runner's timeout for this call. */
  timeoutMs?: number;
  /**
   * Progress, strictly increasing (non-increasing reports are dropped, as MCP requires), and
   * coalesced: a burst of 20, then one per 50 ms, the latest, the last one before the answer.
   */
  onProgress?(progress: ToolProgress): void;
  onLog?(level: ToolLogLevel, message: string): void;
  /**
   * Puts a tool's question to the call's user (MCP elicitation); rejects, with the reason,
   * when nobody can answer. Absent: every question is refused at once. The call's timeout
   * does not run while a question waits.
   */
  ask?(question: ToolQuestion): Promise<ToolQuestionAnswer>;
}

export interface ToolRunnerStats {
  /** Calls started and not yet answered. */
  inFlight: number;
  /** The shared PowerShell host's process id while it runs (unconfined tools' host). */
  pwshHostPid: number | undefined;
  /** Live PowerShell hosts: the shared one and one per sandbox (pack) that ran PowerShell. */
  pwshHosts: number;
  /** PowerShell hosts started after the first of theirs (crashes, kills after a stuck call). */
  pwshRestarts: number;
  /** Live Node child processes (one per JS/TS module). */
  workers: number;
}

export interface ToolRunner {
  /**
   * Validates the arguments and runs the tool. Never rejects for a tool's failure, a
   * timeout or a cancellation: those come back as `isError: true` results. Throws
   * `ToolpackError` only for misuse (a workflow or builtin tool, a closed runner).
   */
  call(
    tool: DiscoveredTool,
    args: Record<string, unknown> | undefined,
    options?: ToolCallOptions,
  ): Promise<ToolCallResult>;
  /**
   * Starts what the given tools need (the PowerShell host and module runspaces, Node
   * workers with their modules imported) so the first calls are fast. Without tools, starts
   * the PowerShell host if pwsh is installed. Never rejects.
   */
  warm(tools?: readonly DiscoveredTool[]): Promise<void>;
  stats(): ToolRunnerStats;
  /**
   * Makes the next calls load these module files afresh (all modules when absent): JS/TS
   * modules get a new worker, PowerShell modules a new runspace. Calls already running finish
   * on the old one. Script and tool-folder tools need nothing: they are read on every call.
   * For hot reload after the files changed.
   */
  reloadModules(paths?: readonly string[]): void;
  /** Stops every call and kills every child process, host and worker. */
  close(): Promise<void>;
}

const DEFAULT_TIMEOUT_MS = 30_000;
const DEFAULT_PROGRESS_TIMEOUT_CAP_MS = 3_600_000;
const DEFAULT_MAX_OUTPUT_BYTES = 1024 * 1024;
const DEFAULT_STOP_GRACE_MS = 2_000;
const DEFAULT_PWSH_START_TIMEOUT_MS = 30_000;
// A result is sent whole to a client that hands it to a model: 16 MiB is 16 outputs at the
// per-output cap, more than any context window takes, and small enough for the server to hold
// a few at once. 10 000 items is far past any real list of content blocks.
const DEFAULT_MAX_RESULT_BYTES = 16 * 1024 * 1024;
const DEFAULT_MAX_RESULT_ITEMS = 10_000;
const DEFAULT_MAX_HEAP_MB = 512;
// Progress notifications per call: 20 at once, then one per 50 ms (20 a second), the latest
// each time. A tool that reports now and then is relayed report for report; one reporting in
// a tight loop cannot flood the client.
const PROGRESS_THROTTLE = { burst: 20, intervalMs: 50 } as const;
const DEFAULT_MAX_RESIDENT_MB = 1024;
// setTimeout fires at once for anything above 2^31 - 1 ms.
const MAX_TIMER_MS = 2_147_483_647;

export function createToolRunner(options: ToolRunnerOptions): ToolRunner {
  if (typeof options?.projectRoot !== 'string' || options.projectRoot === '') {
    throw new ToolpackError('E_RUNNER_OPTIONS', 'createToolRunner needs a projectRoot.', {
      hint: 'Pass the folder that holds toolpack.yaml: createToolRunner({ projectRoot: process.cwd() }).',
    });
  }
  // resolve() also drops a trailing separator, so tools see one spelling of the root.
  const projectRoot = resolve(options.projectRoot);
  const defaultTimeoutMs =
    readPositive(options.defaultTimeoutMs, 'defaultTimeoutMs') ?? DEFAULT_TIMEOUT_MS;
  const progressTimeoutCapMs =
    readPositive(options.progressTimeoutCapMs, 'progressTimeoutCapMs') ??
    DEFAULT_PROGRESS_TIMEOUT_CAP_MS;
  const maxOutputBytes =
    readPositive(options.maxOutputBytes, 'maxOutputBytes') ?? DEFAULT_MAX_OUTPUT_BYTES;
  const stopGraceMs = readPositive(options.stopGraceMs, 'stopGraceMs') ?? DEFAULT_STOP_GRACE_MS;
  const resultLimits: ResultLimits = {
    maxBytes: readPositive(options.maxResultBytes, 'maxResultBytes') ?? DEFAULT_MAX_RESULT_BYTES,
    maxItems: readPositive(options.maxResultItems, 'maxResultItems') ?? DEFAULT_MAX_RESULT_ITEMS,
  };
  const cores = availableParallelism();
  const environment = buildToolEnvironment({
    source: process.env,
    ...(options.envAllowList === undefined ? {} : { allowList: options.envAllowList }),
    ...(options.env === undefined ? {} : { values: options.env }),
  });
  const resolveConfinement = createConfinementResolver({
    projectRoot,
    unconfinedEnvironment: environment,
    ...(options.env === undefined ? {} : { values: options.env }),
  });
  const requireSandbox = options.requireSandbox === true;

  const processRunner = createProcessRunner({
    projectRoot,
    maxOutputBytes,
    concurrency:
      readPositive(options.concurrency?.process, 'concurrency.process') ?? Math.max(4, cores * 2),
    interpreters: options.interpreters ?? {},
  });
  const workerRunner = createNodeChildRunner({
    projectRoot,
    maxOutputBytes,
    maxResultBytes: resultLimits.maxBytes,
    maxResultItems: resultLimits.maxItems,
    concurrency:
      readPositive(options.concurrency?.worker, 'concurrency.worker') ?? Math.max(8, cores * 4),
    stopGraceMs,
    maxHeapMb: readPositive(options.worker?.maxHeapMb, 'worker.maxHeapMb') ?? DEFAULT_MAX_HEAP_MB,
    maxResidentMb:
      readPositive(options.worker?.maxResidentMb, 'worker.maxResidentMb') ??
      DEFAULT_MAX_RESIDENT_MB,
    ...(options.worker?.execArgv === undefined ? {} : { execArgv: options.worker.execArgv }),
  });
  const idleReleaseMs = readPositive(options.pwshIdleReleaseMs, 'pwshIdleReleaseMs');
  const pwshRunner = createPwshRunner({
    projectRoot,
    maxOutputBytes,
    concurrency:
      readPositive(options.concurrency?.pwsh, 'concurrency.pwsh') ?? Math.max(8, cores * 2),
    sharedEnvironment: environment,
    ...(options.pwshPath === undefined ? {} : { pwshPath: options.pwshPath }),
    ...(options.secretEnvironment === undefined
      ? {}
      : { secretEnvironment: options.secretEnvironment }),
    stopGraceMs,
    startTimeoutMs:
      readPositive(options.pwshStartTimeoutMs, 'pwshStartTimeoutMs') ??
      DEFAULT_PWSH_START_TIMEOUT_MS,
    ...(idleReleaseMs === undefined ? {} : { idleReleaseMs }),
    ...(options.onDebug === undefined ? {} : { onDebug: options.onDebug }),
  });

  const deadlines = createCallDeadlines();
  const stoppers = new Set<(reason: StopReason) => void>();
  const executions = new Set<Promise<unknown>>();
  let closed = false;
  let closing: Promise<void> | undefined;

  const pickRunner = (tool: DiscoveredTool): KindRunner => {
    const invocation = tool.invocation as { runner?: unknown } | undefined;
    switch (invocation?.runner) {
      case 'process':
        return processRunner;
      case 'node-worker':
        return workerRunner;
      case 'pwsh':
        return pwshRunner;
      case 'workflow':
      case 'builtin':
        throw new ToolpackError(
          'E_RUNNER',
          `Tool "${tool.name}" is a ${invocation.runner} tool; runners execute scripts, modules and processes only.`,
          {
            hint: 'The server runs workflow and builtin tools itself; call the runner for their steps.',
          },
        );
      default:
        throw new ToolpackError(
          'E_RUNNER',
          `Tool "${tool.name}" has no invocation a runner knows.`,
          {
            hint: 'Pass a tool produced by @toolpack/discovery (its invocation says how to run it).',
          },
        );
    }
  };

  /** Under requireSandbox, why a confined tool may not start here; undefined when it may. */
  const findSandboxRefusal = (tool: DiscoveredTool): ToolCallResult | undefined => {
    if (!requireSandbox || tool.source.sandbox === undefined) return undefined;
    const state = describeSandbox(process.env);
    if (state.available) return undefined;
    const from = tool.source.pack === undefined ? '' : ` (pack ${tool.source.pack})`;
    const code: ToolpackErrorCode = 'E_SANDBOX_REQUIRED';
    return createErrorResult(
      `${code} Tool "${tool.name}"${from} must run in the OS sandbox, which cannot be had here: ${state.reason}. ` +
        'It was not started. Install bubblewrap (Debian/Ubuntu: apt-get install bubblewrap), ' +
        'or let it run unconfined by dropping --require-sandbox (policy: requireSandbox: false).',
    );
  };

  const call: ToolRunner['call'] = async (tool, args, callOptions = {}) => {
    if (closed) {
      throw new ToolpackError('E_RUNNER_CLOSED', 'This tool runner is closed.', {
        hint: 'Create a new runner with createToolRunner().',
      });
    }
    const runner = pickRunner(tool);
    const confirmRequest = readConfirmRequest(tool, args ?? {});
    if ('refusal' in confirmRequest) return confirmRequest.refusal;
    const boundArguments = bindToolArguments(tool, confirmRequest.args);
    const problem = checkToolArguments(tool, boundArguments);
    if (problem !== undefined) return problem;
    const argumentsObject = confirmRequest.confirm
      ? { ...boundArguments, [CONFIRM_ARGUMENT]: true }
      : boundArguments;
    const refusal = findSandboxRefusal(tool);
    if (refusal !== undefined) return refusal;

    const timeoutMs = Math.min(
      readPositive(callOptions.timeoutMs, 'timeoutMs') ??
        readTimeout(tool.timeoutMs) ??
        defaultTimeoutMs,
      MAX_TIMER_MS,
    );
    if (callOptions.signal?.aborted)
      return createInterruptedResult(tool.name, 'cancelled', timeoutMs);

    // One promise per call, settled by whichever comes first: the tool's result, or the stop
    // (timeout, cancellation, shutdown). Everything the call set up is undone in `finish`.
    let settle!: (result: ToolCallResult) => void;
    const answer = new Promise<ToolCallResult>((resolveAnswer) => {
      settle = resolveAnswer;
    });
    const controller = new AbortController();
    // An opted-in tool's timeout bounds its silence, not its run: each report restarts it.
    const resetsOnProgress = tool.progressResetsTimeout === true;
    // The one place a call is stopped: the runner hears it through the signal, and the caller
    // gets its answer here, without a listener of our own on the signal.
    let cappedAfterMs: number | undefined;
    const stop = (reason: StopReason): void => {
      if (controller.signal.aborted) return;
      controller.abort(reason);
      finish(
        createInterruptedResult(
          tool.name,
          describeStopReason(controller.signal.reason),
          timeoutMs,
          resetsOnProgress,
          cappedAfterMs,
        ),
      );
    };
    const deadline = deadlines.start(timeoutMs, () => stop('timeout'));
    // Reports restart the timeout without end: this one they never restart. It stops the call
    // the way a timeout does (same signal, same kill path).
    const capMs = Math.min(Math.max(progressTimeoutCapMs, timeoutMs), MAX_TIMER_MS);
    const cap = resetsOnProgress
      ? deadlines.start(capMs, () => {
          cappedAfterMs = capMs;
          stop('timeout');
        })
      : undefined;
    const onCallerAbort = (): void => stop('cancelled');
    callOptions.signal?.addEventListener('abort', onCallerAbort, { once: true });
    stoppers.add(stop);

    // Notifications stop with the answer: after it, a client would see them for a finished request.
    let answered = false;
    let lastProgress = Number.NEGATIVE_INFINITY;
    const throttle =
      callOptions.onProgress === undefined
        ? undefined
        : createProgressThrottle(callOptions.onProgress, PROGRESS_THROTTLE);
    const runnerCall: RunnerCall = {
      tool,
      args: argumentsObject,
      confinement: resolveConfinement(tool),
      signal: controller.signal,
      onProgress(progress) {
        if (answered) return;
        // MCP wants progress to increase with every notification: a report that does not is
        // dropped, and restarts no timeout (the client's own timeout would not restart either).
        if (!Number.isFinite(progress.progress) || progress.progress <= lastProgress) return;
        lastProgress = progress.progress;
        if (resetsOnProgress && !controller.signal.aborted) deadline.refresh();
        throttle?.push(progress);
      },
      onLog(level, message) {
        if (answered || callOptions.onLog === undefined) return;
        callOptions.onLog(level, message);
      },
      async ask(question) {
        if (answered) throw new Error(`tool "${tool.name}" was already answered`);
        if (callOptions.ask === undefined) {
          throw new ToolpackError(
            'E_ELICITATION_UNAVAILABLE',
            `Tool "${tool.name}" asked its user a question, and nobody can answer it here.`,
            {
              hint: 'Call it from an MCP client that supports elicitation, or give the answer as an argument.',
            },
          );
        }
        // Waiting for a person is not the tool being slow: the clock stops meanwhile.
        const release = deadline.hold();
        try {
          return await callOptions.ask(nameAsker(tool, question));
        } finally {
          release();
        }
      },
    };

    function finish(result: ToolCallResult): void {
      if (answered) return;
      // The last report held back goes out before the answer that follows it.
      throttle?.flush();
      answered = true;
      throttle?.cancel();
      deadline.cancel();
      cap?.cancel();
      callOptions.signal?.removeEventListener('abort', onCallerAbort);
      stoppers.delete(stop);
      settle(result);
    }
    const execution = runner.execute(runnerCall).then(
      (result) => {
        const limited = limitToolResult(result, resultLimits, tool.name);
        return checkToolResult(tool, limited) ?? limited;
      },
      (error: unknown) =>
        createErrorResult(
          `Tool "${tool.name}" failed inside the runner: ${error instanceof Error ? error.message : String(error)}.`,
        ),
    );
    // Kept until it ends, stopped or not: close() waits for every execution.
    executions.add(execution);
    void execution.then((result) => {
      executions.delete(execution);
      finish(result);
    });
    return answer;
  };

  if (options.warm === true) void pwshRunner.warm();

  return {
    call,
    async warm(tools) {
      if (closed) return;
      if (tools === undefined) {
        await pwshRunner.warm();
        return;
      }
      // Per confinement: a pack's PowerShell tools warm its own host, its modules their own child.
      const pwshHosts = new Map<
        string,
        { confinement: CallConfinement; modules: Set<string>; sessions: PwshSession[] }
      >();
      const jsModules = new Map<string, { confinement: CallConfinement; modulePath: string }>();
      for (const tool of tools) {
        if (findSandboxRefusal(tool) !== undefined) continue;
        const invocation = tool.invocation;
        const confinement = resolveConfinement(tool);
        if (invocation.runner === 'pwsh') {
          const host = pwshHosts.get(confinement.key) ?? {
            confinement,
            modules: new Set(),
            sessions: [],
          };
          pwshHosts.set(confinement.key, host);
          if (invocation.mode === 'module') host.modules.add(invocation.modulePath);
          // dotbot's session takes about half a second to load: not on the first call.
          if (invocation.mode === 'tool-folder' && invocation.session !== undefined)
            host.sessions.push(invocation.session);
        } else if (invocation.runner === 'node-worker') {
          jsModules.set(`${confinement.key}\0${invocation.modulePath}`, {
            confinement,
            modulePath: invocation.modulePath,
          });
        }
      }
      await Promise.all([
        ...[...pwshHosts.values()].map(({ confinement, modules, sessions }) =>
          pwshRunner.warm([...modules], confinement, sessions),
        ),
        ...[...jsModules.values()].map(({ confinement, modulePath }) =>
          workerRunner.warm(modulePath, confinement),
        ),
      ]);
    },
    reloadModules(paths) {
      workerRunner.reload(paths);
      pwshRunner.reload(paths);
    },
    stats() {
      return {
        inFlight: stoppers.size,
        pwshHostPid: pwshRunner.hostPid,
        pwshHosts: pwshRunner.hostCount,
        pwshRestarts: pwshRunner.restarts,
        workers: workerRunner.childCount,
      };
    },
    close() {
      closing ??= (async () => {
        closed = true;
        for (const stop of [...stoppers]) stop('closed');
        await Promise.all([processRunner.close(), workerRunner.close(), pwshRunner.close()]);
        await Promise.allSettled([...executions]);
      })();
      return closing;
    },
  };
}

// Bidirectional controls would let the tool's text reorder the line it is shown in, the
// name before it included.
const BIDI_CONTROLS = /[\u061C\u200E\u200F\u202A-\u202E\u2066-\u2069]/gu;

/**
 * A question as the user sees it: it starts with who asks (the tool, and its pack), which the
 * tool cannot leave out or reorder, so a pack's question cannot pass for the client's own or
 * another tool's (asking for a key "from Claude", say).
 */
function nameAsker(tool: DiscoveredTool, question: ToolQuestion): ToolQuestion {
  const pack = tool.source.pack === undefined ? '' : ` (pack ${tool.source.pack})`;
  const message = question.message.replace(BIDI_CONTROLS, '');
  return { ...question, message: `${tool.name}${pack} asks: ${message}` };
}

function createInterruptedResult(
  toolName: string,
  reason: StopReason,
  timeoutMs: number,
  resetsOnProgress = false,
  cappedAfterMs?: number,
): ToolCallResult {
  switch (reason) {
    case 'timeout':
      if (cappedAfterMs !== undefined) {
        return createErrorResult(
          `Tool "${toolName}" ran for ${cappedAfterMs} ms, the most any call whose progress restarts its timeout may run, and was stopped. ` +
            'Ask for less work per call, or raise progressTimeoutCap in toolpack.yaml.',
        );
      }
      if (resetsOnProgress) {
        return createErrorResult(
          `Tool "${toolName}" reported no progress for ${timeoutMs} ms and was stopped. ` +
            'It restarts its timeout with each progress report; if it can be silent for longer, raise its timeout (timeoutMs in the tool metadata).',
        );
      }
      return createErrorResult(
        `Tool "${toolName}" timed out after ${timeoutMs} ms and was stopped. ` +
          'If it needs longer, raise its timeout (timeoutMs in the tool metadata), or ask for less work per call.',
      );
    case 'closed':
      return createErrorResult(
        `Tool "${toolName}" was stopped because the server is shutting down.`,
      );
    case 'cancelled':
      return createErrorResult(`Tool "${toolName}" was cancelled.`);
  }
}

function readPositive(value: number | undefined, name: string): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) {
    throw new ToolpackError(
      'E_RUNNER_OPTIONS',
      `${name} must be a positive number, got ${String(value)}.`,
    );
  }
  return value;
}

/** A tool's own timeout comes from a user's file: an unusable value falls back to the default. */
function readTimeout(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) && value > 0 ? value : undefined;
}

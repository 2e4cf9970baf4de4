import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { join } from 'node:path';
import {
  createChannelFolder,
  spawnContained,
  type ContainedProcess,
  type SandboxPlan,
} from '@toolpack/containment';
import { ToolpackError, type ToolLogLevel } from '@toolpack/core';
import type { ToolQuestion, ToolQuestionAnswer } from '../runner-types.ts';
import { createTailBuffer } from '../capped-output.ts';
import { describeQuestionFailure } from '../describe-question-failure.ts';
import type { HostResultMessage, HostSession, ToHostMessage } from './host-protocol.ts';
import { parseHostMessage } from './host-protocol.ts';
import type { ProgressRecord } from './progress-records.ts';
import { resolvePwshLaunch } from './resolve-pwsh-launch.ts';

export interface PwshHostOptions {
  pwshPath: string;
  hostScriptPath: string;
  projectRoot: string;
  poolSize: number;
  /** How long the pool rests before the runspaces beyond its floor are closed (host default when absent). */
  idleReleaseMs?: number;
  maxOutputBytes: number;
  environment: Readonly<Record<string, string>>;
  /** How long pwsh may take to start and connect back. */
  startTimeoutMs: number;
  /**
   * pwsh's cache folder for this host alone (`XDG_CACHE_HOME`, where it keeps .NET's startup
   * profile; host-cache-home.ts). The host puts the environment's own value back, or removes
   * it, before any tool runs.
   */
  cacheHome?: string;
  /**
   * For a host of confined tools: the sandbox it runs in, given the folder of its channel's
   * socket (which must be bound writable inside, or the host cannot connect back).
   */
  planSandbox?(socketFolder: string | undefined): SandboxPlan | undefined;
}

export type PwshCallRequest = Omit<Extract<ToHostMessage, { type: 'call' }>, 'type' | 'id'>;

export type PwshCallOutcome =
  | { type: 'result'; message: HostResultMessage }
  /** The host died or was killed while the call was on it. */
  | { type: 'lost'; reason: string };

export interface PwshCallHandlers {
  onProgress(record: ProgressRecord): void;
  onLog(level: ToolLogLevel, message: string): void;
  /** The tool asked its user (ShouldProcess, Read-Host...); a rejection is thrown in the tool. */
  onAsk(question: ToolQuestion): Promise<ToolQuestionAnswer>;
}

export interface PwshCallHandle {
  readonly outcome: Promise<PwshCallOutcome>;
  /** Asks the host to stop the call's pipeline; the outcome still arrives. */
  stop(): void;
}

export interface PwshHost {
  /** Resolves once the host has connected back; rejects with a readable message if it cannot start. */
  readonly ready: Promise<void>;
  readonly pid: number | undefined;
  readonly alive: boolean;
  startCall(request: PwshCallRequest, handlers: PwshCallHandlers): PwshCallHandle;
  warmModule(modulePath: string): void;
  /** Loads a tool-folder session into a runspace before its first call. */
  warmSession(session: HostSession): void;
  /** Drops module runspaces (all when absent) so the next call imports the module again. */
  forgetModules(modulePaths?: readonly string[]): void;
  /** Kills the host and its process tree; every call on it ends as `lost` with `reason`. */
  kill(reason: string): void;
  /** Asks the host to exit, kills it if it does not within a second, and waits until it is gone. */
  close(): Promise<void>;
}

interface PendingCall {
  handlers: PwshCallHandlers;
  settle(outcome: PwshCallOutcome): void;
}

const STDERR_TAIL_BYTES = 4 * 1024;
const CHANNEL_CLOSE_GRACE_MS = 500;

/**
 * What the host's own .NET and PowerShell would otherwise listen on, in the temp folder:
 * .NET's diagnostics port (`dotnet-diagnostic-<pid>-…-socket`, which takes `AttachProfiler`
 * with any library to load) and PowerShell's host pipe for `Enter-PSHostProcess`
 * (`CoreFxPipe_PSHost.*`, a runspace in the host). Neither is needed to run tools; both
 * would let whoever reaches the temp folder run code in the host.
 */
const HOST_LISTENERS_OFF = {
  DOTNET_EnableDiagnostics: '0',
  POWERSHELL_DIAGNOSTICS_OPTOUT: '1',
  POWERSHELL_TELEMETRY_OPTOUT: '1',
} as const;

/**
 * .NET settings the host runs with (a tool sees them in `$env:` too):
 * - dynamic PGO off: PowerShell keeps compiling script and binder code, and with PGO on, the
 *   tiered compiler's background thread kept instrumenting and recompiling it, about 1 ms of
 *   CPU per warm call (measured per thread over 600 tool-folder calls: 4.4-5.0 ms of CPU per
 *   call in all, 3.0 without), which on a busy machine is time calls wait for;
 * - thread-pool workers that sleep as soon as they run out of work instead of spinning for
 *   more: each call hands a few items to the pool (socket reads, task completions, resets),
 *   and the spinning after each cost 0.1-0.2 ms of CPU per call (warm script calls, 50
 *   scripts: 1.40 -> 1.10-1.29 ms of CPU a call for the whole tree; bursts of 8: host CPU
 *   0.88-0.99 -> 0.69-0.81 ms a call, p50 4.85 -> 4.41 ms), with no later answers.
 */
const HOST_RUNTIME_SETTINGS = {
  DOTNET_TieredPGO: '0',
  DOTNET_ThreadPool_UnfairSemaphoreSpinLimit: '0',
} as const;

/**
 * .NET settings for the host's own start, each given only where the environment has none of
 * its own, and taken out of the environment the tools see once the runtime has read them
 * (host.ps1, `TOOLPACK_HOST_START_SETTINGS`). A 64 MB gen0 budget (16 MB by default on this
 * kind of machine): the host allocates ~45 MB before it answers its first call, which with
 * the default cost 2 gen0 and 1 gen1 collections and 41-47 ms of pauses on that path (the
 * pwsh of the .NET tool, 7.6.9); memory at rest is the same (the idle collection frees it).
 */
const HOST_START_SETTINGS: Readonly<Record<string, string>> = { DOTNET_GCgen0size: '0x4000000' };

function chooseStartSettings(
  environment: Readonly<Record<string, string>>,
): Record<string, string> {
  const names = Object.keys(HOST_START_SETTINGS).filter((name) => environment[name] === undefined);
  if (names.length === 0) return {};
  return {
    ...Object.fromEntries(names.map((name) => [name, HOST_START_SETTINGS[name]!])),
    TOOLPACK_HOST_START_SETTINGS: names.join(','),
  };
}

/**
 * A tool's secret prompt is refused here, before anyone could be asked: MCP forbids secrets in
 * form elicitation, and the answer would pass through the client and the model's host.
 */
function createSecretRefusal(what: string): ToolpackError {
  return new ToolpackError(
    'E_ELICITATION_SECRET',
    `The tool asked for ${what}, and Toolpack never asks an MCP client for a secret (MCP forbids secrets in form elicitation).`,
    {
      hint: 'Bind it on the server instead: a credentials: entry in toolpack.yaml for a PSCredential or SecureString parameter (docs/powershell-scripts.md, Credentials).',
    },
  );
}

/**
 * Starts `pwsh -File host.ps1` and connects to it over a private channel: Node listens on a
 * Unix domain socket in a fresh 0700 folder of Toolpack's private runtime folder (a named
 * pipe on Windows), never the shared temp folder, where a pack granted it could put its own
 * socket in its place and take the token; the host connects and proves itself with a random
 * token passed in its environment. pwsh's stdout
 * goes to the null device; its stderr is drained and only its tail kept, to explain a crash.
 */
export function startPwshHost(options: PwshHostOptions): PwshHost {
  const token = randomBytes(24).toString('hex');
  const pending = new Map<string, PendingCall>();
  const stderrTail = createTailBuffer(STDERR_TAIL_BYTES);
  let nextId = 1;
  let child: ChildProcess | undefined;
  let contained: ContainedProcess | undefined;
  let socket: Socket | undefined;
  let alive = true;
  let lostReason: string | undefined;
  let exited = false;
  let exitWaiters: Array<() => void> = [];
  let outgoing: string[] = [];
  let connected = false;

  let resolveReady!: () => void;
  let rejectReady!: (error: Error) => void;
  const ready = new Promise<void>((resolve, reject) => {
    resolveReady = resolve;
    rejectReady = reject;
  });
  // Callers that never await `ready` must not see an unhandled rejection.
  ready.catch(() => {});

  let socketFolder: string | undefined;
  let folderProblem: string | undefined;
  if (process.platform !== 'win32') {
    try {
      socketFolder = createChannelFolder();
    } catch (error) {
      folderProblem = (error as Error).message;
    }
  }
  const channelPath =
    socketFolder === undefined
      ? `\\\\.\\pipe\\toolpack-${process.pid}-${randomBytes(8).toString('hex')}`
      : join(socketFolder, 'host.sock');

  const removeSocketFolder = (): void => {
    if (socketFolder !== undefined) rmSync(socketFolder, { recursive: true, force: true });
  };

  const describeStderr = (): string => {
    const text = stderrTail.toString().trim();
    return text === '' ? '' : `\npwsh stderr:\n${text}`;
  };

  const failEverything = (reason: string): void => {
    if (!alive) return;
    alive = false;
    removeSocketFolder();
    lostReason = reason;
    rejectReady(new Error(reason));
    for (const [id, call] of pending) {
      pending.delete(id);
      call.settle({ type: 'lost', reason });
    }
    server.close();
    socket?.destroy();
  };

  const send = (message: ToHostMessage): void => {
    const line = `${JSON.stringify(message)}\n`;
    if (!connected) {
      outgoing.push(line);
      return;
    }
    socket?.write(line);
  };

  const handleLine = (line: string): void => {
    const message = parseHostMessage(line);
    if (message === undefined) return;
    if (message.type === 'hello') return;
    const call = pending.get(message.id);
    if (call === undefined) return;
    switch (message.type) {
      case 'progress': {
        const { type: _type, id: _id, ...record } = message;
        call.handlers.onProgress(record);
        break;
      }
      case 'log':
        call.handlers.onLog(message.level, message.message);
        break;
      case 'ask': {
        const { id, askId } = message;
        const asked =
          message.secret === null
            ? call.handlers.onAsk({ message: message.message, fields: message.fields })
            : Promise.reject(createSecretRefusal(message.secret));
        asked.then(
          (answer) => {
            if (alive && pending.has(id)) send({ type: 'answer', id, askId, ...answer });
          },
          (error: unknown) => {
            if (alive && pending.has(id))
              send({
                type: 'answer',
                id,
                askId,
                action: 'error',
                error: describeQuestionFailure(error),
              });
          },
        );
        break;
      }
      case 'result':
        pending.delete(message.id);
        call.settle({ type: 'result', message });
        break;
    }
  };

  const acceptConnection = (candidate: Socket): void => {
    if (socket !== undefined) {
      candidate.destroy();
      return;
    }
    candidate.setEncoding('utf8');
    let buffer = '';
    let verified = false;
    candidate.on('data', (chunk: string) => {
      buffer += chunk;
      let newline = buffer.indexOf('\n');
      while (newline !== -1) {
        const line = buffer.slice(0, newline);
        buffer = buffer.slice(newline + 1);
        if (!verified) {
          const hello = parseHostMessage(line);
          if (hello?.type !== 'hello' || hello.token !== token) {
            candidate.destroy();
            return;
          }
          verified = true;
          socket = candidate;
          connected = true;
          // One host, one connection: nobody else may connect afterwards.
          server.close();
          removeSocketFolder();
          for (const queued of outgoing) candidate.write(queued);
          outgoing = [];
          clearTimeout(startTimer);
          resolveReady();
        } else {
          handleLine(line);
        }
        newline = buffer.indexOf('\n');
      }
    });
    candidate.on('error', () => {});
    candidate.on('close', () => {
      if (candidate !== socket || !alive) return;
      // The channel usually closes because pwsh is exiting: give its exit code (the better
      // explanation) a moment to arrive before declaring the host lost.
      const grace = setTimeout(() => {
        failEverything(`the PowerShell host closed its channel unexpectedly.${describeStderr()}`);
        if (!exited) contained?.kill();
      }, CHANNEL_CLOSE_GRACE_MS);
      grace.unref();
    });
  };

  const server: Server = createServer(acceptConnection);
  server.on('error', (error) =>
    failEverything(`the PowerShell host channel failed: ${error.message}`),
  );

  const startTimer = setTimeout(() => {
    failEverything(
      `PowerShell did not start within ${options.startTimeoutMs} ms.${describeStderr()}`,
    );
    if (!exited) contained?.kill();
  }, options.startTimeoutMs);
  startTimer.unref();

  const onExit = (code: number | null, signal: NodeJS.Signals | null): void => {
    exited = true;
    clearTimeout(startTimer);
    const how = signal === null ? `exited with code ${code}` : `was killed by ${signal}`;
    failEverything(`the PowerShell host ${how}.${describeStderr()}`);
    removeSocketFolder();
    for (const waiter of exitWaiters) waiter();
    exitWaiters = [];
  };

  if (folderProblem !== undefined) {
    exited = true;
    failEverything(`the PowerShell host's channel has no private folder: ${folderProblem}`);
  } else
    server.listen(channelPath, () => {
      if (!alive) return;
      const windows = process.platform === 'win32';
      const args = [
        '-NoLogo',
        '-NoProfile',
        '-NonInteractive',
        ...(windows ? ['-ExecutionPolicy', 'Bypass'] : []),
        '-File',
        options.hostScriptPath,
        '-ChannelPath',
        channelPath,
        '-ProjectRoot',
        options.projectRoot,
        '-PoolSize',
        String(options.poolSize),
        ...(options.idleReleaseMs === undefined
          ? []
          : ['-IdleReleaseMs', String(options.idleReleaseMs)]),
        '-MaxOutputChars',
        String(options.maxOutputBytes),
      ];
      try {
        const sandbox = options.planSandbox?.(socketFolder);
        const launch = resolvePwshLaunch(options.pwshPath, options.environment);
        contained = spawnContained({
          command: launch.command,
          args: [...launch.args, ...args],
          cwd: sandbox?.cwd ?? options.projectRoot,
          env: {
            ...options.environment,
            ...HOST_LISTENERS_OFF,
            ...HOST_RUNTIME_SETTINGS,
            ...chooseStartSettings(options.environment),
            TOOLPACK_PROJECT_ROOT: options.projectRoot,
            TOOLPACK_HOST_TOKEN: token,
            ...(options.cacheHome === undefined
              ? {}
              : {
                  XDG_CACHE_HOME: options.cacheHome,
                  // '' for none, '=' and the value otherwise: an empty value is a value.
                  TOOLPACK_HOST_CACHE_HOME:
                    options.environment.XDG_CACHE_HOME === undefined
                      ? ''
                      : `=${options.environment.XDG_CACHE_HOME}`,
                }),
          },
          // What tools print to the console goes nowhere: nothing to read, nothing to buffer.
          stdio: ['ignore', 'ignore', 'pipe'],
          ...(sandbox === undefined ? {} : { sandbox }),
        });
        child = contained.child;
      } catch (error) {
        failEverything(
          `PowerShell could not be started from ${options.pwshPath}: ${(error as Error).message}.`,
        );
        exited = true;
        return;
      }
      // Drained so that a tool writing to stderr can never block the host on a full pipe.
      child.stderr?.on('data', (chunk: Buffer) => stderrTail.push(chunk));
      child.once('error', (error: NodeJS.ErrnoException) => {
        const why =
          error.code === 'ENOENT'
            ? 'the file does not exist'
            : error.code === 'EACCES'
              ? 'it is not executable'
              : error.message;
        failEverything(`PowerShell could not be started from ${options.pwshPath}: ${why}.`);
        if (child?.pid === undefined) {
          exited = true;
          for (const waiter of exitWaiters) waiter();
          exitWaiters = [];
        }
      });
      child.once('exit', onExit);
    });

  return {
    ready,
    get pid() {
      return child?.pid;
    },
    get alive() {
      return alive;
    },
    startCall(request, handlers) {
      const id = String(nextId++);
      const outcome = new Promise<PwshCallOutcome>((settle) => {
        if (!alive) {
          settle({ type: 'lost', reason: lostReason ?? 'the PowerShell host is not running.' });
          return;
        }
        pending.set(id, { handlers, settle });
        send({ type: 'call', id, ...request });
      });
      return {
        outcome,
        stop() {
          if (alive && pending.has(id)) send({ type: 'stop', id });
        },
      };
    },
    warmModule(modulePath) {
      if (alive) send({ type: 'warm-module', modulePath });
    },
    warmSession(session) {
      if (alive) send({ type: 'warm-session', session });
    },
    forgetModules(modulePaths) {
      if (alive)
        send({
          type: 'forget-modules',
          modulePaths: modulePaths === undefined ? null : [...modulePaths],
        });
    },
    kill(reason) {
      failEverything(reason);
      if (!exited) contained?.kill();
    },
    async close() {
      if (alive && connected) {
        socket?.end(`${JSON.stringify({ type: 'shutdown' } satisfies ToHostMessage)}\n`);
      }
      failEverything('the PowerShell host was closed with the runner.');
      if (exited || child === undefined) {
        removeSocketFolder();
        return;
      }
      const gone = new Promise<void>((resolve) => exitWaiters.push(resolve));
      const timer = setTimeout(() => {
        if (!exited) contained?.kill();
      }, 1_000);
      await gone;
      clearTimeout(timer);
    },
  };
}

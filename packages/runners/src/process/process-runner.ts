import type { ChildProcess } from 'node:child_process';
import type { Writable } from 'node:stream';
import { extname, resolve } from 'node:path';
import { realpathSync } from 'node:fs';
import { findInstallFolder, spawnContained, type ContainedProcess } from '@toolpack/containment';
import type { ToolCallResult, ToolInvocation } from '@toolpack/core';
import { createHeadBuffer, createTailBuffer } from '../capped-output.ts';
import { askWithoutSlot, createConcurrencyLimiter, holdSlot } from '../concurrency-limiter.ts';
import { createSandboxPlanner, type SandboxPlanner } from '../plan-call-sandbox.ts';
import {
  createErrorResult,
  createResultFromOutput,
  formatTruncationMarker,
  sliceUtf8,
} from '../results.ts';
import { describeQuestionFailure } from '../describe-question-failure.ts';
import {
  createProgressLineFilter,
  MAX_ASK_LINE_BYTES,
  MAX_PROGRESS_LINE_BYTES,
  type AskLine,
} from '../progress-line-protocol.ts';
import type { KindRunner, RunnerCall, ToolQuestion, ToolQuestionAnswer } from '../runner-types.ts';
import { describeStopReason } from '../runner-types.ts';
import { findExecutable } from '../find-executable.ts';
import { findInterpreterRuntimePaths } from '../runtime-paths.ts';

type ProcessInvocation = Extract<ToolInvocation, { runner: 'process' }>;

export interface ProcessRunnerOptions {
  projectRoot: string;
  maxOutputBytes: number;
  concurrency: number;
  /** Extension (`.bas`) -> argv prefix; the script path is appended. Merged over the defaults. */
  interpreters: Readonly<Record<string, readonly string[]>>;
}

const STDERR_TAIL_BYTES = 8 * 1024;
const STDERR_LOG_LIMIT_BYTES = 64 * 1024;
/** After the child exits, how long its stdio may stay open (held by a straggler) before we stop waiting. */
const CLOSE_WAIT_MS = 2_000;

/** The argv prefix per extension when the project configures none. */
export function getDefaultInterpreters(): Record<string, readonly string[]> {
  const node = [process.execPath];
  const typescript = process.features.typescript ? node : [...node, '--experimental-strip-types'];
  const python = process.platform === 'win32' ? ['python'] : ['python3'];
  return {
    '.sh': ['bash'],
    '.bash': ['bash'],
    '.py': python,
    '.js': node,
    '.mjs': node,
    '.cjs': node,
    '.ts': typescript,
    '.mts': typescript,
    '.cts': typescript,
  };
}

export function normalizeExtension(extension: string): string {
  const trimmed = extension.trim().toLowerCase();
  return trimmed.startsWith('.') ? trimmed : `.${trimmed}`;
}

export function createProcessRunner(options: ProcessRunnerOptions): KindRunner {
  const defaults = getDefaultInterpreters();
  const projectInterpreters = readInterpreterMap(defaults, options.interpreters);
  const defaultInterpreters = readInterpreterMap(defaults, {});
  const packInterpreters = new WeakMap<object, Map<string, readonly string[]>>();
  /**
   * A pack's tool runs with its pack's own interpreters over the defaults, never with the
   * project's map (a pack's `.sh` would otherwise run the project's `.sh` tools unconfined,
   * and another pack's inside its sandbox).
   */
  const chooseInterpreters = (tool: RunnerCall['tool']): Map<string, readonly string[]> => {
    if (tool.source.pack === undefined) return projectInterpreters;
    const own = tool.source.interpreters ?? {};
    let map = packInterpreters.get(own);
    if (map === undefined) {
      map = readInterpreterMap(defaults, own);
      packInterpreters.set(own, map);
    }
    return map;
  };
  const limiter = createConcurrencyLimiter(options.concurrency);
  const running = new Set<ContainedProcess>();
  const planner = createSandboxPlanner(options.projectRoot);

  return {
    async execute(call) {
      const invocation = call.tool.invocation as ProcessInvocation;
      const scriptPath = resolve(options.projectRoot, invocation.scriptPath);
      const extension = normalizeExtension(invocation.extension || extname(scriptPath));
      const interpreter = chooseInterpreters(call.tool).get(extension);
      const declaredByPack =
        call.tool.source.pack !== undefined && interpreter !== defaultInterpreters.get(extension);
      if (interpreter === undefined || interpreter.length === 0) {
        return createErrorResult(
          `No interpreter is configured for "${extension}" files, so tool "${call.tool.name}" (${scriptPath}) cannot run. ` +
            `Configure one in toolpack.yaml, e.g. interpreters: { "${extension}": ["my-interpreter", "--run"] } ` +
            '(the script path is appended; arguments arrive as one JSON object on stdin).',
        );
      }
      const release = await limiter.acquire(call.signal);
      if (release === undefined) return createStoppedResult(call);
      const slot = holdSlot(limiter, release, call.signal);
      try {
        return await runProcess({
          call: { ...call, ask: askWithoutSlot(slot, call.ask) },
          scriptPath,
          extension,
          interpreter,
          declaredByPack,
          options,
          running,
          planner,
        });
      } finally {
        slot.release();
      }
    },
    async close() {
      for (const contained of running) contained.kill();
      await Promise.all(
        [...running].map(
          ({ child }) =>
            new Promise<void>((done) => {
              if (child.exitCode !== null || child.signalCode !== null) done();
              else child.once('exit', () => done());
            }),
        ),
      );
    },
  };
}

/**
 * What a pack's own interpreter gets bound: only the Node that runs Toolpack (whose folder a
 * default interpreter binds anyway), when its command is that Node. Its other paths are a
 * permission like any other: visible when they are system programs, in the pack's folder or
 * in a granted root, never bound because the pack named them (`["/bin/sh", "-c", "cat
 * ~/.ssh/id_rsa", "/home/me"]` would read the key).
 */
function findPackInterpreterRuntimePaths(
  argv: readonly string[],
  environment: Readonly<Record<string, string>>,
): string[] {
  const executable = findExecutable(argv[0] ?? '', environment);
  if (executable === undefined) return [];
  const real = readRealPath(executable);
  return real !== undefined && real === readRealPath(process.execPath)
    ? [findInstallFolder(real)]
    : [];
}

function readRealPath(target: string): string | undefined {
  try {
    return realpathSync(target);
  } catch {
    return undefined;
  }
}

function readInterpreterMap(
  defaults: Readonly<Record<string, readonly string[]>>,
  configured: Readonly<Record<string, readonly string[]>>,
): Map<string, readonly string[]> {
  const map = new Map<string, readonly string[]>();
  for (const [extension, argv] of Object.entries({ ...defaults, ...configured }))
    map.set(normalizeExtension(extension), argv);
  return map;
}

function createStoppedResult(call: RunnerCall): ToolCallResult {
  const reason = describeStopReason(call.signal.reason);
  return createErrorResult(
    `Tool "${call.tool.name}" was stopped (${reason}) and its processes were killed.`,
  );
}

interface RunProcessInput {
  call: RunnerCall;
  scriptPath: string;
  extension: string;
  interpreter: readonly string[];
  /** A pack's own interpreter: nothing it names is bound into the sandbox for it. */
  declaredByPack: boolean;
  options: ProcessRunnerOptions;
  running: Set<ContainedProcess>;
  planner: SandboxPlanner;
}

function runProcess(input: RunProcessInput): Promise<ToolCallResult> {
  const { call, scriptPath, extension, interpreter, declaredByPack, options, running, planner } =
    input;
  const [command = '', ...prefix] = interpreter;
  const { environment } = call.confinement;
  return new Promise((settle) => {
    let contained: ContainedProcess;
    try {
      // The script itself lies in the sandbox's own folder, readable already.
      const sandbox = planner.plan({
        confinement: call.confinement,
        variant: `${declaredByPack ? 'pack' : 'runner'}\0${interpreter.join('\0')}`,
        runtimePaths: () =>
          declaredByPack
            ? findPackInterpreterRuntimePaths(interpreter, environment)
            : findInterpreterRuntimePaths(interpreter, environment),
      });
      contained = spawnContained({
        command,
        args: [...prefix, scriptPath],
        cwd: sandbox?.cwd ?? options.projectRoot,
        env: {
          ...environment,
          TOOLPACK_PROJECT_ROOT: options.projectRoot,
          TOOLPACK_TOOL: call.tool.name,
        },
        // fd 3 carries the answers to the tool's `::ask` lines.
        stdio: ['pipe', 'pipe', 'pipe', 'pipe'],
        ...(sandbox === undefined ? {} : { sandbox }),
      });
    } catch (error) {
      settle(createSpawnErrorResult(call.tool.name, command, extension, error));
      return;
    }
    const child: ChildProcess = contained.child;
    const pid = child.pid;
    running.add(contained);

    const stdout = createHeadBuffer(options.maxOutputBytes);
    const stderr = createTailBuffer(STDERR_TAIL_BYTES);
    const forwardStderr = createLineForwarder(
      (line) => call.onLog('info', line),
      STDERR_LOG_LIMIT_BYTES,
    );
    let malformedReported = false;
    const answers = child.stdio[3] as Writable | null;
    // A tool that never reads its answers closes fd 3; that is not its failure.
    answers?.on('error', () => {});
    // Answered in the order asked, one line each, on fd 3.
    let answering: Promise<void> = Promise.resolve();
    const progressLines = createProgressLineFilter({
      onProgress: (progress) => call.onProgress(progress),
      onAsk(line) {
        const asked = call.ask(toQuestion(line)).then(
          (answer) => formatAnswerLine(line, answer),
          (error: unknown) => `error ${describeQuestionFailure(error).replace(/[\r\n]+/gu, ' ')}`,
        );
        answering = answering.then(async () => {
          const reply = await asked;
          if (!settled && answers?.writable === true) answers.write(`${reply}\n`);
        });
      },
      onMalformed(line) {
        if (malformedReported) return;
        malformedReported = true;
        call.onLog('warning', describeMalformedProgressLine(line));
      },
    });
    const takeStderr = (plain: Buffer): void => {
      if (plain.length === 0) return;
      stderr.push(plain);
      forwardStderr.push(plain);
    };
    let spawnError: unknown;
    let exit: { code: number | null; signal: NodeJS.Signals | null } | undefined;
    let settled = false;
    let closeTimer: NodeJS.Timeout | undefined;

    const onAbort = (): void => contained.kill();
    call.signal.addEventListener('abort', onAbort, { once: true });
    if (call.signal.aborted) onAbort();

    const finish = (): void => {
      if (settled) return;
      settled = true;
      clearTimeout(closeTimer);
      call.signal.removeEventListener('abort', onAbort);
      running.delete(contained);
      takeStderr(progressLines.end());
      forwardStderr.flush();
      if (spawnError !== undefined) {
        settle(createSpawnErrorResult(call.tool.name, command, extension, spawnError));
        return;
      }
      if (call.signal.aborted) {
        settle(createStoppedResult(call));
        return;
      }
      const truncated = stdout.droppedBytes > 0;
      const text = sliceUtf8(stdout.toBuffer(), options.maxOutputBytes);
      if (exit !== undefined && (exit.code !== 0 || exit.signal !== null)) {
        settle(createExitErrorResult(call.tool.name, exit, stderr.toString(), text));
        return;
      }
      settle(
        createResultFromOutput(text, {
          truncated,
          ...(truncated
            ? { note: formatTruncationMarker(options.maxOutputBytes, stdout.droppedBytes) }
            : {}),
        }),
      );
    };

    child.stdout?.on('data', (chunk: Buffer) => stdout.push(chunk));
    // Progress lines are the tool talking to Toolpack, not error output: taken out first.
    child.stderr?.on('data', (chunk: Buffer) => takeStderr(progressLines.push(chunk)));
    // A tool that never reads stdin closes it early; EPIPE here is not the tool's failure.
    child.stdin?.on('error', () => {});
    child.stdin?.end(`${JSON.stringify(call.args)}\n`);

    child.once('error', (error) => {
      spawnError ??= error;
      if (pid === undefined) finish();
    });
    child.once('exit', (code, signal) => {
      exit = { code, signal };
      // spawnContained sweeps what the tool left behind (a background `sleep &`) at its exit.
      closeTimer = setTimeout(() => {
        child.stdout?.destroy();
        child.stderr?.destroy();
        finish();
      }, CLOSE_WAIT_MS);
      closeTimer.unref();
    });
    child.once('close', finish);
  });
}

function createSpawnErrorResult(
  toolName: string,
  command: string,
  extension: string,
  error: unknown,
): ToolCallResult {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  if (code === 'ENOENT') {
    return createErrorResult(
      `Cannot start "${command}" for tool "${toolName}": it is not installed or not on PATH. ` +
        `Install it, or point toolpack.yaml at it: interpreters: { "${extension}": ["/full/path/to/${command}"] }.`,
    );
  }
  const message = error instanceof Error ? error.message.replace(/\.$/u, '') : String(error);
  const hint = (error as { hint?: unknown } | undefined)?.hint;
  return createErrorResult(
    `Cannot start "${command}" for tool "${toolName}": ${message}.${typeof hint === 'string' ? ` ${hint}` : ''}`,
  );
}

function createExitErrorResult(
  toolName: string,
  exit: { code: number | null; signal: NodeJS.Signals | null },
  stderrTail: string,
  stdout: string,
): ToolCallResult {
  const how =
    exit.signal !== null ? `was killed by ${exit.signal}` : `exited with code ${exit.code}`;
  const parts = [`Tool "${toolName}" failed: the process ${how}.`];
  const stderrText = stderrTail.trim();
  if (stderrText !== '') parts.push(`stderr (last lines):\n${stderrText}`);
  else if (stdout.trim() !== '') parts.push(`stdout:\n${stdout.trim().slice(-STDERR_TAIL_BYTES)}`);
  return createErrorResult(parts.join('\n'));
}

function describeMalformedProgressLine(line: string): string {
  const shown = line.length > 120 ? `${line.slice(0, 120)}…` : line;
  if (line.startsWith('::ask'))
    return (
      `Ignored a malformed question line on stderr: "${shown}". ` +
      'Write "::ask confirm <message>", "::ask text <message>" or "::ask choice <message>|<value>|<value>" ' +
      `on a line of its own (at most ${MAX_ASK_LINE_BYTES} bytes; see docs/param-headers.md); it got no answer on fd 3. ` +
      'Further malformed lines in this call are not reported.'
    );
  return (
    `Ignored a malformed progress line on stderr: "${shown}". ` +
    'Write "::progress 40/100 message", "::progress 40% message" or "::progress 40 message" ' +
    `on a line of its own (at most ${MAX_PROGRESS_LINE_BYTES} bytes; see docs/param-headers.md). ` +
    'Further malformed lines in this call are not reported.'
  );
}

/** Splits a byte stream into lines and hands over at most `limitBytes` of them. */
function createLineForwarder(
  forward: (line: string) => void,
  limitBytes: number,
): { push(chunk: Buffer): void; flush(): void } {
  let pending = '';
  let budget = limitBytes;
  const emit = (line: string): void => {
    const text = line.replace(/\r$/u, '');
    if (text.trim() === '' || budget <= 0) return;
    budget -= text.length;
    forward(text);
  };
  return {
    push(chunk) {
      if (budget <= 0) return;
      pending += chunk.toString('utf8');
      const lines = pending.split('\n');
      pending = lines.pop() ?? '';
      for (const line of lines) emit(line);
      if (pending.length > limitBytes) pending = '';
    },
    flush() {
      if (pending !== '') emit(pending);
      pending = '';
    },
  };
}

/** The MCP question for an `::ask` line: no field for a confirmation, one for the others. */
function toQuestion(line: AskLine): ToolQuestion {
  switch (line.kind) {
    case 'confirm':
      return { message: line.message, fields: [] };
    case 'text':
      return { message: line.message, fields: [{ name: 'answer', title: 'Answer' }] };
    case 'choice':
      return {
        message: line.message,
        fields: [
          { name: 'choice', title: 'Choice', choices: line.choices.map((value) => ({ value })) },
        ],
      };
  }
}

/** The answer as the one line the tool reads: its line breaks become spaces. */
function formatAnswerLine(line: AskLine, answer: ToolQuestionAnswer): string {
  if (answer.action !== 'accept') return answer.action;
  if (line.kind === 'confirm') return 'accept';
  const value = answer.values[line.kind === 'text' ? 'answer' : 'choice'] ?? '';
  return `accept ${value.replace(/[\r\n]+/gu, ' ')}`;
}

import { spawn } from 'node:child_process';
import path from 'node:path';
import type { ToolTestFile } from './find-tool-tests.ts';

export interface TestFileOutcome {
  status: 'passed' | 'failed' | 'skipped';
  reason?: string;
  /** stdout and stderr interleaved, the last 64 KiB. */
  output: string;
  /** For a failure: the part of the output that says why (the assertion, the error). */
  detail?: string;
  durationMs: number;
}

export interface RunTestFileOptions {
  projectRoot: string;
  env: NodeJS.ProcessEnv;
  timeoutMs: number;
  /** Undefined when pwsh is not installed: PowerShell tests are then skipped. */
  pwshPath: string | undefined;
  /** The run-test.ps1 `mcp test` wrote. */
  powershellRunner: string;
  signal: AbortSignal;
}

const MAX_OUTPUT = 64 * 1024;

/** Runs one test file in its own process (group), so a stuck test is killed with its children. */
export async function runTestFile(
  file: ToolTestFile,
  options: RunTestFileOptions,
): Promise<TestFileOutcome> {
  const started = Date.now();
  if (file.runner === 'pwsh' && options.pwshPath === undefined) {
    return {
      status: 'skipped',
      reason: `${path.basename(file.path)} needs PowerShell 7 (pwsh), which is not on PATH`,
      output: '',
      durationMs: 0,
    };
  }
  const argv =
    file.runner === 'pwsh'
      ? [
          options.pwshPath ?? 'pwsh',
          '-NoLogo',
          '-NoProfile',
          '-NonInteractive',
          '-ExecutionPolicy',
          'Bypass',
          '-File',
          options.powershellRunner,
          '-ToolpackTestFile',
          file.path,
          '-ToolpackTestProjectRoot',
          options.projectRoot,
        ]
      : [
          process.execPath,
          ...typeScriptFlags(file.path),
          '--test',
          '--test-reporter=tap',
          file.path,
        ];

  const [command = '', ...args] = argv;
  const child = spawn(command, args, {
    cwd: path.dirname(file.path),
    env: options.env,
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: process.platform !== 'win32',
    windowsHide: true,
  });
  let output = '';
  const append = (chunk: Buffer) => {
    output += chunk.toString('utf8');
    if (output.length > MAX_OUTPUT * 2) output = output.slice(-MAX_OUTPUT);
  };
  child.stdout?.on('data', append);
  child.stderr?.on('data', append);

  let stopped: 'timeout' | 'cancelled' | undefined;
  const stop = (why: 'timeout' | 'cancelled') => {
    stopped ??= why;
    killTree(child.pid);
  };
  const timer = setTimeout(() => stop('timeout'), options.timeoutMs);
  const onAbort = () => stop('cancelled');
  options.signal.addEventListener('abort', onAbort, { once: true });

  const exit = await new Promise<{ code: number | null; error?: Error }>((resolve) => {
    child.once('error', (error) => resolve({ code: null, error }));
    child.once('close', (code) => resolve({ code }));
  });
  clearTimeout(timer);
  options.signal.removeEventListener('abort', onAbort);
  output = output.slice(-MAX_OUTPUT);
  const durationMs = Date.now() - started;

  if (exit.error !== undefined) {
    return {
      status: 'failed',
      reason: `could not start ${command}: ${exit.error.message}`,
      output,
      durationMs,
    };
  }
  if (stopped === 'timeout') {
    return {
      status: 'failed',
      reason: `${path.basename(file.path)} did not finish within ${options.timeoutMs} ms and was stopped (raise --test-timeout if it needs longer)`,
      output,
      durationMs,
    };
  }
  if (stopped === 'cancelled') {
    return { status: 'failed', reason: 'cancelled', output, durationMs };
  }
  if (exit.code === 0) return { status: 'passed', output, durationMs };
  const failure =
    file.runner === 'pwsh' ? readPowerShellFailure(output) : readNodeTestFailure(output);
  return {
    status: 'failed',
    reason: `${path.basename(file.path)}: ${failure?.reason ?? `exited with code ${exit.code ?? 'unknown'}`}`,
    output,
    detail: failure?.detail ?? tail(output),
    durationMs,
  };
}

/** Node 22.6-22.17 strip types only when asked; later versions (and 24) always do. */
function typeScriptFlags(file: string): string[] {
  if (!/\.[cm]?ts$/i.test(file)) return [];
  const features = process.features as { typescript?: unknown };
  return features.typescript ? [] : ['--experimental-strip-types'];
}

function killTree(pid: number | undefined): void {
  if (pid === undefined) return;
  try {
    if (process.platform === 'win32') {
      spawn('taskkill', ['/pid', String(pid), '/T', '/F'], { stdio: 'ignore', windowsHide: true });
    } else {
      process.kill(-pid, 'SIGKILL');
    }
  } catch {
    // Already gone.
  }
}

function tail(output: string, lines = 15): string {
  return output
    .split(/\r?\n/)
    .filter((line) => line.trim() !== '')
    .slice(-lines)
    .join('\n');
}

export interface FailureReading {
  /** One line: what failed. */
  reason: string;
  /** A few lines that show why. */
  detail: string;
}

/** The message run-test.ps1 prints for a throw, with the "At file:line" that follows it. */
export function readPowerShellFailure(output: string): FailureReading | undefined {
  const lines = output.split(/\r?\n/);
  const index = lines.findIndex((line) => line.startsWith('TOOLPACK_TEST_FAILED: '));
  if (index < 0) {
    const last = lines
      .map((line) => line.trim())
      .filter(Boolean)
      .at(-1);
    return last === undefined
      ? undefined
      : { reason: `exited non-zero after: ${last}`, detail: tail(output) };
  }
  const message = (lines[index] ?? '').slice('TOOLPACK_TEST_FAILED: '.length).trim();
  // PowerShell's own position message has a column; run-test.ps1's caller position does not.
  // A line a child process wrote to the shared stderr may come between.
  const at = lines
    .slice(index + 1, index + 4)
    .map((line) => /^At (.+?:\d+)(?: char:\d+)?$/.exec(line.trim()))
    .find((match) => match !== null);
  return {
    reason: at === undefined ? message : `${message} (at ${at[1]})`,
    // What the test printed before it failed, then PowerShell's position message.
    detail: tail(lines.slice(0, index).join('\n'), 10),
  };
}

const YAML_KEYS_SHOWN = new Set(['error', 'expected', 'actual', 'operator']);

/** The first failing test of node's TAP output: its name, its error and expected/actual. */
export function readNodeTestFailure(output: string): FailureReading | undefined {
  const lines = output.split(/\r?\n/);
  const start = lines.findIndex((line) => /^\s*not ok \d+ - /.test(line));
  if (start < 0) return undefined;
  const name = (/^\s*not ok \d+ - (.*)$/.exec(lines[start] ?? '')?.[1] ?? '').replace(
    /\s+#.*$/,
    '',
  );
  const block: string[] = [];
  for (const line of lines.slice(start + 1)) {
    if (/^\s*\.\.\.\s*$/.test(line) || /^\s*(not )?ok \d+/.test(line)) break;
    if (!/^\s*---\s*$/.test(line)) block.push(line);
  }
  const keyIndent = Math.min(
    ...block.filter((l) => /^\s*[A-Za-z_]+:/.test(l)).map((l) => l.length - l.trimStart().length),
  );
  const shown: string[] = [];
  let error: string | undefined;
  let currentKey = '';
  for (const line of block) {
    const indent = line.length - line.trimStart().length;
    const key = indent === keyIndent ? /^\s*([A-Za-z_]+):\s*(.*)$/.exec(line) : null;
    if (key !== null) {
      currentKey = key[1] ?? '';
      const value = (key[2] ?? '').trim();
      if (currentKey === 'error' && !/^[|>][-+]?$/.test(value)) error = readYamlScalar(value);
    } else if (currentKey === 'error' && error === undefined && line.trim() !== '') {
      // A block scalar (error: |-): its first line is the message.
      error = line.trim();
    }
    if (YAML_KEYS_SHOWN.has(currentKey)) shown.push(line.slice(Math.min(indent, keyIndent)));
  }
  return {
    reason: error === undefined ? `"${name}" failed` : `"${name}" failed: ${error}`,
    detail: shown.join('\n'),
  };
}

function readYamlScalar(value: string): string {
  if (value.startsWith('"')) {
    try {
      return JSON.parse(value) as string;
    } catch {
      return value;
    }
  }
  return value.replace(/^'(.*)'$/, '$1').replace(/''/g, "'");
}

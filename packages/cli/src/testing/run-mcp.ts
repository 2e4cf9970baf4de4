// Test support for the end-to-end tests: the real `mcp` from source (the test environment
// adds the source condition), never through this package's index.
import { spawn, spawnSync } from 'node:child_process';
import path from 'node:path';

export const mcpBin = path.join(import.meta.dirname, '..', 'bin.ts');

export interface McpRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

export interface RunMcpOptions {
  cwd: string;
  /** The whole environment (default this process's); `NO_COLOR=1` is always added. */
  env?: NodeJS.ProcessEnv;
  /** Killed after this long. Default 60 s (90 s for `startMcp`). */
  timeoutMs?: number;
}

/** Runs `mcp <args>` to its end and returns its exit code and output. */
export function runMcp(args: readonly string[], options: RunMcpOptions): McpRun {
  const result = spawnSync(process.execPath, [mcpBin, ...args], {
    cwd: options.cwd,
    encoding: 'utf8',
    env: { ...(options.env ?? process.env), NO_COLOR: '1' },
    timeout: options.timeoutMs ?? 60_000,
  });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

/** The same without blocking, so slow cases can run side by side; `ms` is its wall time. */
export function startMcp(
  args: readonly string[],
  options: RunMcpOptions,
): Promise<McpRun & { ms: number }> {
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [mcpBin, ...args], {
      cwd: options.cwd,
      env: { ...(options.env ?? process.env), NO_COLOR: '1' },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 90_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr, ms: Date.now() - started });
    });
  });
}

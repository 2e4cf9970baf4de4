// Test support for the end-to-end tests: the real `mcp`, never through this package's index.
// From source by default (the test environment adds the source condition); the same suites
// run against a built CLI installed from its tarball when TOOLPACK_E2E_MCP_BIN names that
// install's bin file (tests/packaging/installed-cli.test.ts does, so the bundle is tested too).
import { spawn, spawnSync } from 'node:child_process';
import path from 'node:path';

const installedBin = process.env.TOOLPACK_E2E_MCP_BIN;

export const mcpBin = installedBin ?? path.join(import.meta.dirname, '..', 'bin.ts');

/** The `bin/mcp.js` of the package under test: what a client config must start. */
export const mcpPackageBin =
  installedBin ?? path.join(import.meta.dirname, '..', '..', 'bin', 'mcp.js');

/**
 * The child's environment. An installed CLI resolves its dependencies as a user's does: the
 * source condition would point them back at workspace sources, so it is taken out.
 */
function createChildEnv(env: NodeJS.ProcessEnv | undefined): NodeJS.ProcessEnv {
  const childEnv: NodeJS.ProcessEnv = { ...(env ?? process.env), NO_COLOR: '1' };
  if (installedBin === undefined) return childEnv;
  const nodeOptions = (childEnv.NODE_OPTIONS ?? '')
    .replace(/--conditions[= ]@toolpack\/source/g, '')
    .trim();
  if (nodeOptions === '') delete childEnv.NODE_OPTIONS;
  else childEnv.NODE_OPTIONS = nodeOptions;
  return childEnv;
}

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
    env: createChildEnv(options.env),
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
      env: createChildEnv(options.env),
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

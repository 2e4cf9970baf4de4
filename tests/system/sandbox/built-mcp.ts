// The built `mcp` (packages/cli/bin/mcp.js and its dist/), the program a user installs: the
// sandbox proof runs through it, so the bundled runners, their child entry and the
// PowerShell host script are what is confined, not the workspace sources. CI builds before
// it tests; run `pnpm build` first locally.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import path from 'node:path';

const repo = path.resolve(import.meta.dirname, '..', '..', '..');
export const builtMcpBin = path.join(repo, 'packages', 'cli', 'bin', 'mcp.js');

/** Why the built CLI cannot run, or undefined when it can. */
export function findBuiltMcpProblem(): string | undefined {
  return existsSync(path.join(repo, 'packages', 'cli', 'dist', 'bin.mjs'))
    ? undefined
    : 'packages/cli/dist is missing: run `pnpm build` before these tests';
}

/**
 * The environment of a built `mcp`: `extra` over this process's, without the source
 * condition (the bundle resolves its dependencies as an install does) and without Toolpack's
 * own variables, which each case sets itself.
 */
export function createBuiltMcpEnv(extra: Record<string, string>): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (value === undefined || key.startsWith('TOOLPACK_')) continue;
    env[key] = value;
  }
  const nodeOptions = (env.NODE_OPTIONS ?? '').replace(/--conditions[= ]@toolpack\/source/g, '');
  if (nodeOptions.trim() === '') delete env.NODE_OPTIONS;
  else env.NODE_OPTIONS = nodeOptions.trim();
  return { ...env, NO_COLOR: '1', ...extra };
}

export interface BuiltMcpRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `mcp <args>` to its end (killed after `timeoutMs`). */
export async function runBuiltMcp(
  args: readonly string[],
  options: { cwd: string; env: Record<string, string>; timeoutMs?: number },
): Promise<BuiltMcpRun> {
  const child = spawn(process.execPath, [builtMcpBin, ...args], {
    cwd: options.cwd,
    env: options.env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 60_000);
  const [code] = (await once(child, 'close')) as [number | null];
  clearTimeout(timer);
  return { code, stdout, stderr };
}

interface RpcAnswer {
  id?: unknown;
  result?: { content?: { type: string; text?: string }[]; isError?: boolean };
  error?: { code: number; message: string };
}

/** `mcp serve` over stdio, driven by raw JSON-RPC lines. */
export interface BuiltServe {
  child: ChildProcessWithoutNullStreams;
  stderr(): string;
  /** tools/call; resolves with the result's text and whether it is an error. */
  callTool(
    name: string,
    args: Record<string, unknown>,
  ): Promise<{ text: string; isError: boolean }>;
  /** The names tools/list gives. */
  listTools(): Promise<string[]>;
  /** Closes stdin (a client leaving) and waits for the server to exit; SIGKILL after 10 s. */
  close(): Promise<void>;
}

export async function startBuiltServe(
  args: readonly string[],
  options: { cwd: string; env: Record<string, string> },
): Promise<BuiltServe> {
  const child = spawn(process.execPath, [builtMcpBin, 'serve', ...args], {
    cwd: options.cwd,
    env: options.env,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  const answers = new Map<unknown, RpcAnswer>();
  const waiters: (() => void)[] = [];
  let stderr = '';
  let buffer = '';
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    stderr = (stderr + chunk).slice(-50_000);
  });
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    buffer += chunk;
    for (let newline = buffer.indexOf('\n'); newline !== -1; newline = buffer.indexOf('\n')) {
      const line = buffer.slice(0, newline).trim();
      buffer = buffer.slice(newline + 1);
      if (line === '') continue;
      const message = JSON.parse(line) as RpcAnswer & { method?: string };
      if (message.method === undefined) answers.set(message.id, message);
    }
    for (const wake of waiters.splice(0)) wake();
  });
  child.stdin.on('error', () => undefined);
  const exited = once(child, 'exit');

  let nextId = 0;
  async function request(method: string, params: unknown, timeoutMs = 30_000): Promise<RpcAnswer> {
    nextId += 1;
    const id = nextId;
    child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, params })}\n`);
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const answer = answers.get(id);
      if (answer !== undefined) return answer;
      if (Date.now() > deadline || child.exitCode !== null || child.signalCode !== null)
        throw new Error(`No answer to ${method} within ${timeoutMs} ms.\nstderr:\n${stderr}`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, 250);
        waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  const serve: BuiltServe = {
    child,
    stderr: () => stderr,
    listTools: async () => {
      const answer = (await request('tools/list', {})) as {
        result?: { tools?: { name: string }[] };
      };
      return (answer.result?.tools ?? []).map((tool) => tool.name);
    },
    callTool: async (name, toolArgs) => {
      const answer = await request('tools/call', { name, arguments: toolArgs });
      if (answer.error !== undefined)
        throw new Error(`tools/call ${name}: ${answer.error.message}\nstderr:\n${stderr}`);
      return {
        text: (answer.result?.content ?? []).map((item) => item.text ?? '').join(''),
        isError: answer.result?.isError === true,
      };
    },
    close: async () => {
      child.stdin.end();
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(timer);
    },
  };
  try {
    const init = await request('initialize', {
      protocolVersion: '2025-11-25',
      capabilities: {},
      clientInfo: { name: 'toolpack-sandbox-proof', version: '1.0.0' },
    });
    if (init.error !== undefined) throw new Error(`initialize failed: ${init.error.message}`);
    child.stdin.write(
      `${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n`,
    );
    return serve;
  } catch (error) {
    child.kill('SIGKILL');
    throw error;
  }
}

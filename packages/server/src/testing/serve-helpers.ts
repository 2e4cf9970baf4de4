import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';

export const repo = path.resolve(import.meta.dirname, '..', '..', '..', '..');
export const cliBin = path.join(repo, 'packages', 'cli', 'src', 'bin.ts');
export const examples = path.join(repo, 'examples');

/** The environment every spawned `mcp` gets: this one (with the source condition), no colour. */
export function childEnv(extra: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) if (value !== undefined) env[key] = value;
  delete env.TOOLPACK_TOKEN;
  return { ...env, NO_COLOR: '1', ...extra };
}

export interface StdioSession {
  client: Client;
  transport: StdioClientTransport;
  /** Everything the server wrote to stderr so far. */
  stderr(): string;
  pid: number;
  close(): Promise<void>;
}

/** Spawns `mcp serve <args>` and connects the SDK client to it over stdio. */
export async function startStdioSession(
  args: string[],
  options: {
    cwd: string;
    env?: Record<string, string>;
    client?: ConstructorParameters<typeof Client>[1];
  },
): Promise<StdioSession> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [cliBin, 'serve', ...args],
    cwd: options.cwd,
    env: childEnv(options.env),
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
  });
  const client = new Client({ name: 'toolpack-e2e', version: '1.0.0' }, options.client);
  try {
    await client.connect(transport);
  } catch (error) {
    await transport.close().catch(() => undefined);
    throw new Error(`mcp serve did not start: ${(error as Error).message}\n${stderr}`, {
      cause: error,
    });
  }
  return {
    client,
    transport,
    stderr: () => stderr,
    pid: transport.pid ?? -1,
    close: async () => {
      await client.close().catch(() => undefined);
    },
  };
}

/** Polls `check` until it returns a value other than undefined/false, or fails after `timeoutMs`. */
export async function waitFor<T>(
  check: () => T | undefined | false | Promise<T | undefined | false>,
  what: string,
  timeoutMs = 5_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline)
      throw new Error(`Timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export interface SpawnedServer {
  child: ChildProcess;
  stderr(): string;
  stdout(): string;
  /** Resolves with the exit code (or signal name) when the process ends. */
  exited: Promise<number | string>;
  kill(): void;
}

/** Spawns `mcp serve <args>` without a client: the caller drives stdin or HTTP itself. */
export function spawnServe(
  args: string[],
  options: { cwd: string; env?: Record<string, string> },
): SpawnedServer {
  const child = spawn(process.execPath, [cliBin, 'serve', ...args], {
    cwd: options.cwd,
    env: childEnv(options.env),
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stderr = '';
  let stdout = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
  });
  child.stdout?.on('data', (chunk: Buffer) => {
    stdout += chunk.toString('utf8');
  });
  const exited = once(child, 'exit').then(
    ([code, signal]) => (code as number | null) ?? String(signal),
  );
  return {
    child,
    stderr: () => stderr,
    stdout: () => stdout,
    exited,
    kill: () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    },
  };
}

/** Starts `mcp serve --http 127.0.0.1:0 ...` and reads the bound URL from its stderr. */
export async function startHttpServe(
  args: string[],
  options: { cwd: string; env?: Record<string, string> },
): Promise<SpawnedServer & { url: URL }> {
  const server = spawnServe(['--http', '127.0.0.1:0', ...args], options);
  try {
    const url = await waitFor(
      () =>
        /on (http:\/\/\S+\/mcp)/.exec(server.stderr())?.[1] ??
        (server.child.exitCode !== null ? 'exit' : undefined),
      'the HTTP address on stderr',
      15_000,
    );
    if (url === 'exit') throw new Error(`mcp serve --http exited:\n${server.stderr()}`);
    return { ...server, url: new URL(url) };
  } catch (error) {
    server.kill();
    throw error;
  }
}

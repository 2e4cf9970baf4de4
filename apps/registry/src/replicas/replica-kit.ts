import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';

/** The registry's executable, run from source as `node src/cli.ts` (the tests' NODE_OPTIONS pick the source condition). */
const CLI = path.join(import.meta.dirname, '..', 'cli.ts');

export interface Replica {
  url: string;
  port: number;
  pid: number;
  /** Everything the process wrote to stderr so far. */
  stderr(): string;
  /** Sends `signal` and resolves once the process has exited. */
  kill(signal: NodeJS.Signals): Promise<void>;
}

export interface StartReplicaOptions {
  /** Passed as TOOLPACK_REGISTRY_DATABASE, so the URL (and its password) stays off the command line. */
  databaseUrl: string;
  dataDir: string;
  /** Default 0 (a free port); a restarted replica takes its old one again. */
  port?: number;
  args?: string[];
}

const started = new Set<ChildProcess>();

/**
 * `toolpack-registry serve` in its own process on loopback, no seed, no rate limits, resolved
 * once it prints that it listens (after its start-up sweep).
 */
export function startReplica(options: StartReplicaOptions): Promise<Replica> {
  const child = spawn(
    process.execPath,
    [
      CLI,
      'serve',
      '--port',
      String(options.port ?? 0),
      '--no-seed',
      '--no-rate-limit',
      '--data',
      options.dataDir,
      ...(options.args ?? []),
    ],
    {
      env: { ...process.env, TOOLPACK_REGISTRY_DATABASE: options.databaseUrl },
      stdio: ['ignore', 'ignore', 'pipe'],
    },
  );
  started.add(child);
  let stderr = '';
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  void exited.then(() => started.delete(child));
  return new Promise<Replica>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`The replica did not start within 60 s:\n${stderr}`));
    }, 60_000);
    child.stderr!.setEncoding('utf8');
    child.stderr!.on('data', (text: string) => {
      stderr += text;
      const url = /listening on (http:\/\/\S+)/.exec(stderr)?.[1];
      if (url === undefined) return;
      clearTimeout(timer);
      resolve({
        url,
        port: Number(new URL(url).port),
        pid: child.pid!,
        stderr: () => stderr,
        kill: async (signal) => {
          if (child.exitCode === null && child.signalCode === null) child.kill(signal);
          await exited;
        },
      });
    });
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`The replica exited (${code ?? signal}) before listening:\n${stderr}`));
    });
  });
}

/** Kills what `startReplica` started and is still running (for afterAll). */
export async function killReplicas(): Promise<void> {
  await Promise.all(
    [...started].map(
      (child) =>
        new Promise<void>((resolve) => {
          child.once('exit', () => resolve());
          child.kill('SIGKILL');
        }),
    ),
  );
}

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** `toolpack-registry ARGS` with the database in TOOLPACK_REGISTRY_DATABASE. */
export function runRegistryCommand(args: string[], databaseUrl: string): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], {
      env: { ...process.env, TOOLPACK_REGISTRY_DATABASE: databaseUrl },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (text: string) => (stdout += text));
    child.stderr.setEncoding('utf8').on('data', (text: string) => (stderr += text));
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, stdout, stderr }));
  });
}

export function publishTo(url: string, token: string, tarball: Uint8Array): Promise<Response> {
  return fetch(`${url}/v0/packs`, {
    method: 'POST',
    body: new Uint8Array(tarball),
    headers: { 'content-type': 'application/gzip', authorization: `Bearer ${token}` },
  });
}

/** GET `url` as JSON, with its status. */
export async function getJson<T = unknown>(url: string): Promise<{ status: number; body: T }> {
  const response = await fetch(url);
  return { status: response.status, body: (await response.json()) as T };
}

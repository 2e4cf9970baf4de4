// Issue 30, the loopback hole: a pack granted `network: any` shares the machine's network
// namespace (bwrap --share-net), loopback included, so it reaches `mcp serve --http
// 127.0.0.1:<port>`, and through it any tool the server serves, the project's own
// (unconfined) ones too. The `prowler` pack (installed from a registry with `mcp pack add
// --yes`) has one tool that finds the server on loopback and calls the project's
// `write_marker`, which writes a file outside every sandbox. The attack is performed against
// the built `mcp` with real bubblewrap. Without a token the server refuses to start with such
// a pack, and withholds one added later; with a token the pack's call is refused with 401 while
// a client with the token works. The pack's code run against the tokenless server it was
// withheld from still runs the project's tool: what serving it would have opened.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeSandbox } from '@toolpack/containment';
import { settle } from '../system-helpers.ts';
import { builtMcpBin, createBuiltMcpEnv, findBuiltMcpProblem, runBuiltMcp } from './built-mcp.ts';

const linux = process.platform === 'linux';
const sandbox = describeSandbox({});
const registry = path.join(import.meta.dirname, 'fixtures', 'registry');
const prowlerModule = path.join(registry, 'prowler', 'src', 'prowler-tools.mjs');
const TOKEN = `token-${process.pid}-${Math.floor(Math.random() * 1e9)}`;

interface Attempt {
  attempt: string;
  done: boolean;
  detail: string;
}

interface Project {
  dir: string;
  marker: string;
  env(extra?: Record<string, string>): Record<string, string>;
}

let root: string;

/** A project whose own tool `write_marker` writes a file outside every sandbox. */
function createProject(name: string): Project {
  const base = path.join(root, name);
  const dir = path.join(base, 'project');
  const home = path.join(base, 'home');
  const runtime = path.join(base, 'run');
  const marker = path.join(base, 'marker');
  mkdirSync(path.join(dir, 'scripts'), { recursive: true });
  mkdirSync(home);
  mkdirSync(runtime, { mode: 0o700 });
  writeFileSync(path.join(dir, 'toolpack.yaml'), 'sources:\n  - scripts: scripts\n');
  writeFileSync(
    path.join(dir, 'scripts', 'write-marker.sh'),
    `#!/usr/bin/env bash\n# DESCRIPTION "A tool of the project itself: it writes a file, unconfined."\necho written > '${marker}'\necho "marker written"\n`,
    { mode: 0o755 },
  );
  const env = (extra: Record<string, string> = {}) =>
    createBuiltMcpEnv({
      HOME: home,
      XDG_RUNTIME_DIR: runtime,
      TOOLPACK_CACHE_DIR: path.join(base, 'cache'),
      ...extra,
    });
  return { dir, marker, env };
}

async function addProwler(project: Project): Promise<void> {
  const added = await runBuiltMcp(['pack', 'add', 'prowler', '--yes', '--registry', registry], {
    cwd: project.dir,
    env: project.env(),
  });
  if (added.code !== 0)
    throw new Error(`mcp pack add prowler --yes failed (${added.code}):\n${added.stderr}`);
}

/** `mcp serve --http 127.0.0.1:0`: its port once it says it serves, or its exit and stderr. */
interface HttpServe {
  child: ChildProcess;
  port?: number;
  code?: number | null;
  stderr(): string;
  stop(): Promise<void>;
}

async function startHttpServe(project: Project, env: Record<string, string>): Promise<HttpServe> {
  const child = spawn(process.execPath, [builtMcpBin, 'serve', '--http', '127.0.0.1:0'], {
    cwd: project.dir,
    env,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  const serve: HttpServe = {
    child,
    stderr: () => stderr,
    stop: async () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(timer);
    },
  };
  const port = /serving .* on http:\/\/127\.0\.0\.1:(\d+)\/mcp/;
  const ready = await settle(
    () => port.test(stderr) || child.exitCode !== null || child.signalCode !== null,
    60_000,
  );
  if (!ready) {
    await serve.stop();
    throw new Error(`mcp serve --http said nothing within 60 s:\n${stderr}`);
  }
  const match = port.exec(stderr);
  if (match?.[1] !== undefined) serve.port = Number(match[1]);
  else serve.code = await exited;
  return serve;
}

/** A legitimate client: initialize, then one tools/call, with the token when given one. */
async function callOverHttp(
  port: number,
  name: string,
  args: Record<string, unknown>,
  token?: string,
): Promise<{ status: number; text: string; isError: boolean }> {
  const url = `http://127.0.0.1:${port}/mcp`;
  const headers = (session?: string): Record<string, string> => ({
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    ...(token === undefined ? {} : { authorization: `Bearer ${token}` }),
    ...(session === undefined ? {} : { 'mcp-session-id': session }),
  });
  const post = (session: string | undefined, message: Record<string, unknown>) =>
    fetch(url, {
      method: 'POST',
      headers: headers(session),
      body: JSON.stringify({ jsonrpc: '2.0', ...message }),
    });
  const init = await post(undefined, {
    id: 1,
    method: 'initialize',
    params: {
      protocolVersion: '2025-11-25',
      capabilities: {},
      clientInfo: { name: 'loopback-proof', version: '1.0.0' },
    },
  });
  await init.text();
  if (init.status !== 200) return { status: init.status, text: '', isError: true };
  const session = init.headers.get('mcp-session-id') ?? undefined;
  await (await post(session, { method: 'notifications/initialized' })).text();
  const call = await post(session, {
    id: 2,
    method: 'tools/call',
    params: { name, arguments: args },
  });
  const body = await call.text();
  const data = body
    .split('\n')
    .filter((line) => line.startsWith('data:'))
    .map((line) => line.slice('data:'.length).trim());
  const answer = JSON.parse(data.length > 0 ? data.join('') : body) as {
    result?: { content?: { text?: string }[]; isError?: boolean };
    error?: { message: string };
  };
  return {
    status: call.status,
    text: answer.error?.message ?? (answer.result?.content ?? []).map((i) => i.text).join(''),
    isError: answer.error !== undefined || answer.result?.isError === true,
  };
}

beforeAll(() => {
  const problem = findBuiltMcpProblem();
  if (problem !== undefined) throw new Error(problem);
  root = mkdtempSync(path.join(os.tmpdir(), 'toolpack-loopback-'));
});

afterAll(() => {
  if (root !== undefined) rmSync(root, { recursive: true, force: true });
});

/** The prowler tool's own code, run from this process: what it does to a server it reaches. */
async function runProwlerCode(port: number, tool: string): Promise<Attempt> {
  const module = (await import(pathToFileURL(prowlerModule).href)) as {
    callServedTool: { run(args: { port: number; tool: string }): Promise<Attempt> };
  };
  return module.callServedTool.run({ port, tool });
}

describe.skipIf(!linux || !sandbox.available)(
  'a pack granted network: any, and mcp serve --http on loopback [needs Linux and bubblewrap]',
  { timeout: 180_000 },
  () => {
    it('without a token, mcp serve --http refuses to start with a pack granted the network', async () => {
      const project = createProject('tokenless');
      await addProwler(project);
      const serve = await startHttpServe(project, project.env());
      try {
        expect(serve.port, serve.stderr()).toBeUndefined();
        expect(serve.code).toBe(2);
        expect(serve.stderr()).toContain('E_HTTP_TOKEN');
        expect(serve.stderr()).toContain('Pack prowler is granted the network');
        expect(serve.stderr()).toMatch(/hint: Set TOOLPACK_TOKEN/);
        expect(existsSync(project.marker)).toBe(false);
      } finally {
        await serve.stop();
      }
    });

    it('with TOOLPACK_TOKEN, a client with the token runs both tools, and the sandboxed pack gets 401 from loopback', async () => {
      const project = createProject('token');
      await addProwler(project);
      const serve = await startHttpServe(project, project.env({ TOOLPACK_TOKEN: TOKEN }));
      try {
        expect(serve.port, serve.stderr()).toBeDefined();
        const port = serve.port as number;
        const own = await callOverHttp(port, 'write_marker', {}, TOKEN);
        expect(own, serve.stderr()).toMatchObject({ status: 200, isError: false });
        expect(own.text).toContain('marker written');
        rmSync(project.marker);
        const noToken = await callOverHttp(port, 'write_marker', {});
        expect(noToken.status).toBe(401);
        const seen = await callOverHttp(
          port,
          'prowler_call_served_tool',
          { port, tool: 'write_marker' },
          TOKEN,
        );
        expect(seen, serve.stderr()).toMatchObject({ status: 200, isError: false });
        const attempt = JSON.parse(seen.text) as Attempt;
        expect(attempt).toMatchObject({ done: false, detail: 'initialize: HTTP 401' });
        expect(existsSync(project.marker)).toBe(false);
      } finally {
        await serve.stop();
      }
    });

    it('a tokenless server started before the pack was added never serves it; the pack’s code, run where it can reach that server, runs the project’s tool', async () => {
      const project = createProject('added-later');
      const serve = await startHttpServe(project, project.env());
      try {
        expect(serve.port, serve.stderr()).toBeDefined();
        const port = serve.port as number;
        // A running server's sources are fixed: the pack comes in only at the next start,
        // which refuses it (first case). A reload within a source is judged again (unit test).
        await addProwler(project);
        const withheld = await callOverHttp(port, 'prowler_call_served_tool', {
          port,
          tool: 'write_marker',
        });
        expect(withheld.isError).toBe(true);
        expect(withheld.text).toContain('prowler_call_served_tool');
        expect(existsSync(project.marker)).toBe(false);
        // What serving it tokenless would have opened: the pack's code reaches this server
        // on loopback and runs the project's own tool, unconfined.
        const attack = await runProwlerCode(port, 'write_marker');
        expect(attack.done, attack.detail).toBe(true);
        expect(existsSync(project.marker)).toBe(true);
      } finally {
        await serve.stop();
      }
    });
  },
);

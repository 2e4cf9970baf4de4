// `mcp serve --pack` end to end: the built CLI (bin/mcp.js and its dist; build @toolpack/packs
// and @toolpack/cli first) started in an empty folder, as an MCP client starts it from a
// server.json, spoken to over stdio and Streamable HTTP by a minimal JSON-RPC client here.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { once } from 'node:events';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startTestRegistry, type TestRegistry } from '@toolpack/packs/testing';
import { describePackTools } from '../pack/discover-pack-tools.ts';
import { mcpPackageBin } from '../../testing/run-mcp.ts';

const repo = path.resolve(import.meta.dirname, '..', '..', '..', '..', '..');
const officialPacks = path.join(repo, 'registry', 'packs');
const OFFICIAL = ['json', 'files', 'jira'].map((name) => path.join(officialPacks, name));

const made: string[] = [];
function tempDir(prefix: string): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), `toolpack-serve-pack-${prefix}-`));
  made.push(dir);
  return dir;
}

const started: ChildProcessWithoutNullStreams[] = [];
afterEach(() => {
  for (const child of started.splice(0))
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
});

let home: string;
let registry: TestRegistry;
beforeAll(async () => {
  home = tempDir('home');
  registry = await startTestRegistry({ packs: OFFICIAL, describeTools: describePackTools });
});
afterAll(async () => {
  await registry.close().catch(() => undefined);
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/**
 * A user's environment with every cache and home in temp folders, no registry or Jira
 * settings of the machine's, and without the source condition: the dists run, as installed.
 */
function env(cacheDir: string, extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const clean = { ...process.env };
  for (const name of Object.keys(clean))
    if (name.startsWith('JIRA_') || name.startsWith('TOOLPACK_')) delete clean[name];
  delete clean.NODE_OPTIONS;
  return {
    ...clean,
    HOME: home,
    XDG_CACHE_HOME: path.join(home, '.cache'),
    TOOLPACK_CACHE_DIR: cacheDir,
    NO_COLOR: '1',
    ...extra,
  };
}

function spawnMcp(args: string[], cwd: string, cacheDir: string, extra?: NodeJS.ProcessEnv) {
  const child = spawn(process.execPath, [mcpPackageBin, ...args], {
    cwd,
    env: env(cacheDir, extra),
  });
  started.push(child);
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  return { child, stderr: () => stderr };
}

interface JsonRpcAnswer {
  id?: number;
  result?: Record<string, unknown> & {
    tools?: { name: string }[];
    content?: { type: string; text: string }[];
    isError?: boolean;
  };
  error?: { message: string };
}

/** MCP over stdio: one JSON-RPC message a line each way. */
async function startStdio(
  args: string[],
  cwd: string,
  cacheDir: string,
  extra?: NodeJS.ProcessEnv,
) {
  const server = spawnMcp(['serve', ...args], cwd, cacheDir, extra);
  const waiting = new Map<number, (answer: JsonRpcAnswer) => void>();
  createInterface({ input: server.child.stdout }).on('line', (line) => {
    const answer = JSON.parse(line) as JsonRpcAnswer;
    if (answer.id !== undefined) waiting.get(answer.id)?.(answer);
  });
  let nextId = 1;
  const send = (message: object) => server.child.stdin.write(`${JSON.stringify(message)}\n`);
  const request = (method: string, params: object = {}) =>
    new Promise<JsonRpcAnswer>((resolve, reject) => {
      const id = nextId++;
      waiting.set(id, resolve);
      server.child.once('exit', () =>
        reject(new Error(`mcp serve exited before answering ${method}:\n${server.stderr()}`)),
      );
      send({ jsonrpc: '2.0', id, method, params });
    });
  const initialized = await request('initialize', {
    protocolVersion: '2025-06-18',
    capabilities: {},
    clientInfo: { name: 'serve-pack-e2e', version: '1.0.0' },
  });
  send({ jsonrpc: '2.0', method: 'notifications/initialized' });
  return {
    ...server,
    initialized,
    request,
    async stop(): Promise<number | null> {
      server.child.stdin.end();
      const [code] = (await once(server.child, 'exit')) as [number | null];
      return code;
    },
  };
}

/** MCP over Streamable HTTP: a session id from initialize, answers as JSON or one SSE event. */
async function startHttp(args: string[], cwd: string, cacheDir: string) {
  const server = spawnMcp(['serve', '--http', '127.0.0.1:0', ...args], cwd, cacheDir);
  const url = await new Promise<string>((resolve, reject) => {
    const look = () => {
      const found = /on (http:\/\/\S+\/mcp)/.exec(server.stderr())?.[1];
      if (found !== undefined) resolve(found);
    };
    server.child.stderr.on('data', look);
    server.child.once('exit', () => reject(new Error(`mcp serve exited:\n${server.stderr()}`)));
  });
  let session: string | undefined;
  let nextId = 1;
  const post = async (message: object): Promise<JsonRpcAnswer | undefined> => {
    const response = await fetch(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2025-06-18',
        ...(session === undefined ? {} : { 'mcp-session-id': session }),
      },
      body: JSON.stringify(message),
    });
    session ??= response.headers.get('mcp-session-id') ?? undefined;
    const text = await response.text();
    if (response.status === 202 || text === '') return undefined;
    const json = response.headers.get('content-type')?.includes('text/event-stream')
      ? (/^data: (.*)$/m.exec(text)?.[1] ?? '')
      : text;
    return JSON.parse(json) as JsonRpcAnswer;
  };
  const request = async (method: string, params: object = {}) =>
    (await post({ jsonrpc: '2.0', id: nextId++, method, params }))!;
  await request('initialize', {
    protocolVersion: '2025-06-18',
    capabilities: {},
    clientInfo: { name: 'serve-pack-e2e', version: '1.0.0' },
  });
  await post({ jsonrpc: '2.0', method: 'notifications/initialized' });
  return {
    ...server,
    request,
    async stop(): Promise<number | null> {
      server.child.kill('SIGTERM');
      const [code] = (await once(server.child, 'exit')) as [number | null];
      return code;
    },
  };
}

const toolNames = (answer: JsonRpcAnswer) => (answer.result?.tools ?? []).map((t) => t.name);
const formatCall = {
  name: 'json_format',
  arguments: { json: '{"b":1,"a":[1,2]}', indent: 0, sort_keys: true },
};

describe('mcp serve --pack', { timeout: 90_000 }, () => {
  it('serves one pack over stdio from an empty folder, writing only into the user cache', async () => {
    const folder = tempDir('empty');
    const cacheDir = tempDir('cache');
    const server = await startStdio(
      ['--pack', 'json@^1', '--registry', registry.url],
      folder,
      cacheDir,
    );
    expect(toolNames(await server.request('tools/list'))).toEqual([
      'find_tools',
      'describe_tool',
      'json_diff',
      'json_format',
      'json_query',
    ]);
    const call = await server.request('tools/call', formatCall);
    expect(call.result?.isError).not.toBe(true);
    expect(call.result?.structuredContent).toEqual({ json: '{"a":[1,2],"b":1}' });
    expect(await server.stop()).toBe(0);
    expect(server.stderr()).toContain(
      `serving json@1.1.1 (downloaded from ${registry.url}) as json_*; its tools may:\n` +
        'toolpack:   files: read its own folder; write nothing\n' +
        'toolpack:   network: none\n',
    );
    expect(server.stderr()).toContain('serving 5 tools from json@1.1.1 over stdio');
    expect(readdirSync(folder)).toEqual([]);
    expect(readdirSync(path.join(cacheDir, 'served', 'json'))).toEqual([
      expect.stringMatching(/^1\.1\.1-[0-9a-f]{16}$/),
    ]);
    expect(readdirSync(home).filter((name) => name !== '.cache')).toEqual([]);
  });

  it('serves over Streamable HTTP too, and the same pack with the registry stopped', async () => {
    const own = await startTestRegistry({
      packs: [path.join(officialPacks, 'json')],
      describeTools: describePackTools,
    });
    const folder = tempDir('http');
    const cacheDir = tempDir('cache');
    try {
      const http = await startHttp(['--pack', 'json@^1', '--registry', own.url], folder, cacheDir);
      expect(toolNames(await http.request('tools/list'))).toContain('json_format');
      const call = await http.request('tools/call', formatCall);
      expect(call.result?.structuredContent).toEqual({ json: '{"a":[1,2],"b":1}' });
      expect(await http.stop()).toBe(0);
    } finally {
      await own.close();
    }

    for (const spec of ['json@1.1.1', 'json@^1']) {
      const offline = await startStdio(['--pack', spec, '--registry', own.url], folder, cacheDir);
      const call = await offline.request('tools/call', formatCall);
      expect(call.result?.structuredContent, spec).toEqual({ json: '{"a":[1,2],"b":1}' });
      expect(await offline.stop()).toBe(0);
      expect(offline.stderr()).toMatch(
        /serving json@1\.1\.1 \(from the cache: Cannot reach the registry at http:\/\/127\.0\.0\.1:\d+: ECONNREFUSED, so newer versions and yanks are unknown\)/,
      );
    }
    const never = spawnMcp(['serve', '--pack', 'json@^2', '--registry', own.url], folder, cacheDir);
    const [code] = (await once(never.child, 'exit')) as [number | null];
    expect(code).toBe(1);
    expect(never.stderr()).toMatch(/no copy of json@\^2 from it is in the cache/);
    expect(readdirSync(folder)).toEqual([]);
  });

  it("gives a pack granted the project the working directory, and lists a pack's tools whose env is missing", async () => {
    const folder = tempDir('project');
    writeFileSync(path.join(folder, 'notes.txt'), 'hello from the project\n');
    const cacheDir = tempDir('cache');
    const server = await startStdio(
      ['--pack', 'files', '--pack', 'jira@1.1.1', '--registry', registry.url],
      folder,
      cacheDir,
    );
    const read = await server.request('tools/call', {
      name: 'files_read',
      arguments: { path: 'notes.txt' },
    });
    expect(JSON.stringify(read.result)).toContain('hello from the project');
    expect(toolNames(await server.request('tools/list'))).toContain('jira_get_issue');
    const jira = await server.request('tools/call', {
      name: 'jira_get_issue',
      arguments: { key: 'ABC-1' },
    });
    expect(jira.result?.isError).toBe(true);
    expect(jira.result?.content?.[0]?.text).toMatch(
      /^JIRA_BASE_URL, JIRA_EMAIL, JIRA_API_TOKEN are not set/,
    );
    expect(await server.stop()).toBe(0);
    expect(server.stderr()).toContain(`(the project is ${folder})`);
    expect(server.stderr()).toMatch(/the pack jira \(jira\) requires JIRA_BASE_URL, JIRA_EMAIL/);
    expect(server.stderr()).toMatch(/cannot run on this machine \(the packs are fine;/);
    expect(server.stderr()).not.toContain('the project is fine');
    expect(readdirSync(folder)).toEqual(['notes.txt']);
  });

  it('refuses to run the tools unconfined under --require-sandbox, which they otherwise would', async () => {
    const folder = tempDir('nosandbox');
    const cacheDir = tempDir('cache');
    const noSandbox = { TOOLPACK_SANDBOX: 'off' };
    const args = ['--pack', 'json@1.1.1', '--registry', registry.url];
    const loose = await startStdio(args, folder, cacheDir, noSandbox);
    const ran = await loose.request('tools/call', formatCall);
    expect(ran.result?.structuredContent).toEqual({ json: '{"a":[1,2],"b":1}' });
    expect(await loose.stop()).toBe(0);

    const strict = await startStdio([...args, '--require-sandbox'], folder, cacheDir, noSandbox);
    const refused = await strict.request('tools/call', formatCall);
    expect(refused.result?.isError).toBe(true);
    expect(JSON.stringify(refused.result)).toContain('E_SANDBOX_REQUIRED');
    expect(await strict.stop()).toBe(0);
  });

  it('lets two clients start the same pack at once on an empty cache', async () => {
    const cacheDir = tempDir('cache');
    const servers = await Promise.all(
      ['a', 'b'].map((name) =>
        startStdio(['--pack', 'json@^1', '--registry', registry.url], tempDir(name), cacheDir),
      ),
    );
    for (const server of servers) {
      const call = await server.request('tools/call', formatCall);
      expect(call.result?.structuredContent).toEqual({ json: '{"a":[1,2],"b":1}' });
      expect(await server.stop()).toBe(0);
    }
    const versions = readdirSync(path.join(cacheDir, 'served', 'json'));
    expect(versions).toEqual([expect.stringMatching(/^1\.1\.1-[0-9a-f]{16}$/)]);
    expect(readdirSync(path.join(cacheDir, 'served', 'json', versions[0]!)).sort()).toEqual([
      'pack',
      'served.json',
    ]);
  });

  it("ignores the project it starts in: only the named packs are served, and the project's files stay as they were", async () => {
    const project = tempDir('a-project');
    mkdirSync(path.join(project, 'scripts'));
    writeFileSync(path.join(project, 'toolpack.yaml'), 'sources:\n  - scripts: scripts\n');
    writeFileSync(
      path.join(project, 'scripts', 'hello.mjs'),
      '// DESCRIPTION "Says hi."\nprocess.stdout.write("hi");\n',
    );
    // Without --pack, the project's own tool is what would be served.
    const cacheDir = tempDir('cache');
    const listed = spawnMcp(['list', '--no-cache'], project, cacheDir);
    let listedOut = '';
    listed.child.stdout.setEncoding('utf8').on('data', (chunk: string) => (listedOut += chunk));
    const [listCode] = (await once(listed.child, 'close')) as [number | null];
    expect(listCode, listed.stderr()).toBe(0);
    expect(listedOut).toMatch(/^hello\b/m);
    const server = await startStdio(
      ['--pack', 'json@1.1.1', '--registry', registry.url],
      project,
      cacheDir,
    );
    expect(toolNames(await server.request('tools/list'))).toEqual([
      'find_tools',
      'describe_tool',
      'json_diff',
      'json_format',
      'json_query',
    ]);
    expect(await server.stop()).toBe(0);
    expect(server.stderr()).toContain(
      '--pack serves only the named packs: the toolpack.yaml here is not read.',
    );
    expect(readdirSync(project).sort()).toEqual(['scripts', 'toolpack.yaml']);
  });
});

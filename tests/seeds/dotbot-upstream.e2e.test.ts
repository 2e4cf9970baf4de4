// dotbot's real MCP tools, as its public repository ships them (fixtures/dotbot-upstream, a
// trimmed copy: see its README), served by `mcp serve` and by dotbot's own server side by
// side. Both run on their own copy of the same project and talk to one stand-in for dotbot's
// runtime (the HTTP service `dotbot serve` runs, which the task and workflow tools wrap):
// their tools/list must agree, and every call must give the same result, the same error and
// the same runtime request.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import path from 'node:path';
import { PWSH_TEST_TAG, pwshEngine } from '@toolpack/pwsh-probe';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  copySeedFixture,
  readText,
  runMcp,
  startSeedServer,
  type StdioSession,
} from './seed-helpers.ts';

// dotbot's code uses the built-in modules (Join-Path, ConvertTo-Json, Invoke-WebRequest):
// the bare engine of tools/pwsh-engine cannot run it.
const skipReason =
  pwshEngine === undefined
    ? 'no pwsh 7.2+ on PATH'
    : pwshEngine.kind === 'engine'
      ? `${pwshEngine.description} lacks the built-in modules dotbot's code calls`
      : undefined;
const runs = skipReason === undefined;
const title = (text: string) =>
  runs ? `${PWSH_TEST_TAG} ${text}` : `${PWSH_TEST_TAG} ${text} [skipped: ${skipReason}]`;

const SERVER = '.bot/runtime/src/mcp/dotbot-mcp.ps1';
const TASK = {
  id: 't_Ab12Cd34',
  name: 'Write the README',
  status: 'todo',
  priority: 20,
  created_at: '2026-03-01T10:00:00Z',
  dependencies: [],
  acceptance_criteria: ['Explains the install', 'Shows one example'],
};

interface RuntimeRequest {
  who: string;
  method: string;
  url: string;
  body: unknown;
}

/** The part of dotbot's runtime the tools call, answering the same to both servers. */
function startRuntime(requests: RuntimeRequest[]): Promise<Server> {
  const server = createServer((request, response) => {
    void readBody(request).then((text) => {
      const who = (request.headers.authorization ?? '').replace(/^Bearer /, '');
      const url = request.url ?? '/';
      requests.push({
        who,
        method: request.method ?? '',
        url,
        body: text === '' ? null : JSON.parse(text),
      });
      const answer = (status: number, body: unknown) => {
        response.writeHead(status, { 'content-type': 'application/json' });
        response.end(JSON.stringify(body));
      };
      if (request.method === 'GET' && url === `/tasks/${TASK.id}`) return answer(200, TASK);
      if (request.method === 'GET' && url.startsWith('/tasks/'))
        return answer(404, { error: 'not_found', message: `No task ${url.slice(7)}` });
      if (request.method === 'GET' && url.startsWith('/tasks?'))
        return answer(200, { tasks: [TASK], count: 1 });
      if (request.method === 'POST' && url === '/tasks')
        return answer(201, { ...(JSON.parse(text) as object), id: 't_Nw000001', status: 'todo' });
      if (request.method === 'GET' && url === '/workflows/runs') return answer(200, { runs: [] });
      return answer(404, { error: 'not_found', message: `No route ${url}` });
    });
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

function readBody(request: IncomingMessage): Promise<string> {
  return new Promise((resolve) => {
    let text = '';
    request.setEncoding('utf8');
    request.on('data', (chunk: string) => (text += chunk));
    request.on('end', () => resolve(text));
  });
}

/** dotbot's own server over stdio: one JSON-RPC message per line, as it speaks. */
class DotbotPeer {
  private next = 1;
  private buffer = '';
  private readonly waiting = new Map<number, (message: Record<string, unknown>) => void>();
  stderr = '';
  private readonly child: ChildProcessWithoutNullStreams;
  constructor(child: ChildProcessWithoutNullStreams) {
    this.child = child;
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => {
      this.buffer += chunk;
      let end: number;
      while ((end = this.buffer.indexOf('\n')) >= 0) {
        const line = this.buffer.slice(0, end).trim();
        this.buffer = this.buffer.slice(end + 1);
        if (line === '') continue;
        const message = JSON.parse(line) as Record<string, unknown>;
        this.waiting.get(message.id as number)?.(message);
      }
    });
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (chunk: string) => (this.stderr += chunk));
    child.on('exit', () => {
      for (const [id, answer] of this.waiting)
        answer({ id, error: { message: `dotbot's server exited: ${this.stderr}` } });
      this.waiting.clear();
    });
  }
  request(method: string, params: unknown = {}): Promise<Record<string, unknown>> {
    const id = this.next++;
    return new Promise((resolve) => {
      this.waiting.set(id, (message) => {
        this.waiting.delete(id);
        resolve(message);
      });
      this.child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, params })}\n`);
    });
  }
  close(): Promise<void> {
    return new Promise((resolve) => {
      this.child.once('exit', () => resolve());
      this.child.stdin.end();
    });
  }
}

/** One call's outcome, in terms both servers can be compared in. */
type Outcome = { result: unknown } | { error: string };

let runtime: Server;
const requests: RuntimeRequest[] = [];
let dotbotProject: ReturnType<typeof copySeedFixture>;
let toolpackProject: ReturnType<typeof copySeedFixture>;
let dotbot: DotbotPeer;
let toolpack: StdioSession;

/** The same text whichever copy of the project, session or day produced it. */
function normalise(value: unknown): unknown {
  const text = JSON.stringify(value)
    .replaceAll(dotbotProject.dir, '<project>')
    .replaceAll(toolpackProject.dir, '<project>')
    .replace(/mcp:\d{14}-[0-9a-f]{8}/g, 'mcp:<session>');
  return JSON.parse(text);
}

async function callDotbot(name: string, args: Record<string, unknown>): Promise<Outcome> {
  const answer = await dotbot.request('tools/call', { name, arguments: args });
  if (answer.error !== undefined) {
    // dotbot answers a throwing tool with a JSON-RPC error: "Tool execution failed: <message>".
    const message = String((answer.error as { message: string }).message);
    return { error: message.replace(/^Tool execution failed: /, '') };
  }
  const content = (answer.result as { content: { text: string }[] }).content;
  return { result: normalise(JSON.parse(content[0]?.text ?? 'null')) };
}

async function callToolpack(name: string, args: Record<string, unknown>): Promise<Outcome> {
  const result = await toolpack.client.callTool({ name, arguments: args });
  const text = readText(result);
  if (result.isError === true) {
    // Toolpack answers with an isError result: `PowerShell tool "<name>" failed: <message> (at file:line)`.
    return {
      error: text.replace(/^PowerShell tool "[^"]+" failed: /, '').replace(/ \(at [^)]*\)$/, ''),
    };
  }
  return { result: normalise(JSON.parse(text)) };
}

beforeAll(async () => {
  if (!runs) return;
  runtime = await startRuntime(requests);
  const address = runtime.address() as { port: number };
  const connect = (dir: string, token: string) =>
    // dotbot's runtime writes this file when it starts; both servers' tools find it there.
    writeFileSync(
      path.join(dir, '.bot', '.control', 'runtime.json'),
      JSON.stringify({
        schema_version: 1,
        url: `http://127.0.0.1:${address.port}`,
        token,
        pid: process.pid,
        started_at: '2026-03-01T09:00:00Z',
      }),
    );
  dotbotProject = copySeedFixture('dotbot-upstream');
  toolpackProject = copySeedFixture('dotbot-upstream');
  for (const [project, token] of [
    [dotbotProject, 'dotbot'],
    [toolpackProject, 'toolpack'],
  ] as const) {
    const control = path.join(project.dir, '.bot', '.control');
    mkdirSync(control, { recursive: true });
    connect(project.dir, token);
  }
  dotbot = new DotbotPeer(
    spawn('pwsh', ['-NoLogo', '-NoProfile', '-NonInteractive', '-File', SERVER], {
      cwd: dotbotProject.dir,
      // The copy is not a git checkout, so dotbot is told its project root as its docs say.
      env: { ...process.env, DOTBOT_PROJECT_ROOT: dotbotProject.dir },
    }),
  );
  await dotbot.request('initialize', {
    protocolVersion: '2024-11-05',
    capabilities: {},
    clientInfo: { name: 'toolpack-test', version: '1' },
  });
  toolpack = await startSeedServer([], { cwd: toolpackProject.dir });
}, 120_000);

afterAll(async () => {
  await toolpack?.close();
  await dotbot?.close();
  await new Promise((resolve) => runtime?.close(resolve));
  dotbotProject?.remove();
  toolpackProject?.remove();
});

describe("dotbot's own tools, unchanged: mcp serve beside dotbot-mcp.ps1", () => {
  it.skipIf(!runs)(
    title('lists every tool exactly as dotbot lists it: name, description, input schema'),
    async () => {
      const theirs = (await dotbot.request('tools/list')).result as {
        tools: Record<string, unknown>[];
      };
      const ours = await toolpack.client.listTools();
      const pick = (tool: Record<string, unknown>) => ({
        name: tool.name,
        description: tool.description,
        inputSchema: tool.inputSchema,
      });
      const byName = (a: { name: unknown }, b: { name: unknown }) =>
        String(a.name).localeCompare(String(b.name));
      const served = ours.tools.filter(
        (tool) => !['find_tools', 'describe_tool'].includes(tool.name),
      );
      expect(served.map((tool) => pick(tool as Record<string, unknown>)).sort(byName)).toEqual(
        theirs.tools.map(pick).sort(byName),
      );
      // src/mcp/tools and two workflows' systems/mcp/tools.
      expect(served).toHaveLength(36);
    },
  );

  it.skipIf(!runs)(title('says in mcp list that it recognised the dotbot project'), async () => {
    const listed = await runMcp(['list', '--no-cache'], { cwd: toolpackProject.dir });
    expect(listed.code).toBe(0);
    expect(listed.stdout).toMatch(/I_DOTBOT_SESSION[^\n]*dotbot's session/);
  });

  const calls: [string, Record<string, unknown>][] = [
    // Files under .bot/workspace, through Get-DotbotProjectBotPath (Dotbot.Core).
    ['decision_list', {}],
    ['decision_list', { status: 'accepted' }],
    ['decision_get', { decision_id: 'dec-1a2b3c4d' }],
    ['decision_get', { decision_id: 'dec-00000000' }],
    ['decision_mark_accepted', { decision_id: 'dec-1a2b3c4d' }],
    // It imports Dotbot.Core again itself; the next call still finds the session's commands.
    ['steering_heartbeat', { session_id: 's_1', process_id: 'p_1', status: 'working' }],
    ['decision_list', {}],
    ['session_get_state', {}],
    // Workflow tools, from .bot/content/workflows/*/systems/mcp/tools.
    ['repo_list', {}],
    ['research_status', {}],
    // The runtime, through Invoke-McpRuntimeRequest and Get-McpActor (Dotbot.Runtime).
    ['task_get', { task_id: TASK.id }],
    ['task_get', { task_id: 't_Zz99Zz99' }],
    ['task_list', { status: 'todo' }],
    [
      'task_create',
      { name: 'Write the docs', priority: 30, acceptance_criteria: ['Covers dotbot'] },
    ],
    ['workflow_list', {}],
  ];

  it.skipIf(!runs)(
    title('gives the same result, or the same error, for each of 15 calls, in order'),
    async () => {
      for (const [name, args] of calls) {
        const theirs = await callDotbot(name, args);
        const ours = await callToolpack(name, args);
        expect({ name, args, outcome: ours }).toEqual({ name, args, outcome: theirs });
      }
      // Every tool above ran: the errors are the tools' own, not a missing command.
      expect(JSON.stringify(requests)).not.toMatch(/is not recognized/);
    },
    120_000,
  );

  it.skipIf(!runs)(
    title("sends dotbot's runtime the same requests, attributed to an mcp:<session> actor"),
    () => {
      const sent = (who: string) =>
        requests
          .filter((r) => r.who === who)
          .map(({ method, url, body }) => normalise({ method, url, body }));
      expect(sent('toolpack')).toEqual(sent('dotbot'));
      expect(sent('toolpack')).toContainEqual({
        method: 'POST',
        url: '/tasks',
        body: expect.objectContaining({ actor: 'mcp:<session>', name: 'Write the docs' }),
      });
      expect(sent('toolpack').length).toBeGreaterThan(4);
    },
  );
});

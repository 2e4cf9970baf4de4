import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client, ProtocolError, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import {
  createTaskSessionFromClient,
  resultFromTaskOutcome,
} from '@modelcontextprotocol/ext-tasks/client';
import { z } from 'zod';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  hasInspector,
  isAlive,
  listDescendants,
  runInspectorCli,
  type SpawnedServer,
  startHttpServe,
  startStdioSession,
  waitFor,
} from '../testing/index.ts';

const project = path.join(import.meta.dirname, 'fixtures', 'tasks-project');

const TaskSchema = z.looseObject({
  taskId: z.string(),
  status: z.enum(['working', 'input_required', 'completed', 'failed', 'cancelled']),
  ttl: z.number().nullable(),
  createdAt: z.string(),
  lastUpdatedAt: z.string(),
  pollInterval: z.number().optional(),
  statusMessage: z.string().optional(),
});
const CreateTaskSchema = z.looseObject({ task: TaskSchema });
const ListSchema = z.looseObject({ tasks: z.array(TaskSchema), nextCursor: z.string().optional() });
const ToolResultSchema = z.looseObject({
  content: z.array(z.looseObject({ type: z.string(), text: z.string().optional() })),
  isError: z.boolean().optional(),
  _meta: z.record(z.string(), z.unknown()).optional(),
});

function textOf(result: { content: { type: string; text?: string }[] }): string {
  return result.content.map((block) => block.text ?? '').join('\n');
}

/** The tool's processes once it has written its pid file: alive, and found below the server. */
async function toolProcesses(pidFile: string, serverPid: number): Promise<number[]> {
  let pids = await waitFor(() => {
    try {
      const found = readFileSync(pidFile, 'utf8').trim().split(/\s+/).map(Number);
      return found.length === 2 && found.every((n) => n > 0) ? found : undefined;
    } catch {
      return undefined;
    }
  }, 'the tool to start');
  if (existsSync('/proc/self/stat')) pids = listDescendants(serverPid);
  return pids;
}

/** What these tests ask of a client: the 2025-11-25 task methods, sent as plain requests. */
function taskRequests(client: Client) {
  return {
    start: (name: string, args: Record<string, unknown>, ttl?: number) =>
      client.request(
        {
          method: 'tools/call',
          params: { name, arguments: args, task: ttl === undefined ? {} : { ttl } },
        },
        CreateTaskSchema,
      ),
    get: (taskId: string) =>
      client.request({ method: 'tasks/get', params: { taskId } }, TaskSchema),
    result: (taskId: string) =>
      client.request({ method: 'tasks/result', params: { taskId } }, ToolResultSchema),
    cancel: (taskId: string) =>
      client.request({ method: 'tasks/cancel', params: { taskId } }, TaskSchema),
    list: () => client.request({ method: 'tasks/list', params: {} }, ListSchema),
  };
}

/** Starts a long task, polls it to its end, and reads its result. */
async function runToCompletion(client: Client, temp: string) {
  const tasks = taskRequests(client);
  const { task } = await tasks.start(
    'slow_report',
    { seconds: 1, pid_file: path.join(temp, `done-${Date.now()}`) },
    30_000,
  );
  expect(task).toMatchObject({ status: 'working', ttl: 30_000, pollInterval: 1_000 });
  const polled = await waitFor(
    async () => {
      const current = await tasks.get(task.taskId);
      return current.status === 'working' ? undefined : current;
    },
    'the task to finish',
    20_000,
  );
  expect(polled.status).toBe('completed');
  const result = await tasks.result(task.taskId);
  expect(textOf(result)).toContain('report ready after 1 s');
  expect(result._meta).toMatchObject({
    'io.modelcontextprotocol/related-task': { taskId: task.taskId },
  });
  const listed = await tasks.list();
  expect(listed.tasks.map((t) => t.taskId)).toContain(task.taskId);
  return task.taskId;
}

/** Starts a long task, cancels it, and proves the tool's processes are gone. */
async function cancelAndCheckProcesses(client: Client, temp: string, serverPid: number) {
  const tasks = taskRequests(client);
  const pidFile = path.join(temp, `cancel-${Date.now()}`);
  const { task } = await tasks.start('slow_report', { seconds: 60, pid_file: pidFile });
  const pids = await toolProcesses(pidFile, serverPid);
  expect(pids.length).toBeGreaterThanOrEqual(2);
  expect(pids.every(isAlive)).toBe(true);
  await cancelAndCheckProcessesOf(client, task.taskId, pids);
  expect((await tasks.get(task.taskId)).status).toBe('cancelled');
  // A second cancel is refused: the task is terminal (-32602).
  await expect(tasks.cancel(task.taskId)).rejects.toMatchObject({ code: -32602 });
}

describe('long calls as MCP tasks over stdio (SDK client, 2025-11-25 tasks)', () => {
  let temp: string;
  let session: Awaited<ReturnType<typeof startStdioSession>>;

  beforeAll(async () => {
    temp = mkdtempSync(path.join(os.tmpdir(), 'toolpack-tasks-'));
    session = await startStdioSession(['--no-cache', '--no-watch'], { cwd: project });
  });
  afterAll(async () => {
    await session?.close();
    rmSync(temp, { recursive: true, force: true });
  });

  it('lists the long-running tool with taskSupport optional and advertises tasks', async () => {
    expect(session.client.getServerCapabilities()?.tasks).toEqual({
      list: {},
      cancel: {},
      requests: { tools: { call: {} } },
    });
    const { tools } = await session.client.listTools();
    const byName = new Map(tools.map((tool) => [tool.name, tool]));
    expect(byName.get('slow_report')?.execution).toEqual({ taskSupport: 'optional' });
    expect(byName.get('quick_echo')?.execution).toBeUndefined();
  });

  it('runs a long tool as a task: poll, result, list', async () => {
    await runToCompletion(session.client, temp);
  });

  it('cancels a task: the tool process is gone', async () => {
    await cancelAndCheckProcesses(session.client, temp, session.pid);
  });

  it('answers a plain call of the long tool synchronously, as before', async () => {
    const result = await session.client.callTool({
      name: 'slow_report',
      arguments: { seconds: 0, pid_file: path.join(temp, 'plain') },
    });
    expect(textOf(result as { content: { type: string; text?: string }[] })).toContain(
      'report ready after 0 s',
    );
  });

  it('refuses task augmentation for a tool that does not declare it (-32601), and unknown tasks or a bad ttl (-32602)', async () => {
    const tasks = taskRequests(session.client);
    const refused = await tasks
      .start('quick_echo', { text: 'hi' })
      .catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(ProtocolError);
    expect(refused).toMatchObject({ code: -32601 });
    // The same tool answers a plain call.
    const plain = await session.client.callTool({ name: 'quick_echo', arguments: { text: 'hi' } });
    expect(textOf(plain as { content: { type: string; text?: string }[] })).toBe('echo: hi');
    await expect(tasks.get('no-such-task')).rejects.toMatchObject({ code: -32602 });
    const badTtl = session.client.request(
      {
        method: 'tools/call',
        params: { name: 'slow_report', arguments: {}, task: { ttl: 'soon' } },
      } as never,
      CreateTaskSchema,
    );
    await expect(badTtl).rejects.toMatchObject({ code: -32602, message: /task\.ttl/ });
  });

  it('runs a long tool through the ext-tasks requester (createTaskSessionFromClient)', async () => {
    const { tasks: before } = await taskRequests(session.client).list();
    const tasks = createTaskSessionFromClient(session.client, { endpointId: 'toolpack-e2e' });
    try {
      // For taskSupport optional the requester calls plainly unless told to use a task.
      const execution = await tasks.callTool(
        'slow_report',
        { seconds: 1, pid_file: path.join(temp, 'ext') },
        { task: { preference: 'prefer' } },
      );
      const { outcome } = await execution.settle();
      expect(textOf(resultFromTaskOutcome(outcome) as Parameters<typeof textOf>[0])).toContain(
        'report ready after 1 s',
      );
    } finally {
      await tasks.close();
    }
    // It ran as a task: the session now lists one more.
    const { tasks: listed } = await taskRequests(session.client).list();
    expect(listed.length).toBe(before.length + 1);
  });

  it("sends a task's progress to the session with the call's token, tied to the task", async () => {
    const seen: { progressToken?: unknown; progress?: number; _meta?: Record<string, unknown> }[] =
      [];
    // The SDK client forgets a request's progress handler once it is answered, and the task
    // answers at once: listen to every progress notification instead.
    session.client.setNotificationHandler('notifications/progress', (notification) => {
      seen.push(notification.params as (typeof seen)[number]);
    });
    const { task } = await session.client.request(
      {
        method: 'tools/call',
        params: {
          name: 'slow_report',
          arguments: { seconds: 1, pid_file: path.join(temp, 'progress') },
          task: {},
          _meta: { progressToken: 'task-progress-1' },
        },
      },
      CreateTaskSchema,
    );
    await taskRequests(session.client).result(task.taskId);
    const last = await waitFor(
      () => seen.find((params) => params.progress === 2),
      'the last progress notification',
    );
    expect(last).toMatchObject({
      progressToken: 'task-progress-1',
      _meta: { 'io.modelcontextprotocol/related-task': { taskId: task.taskId } },
    });
    expect(seen.map((params) => params.progress)).toEqual([1, 2]);
  });
});

describe('long calls as MCP tasks over Streamable HTTP (tasks belong to the session)', () => {
  let temp: string;
  let server: SpawnedServer & { url: URL };
  const clients: Client[] = [];

  const connect = async () => {
    const client = new Client({ name: 'toolpack-tasks-e2e', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(server.url));
    clients.push(client);
    return client;
  };

  beforeAll(async () => {
    temp = mkdtempSync(path.join(os.tmpdir(), 'toolpack-tasks-http-'));
    server = await startHttpServe(['--no-cache', '--no-watch'], { cwd: project });
  });
  afterAll(async () => {
    await Promise.allSettled(clients.map((client) => client.close()));
    server?.kill();
    rmSync(temp, { recursive: true, force: true });
  });

  it('runs, polls and cancels a task in its own session; another session cannot see it', async () => {
    const owner = await connect();
    const other = await connect();
    const taskId = await runToCompletion(owner, temp);
    // Reachable from the owning session (runToCompletion read it), not from another one.
    const stranger = taskRequests(other);
    await expect(stranger.get(taskId)).rejects.toMatchObject({ code: -32602 });
    await expect(stranger.result(taskId)).rejects.toMatchObject({ code: -32602 });
    expect((await stranger.list()).tasks).toEqual([]);

    const pidFile = path.join(temp, 'http-cancel');
    const { task } = await taskRequests(owner).start('slow_report', {
      seconds: 60,
      pid_file: pidFile,
    });
    const pids = await toolProcesses(pidFile, server.child.pid ?? -1);
    // Another session cannot cancel it: it is still working afterwards.
    await expect(stranger.cancel(task.taskId)).rejects.toMatchObject({ code: -32602 });
    expect((await taskRequests(owner).get(task.taskId)).status).toBe('working');
    expect(pids.every(isAlive)).toBe(true);
    await cancelAndCheckProcessesOf(owner, task.taskId, pids);
  });

  it('stops the running tasks of a session that ends (DELETE), while the server serves on', async () => {
    const transport = new StreamableHTTPClientTransport(server.url);
    const client = new Client({ name: 'toolpack-tasks-e2e', version: '1.0.0' });
    await client.connect(transport);
    clients.push(client);
    const pidFile = path.join(temp, 'http-delete');
    await taskRequests(client).start('slow_report', { seconds: 60, pid_file: pidFile });
    const pids = await toolProcesses(pidFile, server.child.pid ?? -1);
    expect(pids.every(isAlive)).toBe(true);
    await transport.terminateSession();
    await waitFor(
      () => pids.every((pid) => !isAlive(pid)),
      'the tool processes to be gone',
      10_000,
    );
    expect(isAlive(server.child.pid ?? -1)).toBe(true);
    expect((await (await connect()).listTools()).tools.length).toBeGreaterThan(0);
  });
});

/** Cancels a task and waits for the tool's processes to be gone. */
async function cancelAndCheckProcessesOf(client: Client, taskId: string, pids: number[]) {
  const cancelled = await taskRequests(client).cancel(taskId);
  expect(cancelled.status).toBe('cancelled');
  await waitFor(() => pids.every((pid) => !isAlive(pid)), 'the tool processes to be gone', 10_000);
}

// The official Inspector's CLI mode: it has no task flags, so it shows what a client that
// does not use tasks sees.
describe.skipIf(!hasInspector)('long-running tools in the Inspector CLI [needs Inspector]', () => {
  let home: string;
  beforeAll(() => {
    home = mkdtempSync(path.join(os.tmpdir(), 'toolpack-tasks-inspector-'));
  });
  afterAll(() => rmSync(home, { recursive: true, force: true }));

  const run = (method: string[], era: 'legacy' | 'modern' = 'legacy'): Record<string, unknown> => {
    const result = runInspectorCli({ cwd: project, method, protocolEra: era });
    expect(result.code, result.stderr).toBe(0);
    return result.json;
  };
  const executionOf = (listed: Record<string, unknown>, name: string) =>
    (listed.tools as { name: string; execution?: unknown }[]).find((tool) => tool.name === name)
      ?.execution;

  it('shows taskSupport in tools/list (2025-11-25), not to a 2026-07-28 client, and calls the tool plainly', () => {
    expect(executionOf(run(['--method', 'tools/list']), 'slow_report')).toEqual({
      taskSupport: 'optional',
    });
    // 2026-07-28 removed execution.taskSupport (tasks became an extension): the SDK leaves it out.
    expect(executionOf(run(['--method', 'tools/list'], 'modern'), 'slow_report')).toBeUndefined();
    const called = run([
      '--method',
      'tools/call',
      '--tool-name',
      'slow_report',
      '--tool-arg',
      'seconds=0',
      `pid_file=${path.join(home, 'pid')}`,
    ]);
    expect(JSON.stringify(called)).toContain('report ready after 0 s');
  });
});

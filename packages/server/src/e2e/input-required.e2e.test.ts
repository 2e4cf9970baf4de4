// Tools that ask their user, served to 2026-07-28 clients, which get no server-to-client
// requests: the call is answered with an input_required result and a requestState, the tool's
// process stays suspended where it asked, and the client's retry with the answer runs it on.
// Driven by the SDK v2 client pinned to 2026-07-28 (it answers input_required through its
// elicitation handler and retries by itself) over stdio and HTTP, and by raw JSON-RPC for the
// states a client must not be able to use: changed, replayed, for other arguments, expired.
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { PWSH_TEST_TAG, hasPwsh } from '@toolpack/pwsh-probe';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  childEnv,
  cliBin,
  listDescendants,
  spawnServe,
  startHttpServe,
  waitFor,
  type SpawnedServer,
} from '../testing/index.ts';

const project = path.join(import.meta.dirname, 'fixtures', 'elicitation-project');
const MODERN = '2026-07-28';

interface Asked {
  message: string;
  requestedSchema: { properties: Record<string, unknown> };
}
type Reply = { action: 'accept'; content?: Record<string, string> } | { action: 'decline' };

function textOf(result: { content?: unknown }): string {
  return ((result.content ?? []) as { text?: string }[])
    .map((block) => block.text ?? '')
    .join('\n');
}

/** An SDK v2 client pinned to 2026-07-28 that answers questions from a queue the test fills. */
async function connectModern(transport: StdioClientTransport | StreamableHTTPClientTransport) {
  const client = new Client(
    { name: 'toolpack-input-required-e2e', version: '1.0.0' },
    {
      capabilities: { elicitation: { form: {} } },
      versionNegotiation: { mode: { pin: MODERN } },
    },
  );
  const asked: Asked[] = [];
  const replies: Reply[] = [];
  client.setRequestHandler('elicitation/create', async (request) => {
    asked.push(request.params as unknown as Asked);
    return replies.shift() ?? { action: 'decline' };
  });
  await client.connect(transport);
  return {
    client,
    asked,
    reply(...next: Reply[]) {
      asked.length = 0;
      replies.push(...next);
    },
  };
}

describe.each([
  [
    'stdio',
    async () => ({
      transport: new StdioClientTransport({
        command: process.execPath,
        args: [cliBin, 'serve', '--no-cache', '--no-watch'],
        cwd: project,
        env: childEnv(),
        stderr: 'ignore',
      }),
      stop: (): void => undefined,
    }),
  ],
  [
    'HTTP',
    async () => {
      const server = await startHttpServe(['--no-cache', '--no-watch'], { cwd: project });
      const stop = (): void => server.kill();
      return { transport: new StreamableHTTPClientTransport(server.url), stop };
    },
  ],
] as const)('input_required for 2026-07-28 clients over %s (SDK v2 client)', (_name, open) => {
  let session: Awaited<ReturnType<typeof connectModern>>;
  let stop: () => void;
  let temp: string;

  beforeAll(async () => {
    temp = mkdtempSync(path.join(os.tmpdir(), 'toolpack-input-required-'));
    const opened = await open();
    stop = opened.stop;
    session = await connectModern(opened.transport);
  }, 60_000);

  afterAll(async () => {
    await session?.client.close().catch(() => undefined);
    stop?.();
    rmSync(temp, { recursive: true, force: true });
  });

  it('asks through a bash ::ask line; declined, nothing happened; accepted, written', async () => {
    const declined = path.join(temp, 'bash-declined.txt');
    session.reply({ action: 'decline' });
    const no = await session.client.callTool({
      name: 'confirm_write',
      arguments: { marker: declined },
    });
    expect(textOf(no)).toBe('skipped (decline)');
    expect(session.asked.map((asked) => asked.message)).toEqual([
      `confirm_write asks: Write ${declined}?`,
    ]);
    expect(existsSync(declined)).toBe(false);

    const accepted = path.join(temp, 'bash-accepted.txt');
    session.reply({ action: 'accept', content: {} });
    const yes = await session.client.callTool({
      name: 'confirm_write',
      arguments: { marker: accepted },
    });
    expect(textOf(yes)).toBe('written');
    expect(readFileSync(accepted, 'utf8')).toBe('written\n');
  }, 60_000);

  it.skipIf(!hasPwsh)(
    `${PWSH_TEST_TAG} asks before a High-impact ShouldProcess; declined, nothing happened`,
    async () => {
      const declined = path.join(temp, 'pwsh-declined.txt');
      session.reply({ action: 'decline' });
      const no = await session.client.callTool({
        name: 'Remove_Marker',
        arguments: { Path: declined },
      });
      expect(textOf(no)).toBe('skipped');
      expect(session.asked).toHaveLength(1);
      expect(session.asked[0]?.message).toContain(
        `Performing the operation "Write the marker" on target "${declined}"`,
      );
      expect(existsSync(declined)).toBe(false);

      const accepted = path.join(temp, 'pwsh-accepted.txt');
      session.reply({ action: 'accept', content: {} });
      const yes = await session.client.callTool({
        name: 'Remove_Marker',
        arguments: { Path: accepted },
      });
      expect(textOf(yes)).toBe('written');
      expect(existsSync(accepted)).toBe(true);
    },
    90_000,
  );
});

interface Answer {
  result?: {
    resultType?: string;
    requestState?: string;
    inputRequests?: Record<string, { method: string; params: { message: string } }>;
    content?: { text?: string }[];
    isError?: boolean;
  };
  error?: { code: number; message: string };
}

/** Raw 2026-07-28 requests over one stdio connection, answered by id. */
function driveStdio(server: SpawnedServer) {
  let nextId = 1;
  return async (
    params: Record<string, unknown>,
    capabilities: Record<string, unknown> = { elicitation: { form: {} } },
  ): Promise<Answer> => {
    const id = nextId++;
    const request = {
      jsonrpc: '2.0',
      id,
      method: 'tools/call',
      params: {
        ...params,
        _meta: {
          'io.modelcontextprotocol/protocolVersion': MODERN,
          'io.modelcontextprotocol/clientInfo': { name: 'input-required-e2e', version: '1' },
          'io.modelcontextprotocol/clientCapabilities': capabilities,
        },
      },
    };
    server.child.stdin?.write(`${JSON.stringify(request)}\n`);
    const line = await waitFor(
      () =>
        server
          .stdout()
          .split('\n')
          .find((text) => text.includes(`"id":${id},`) || text.endsWith(`"id":${id}}`)),
      `the answer to request ${id}`,
      60_000,
    );
    return JSON.parse(line) as Answer;
  };
}

/** The processes running a script below the server (the tool's, suspended or not). */
function scriptProcesses(server: SpawnedServer, script: string): number[] {
  return listDescendants(server.child.pid ?? -1).filter((pid) => {
    try {
      return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(script);
    } catch {
      return false;
    }
  });
}

const accept = { question: { action: 'accept', content: {} } };

describe.skipIf(!existsSync('/proc'))('requestState over raw JSON-RPC (stdio)', () => {
  let server: SpawnedServer;
  let call: ReturnType<typeof driveStdio>;
  let temp: string;

  beforeAll(() => {
    temp = mkdtempSync(path.join(os.tmpdir(), 'toolpack-request-state-'));
    server = spawnServe(['--no-cache', '--no-watch', '--question-timeout', '3000'], {
      cwd: project,
    });
    call = driveStdio(server);
  });

  afterAll(() => {
    server?.kill();
    rmSync(temp, { recursive: true, force: true });
  });

  it('refuses a changed state and one issued for other arguments; the real one goes on', async () => {
    const marker = path.join(temp, 'tampered.txt');
    const params = { name: 'confirm_write', arguments: { marker } };
    const first = await call(params);
    expect(first.result?.resultType).toBe('input_required');
    expect(first.result?.inputRequests?.question?.method).toBe('elicitation/create');
    const state = first.result?.requestState ?? '';
    expect(state).toMatch(/^[\w-]{43}$/u);
    // The tool is suspended where it asked, its process alive between the two requests.
    expect(scriptProcesses(server, 'confirm-write.sh').length).toBeGreaterThan(0);

    const changed = `${state.slice(0, -1)}${state.endsWith('A') ? 'B' : 'A'}`;
    const tampered = await call({ ...params, inputResponses: accept, requestState: changed });
    expect(tampered.error?.code).toBe(-32602);
    expect(tampered.error?.message).toContain('Invalid or expired requestState');
    const other = path.join(temp, 'other.txt');
    const elsewhere = await call({
      name: 'confirm_write',
      arguments: { marker: other },
      inputResponses: accept,
      requestState: state,
    });
    expect(elsewhere.error?.message).toContain('issued for another tool or other arguments');
    expect(existsSync(marker) || existsSync(other)).toBe(false);

    // Neither refusal used the state up: the genuine retry is answered and the tool goes on.
    const done = await call({ ...params, inputResponses: accept, requestState: state });
    expect(done.result?.content?.[0]?.text).toBe('written');
    expect(existsSync(marker)).toBe(true);
  }, 90_000);

  it('answers a state once: a replay is refused and does not run the tool again', async () => {
    const marker = path.join(temp, 'replayed.txt');
    const params = { name: 'confirm_write', arguments: { marker } };
    const state = (await call(params)).result?.requestState ?? '';
    const decline = { question: { action: 'decline' } };
    const done = await call({ ...params, inputResponses: decline, requestState: state });
    expect(done.result?.content?.[0]?.text).toBe('skipped (decline)');
    const replay = await call({ ...params, inputResponses: accept, requestState: state });
    expect(replay.error?.message).toContain('already answered');
    expect(existsSync(marker)).toBe(false);
  }, 90_000);

  it('asks again when the retry carries no answer to the question', async () => {
    const marker = path.join(temp, 'unanswered.txt');
    const params = { name: 'confirm_write', arguments: { marker } };
    const state = (await call(params)).result?.requestState ?? '';
    const again = await call({ ...params, inputResponses: { other: {} }, requestState: state });
    expect(again.result?.resultType).toBe('input_required');
    expect(again.result?.requestState).not.toBe(state);
    const done = await call({
      ...params,
      inputResponses: accept,
      requestState: again.result?.requestState,
    });
    expect(done.result?.content?.[0]?.text).toBe('written');
  }, 90_000);

  it('stops a call whose retry never comes (--question-timeout), as on a timeout', async () => {
    const marker = path.join(temp, 'expired.txt');
    const params = { name: 'confirm_write', arguments: { marker } };
    const before = scriptProcesses(server, 'confirm-write.sh');
    const state = (await call(params)).result?.requestState ?? '';
    const suspended = scriptProcesses(server, 'confirm-write.sh').filter(
      (pid) => !before.includes(pid),
    );
    expect(suspended.length).toBeGreaterThan(0);
    await waitFor(
      () => suspended.every((pid) => !scriptProcesses(server, 'confirm-write.sh').includes(pid)),
      'the suspended script to be ended',
      20_000,
    );
    const late = await call({ ...params, inputResponses: accept, requestState: state });
    expect(late.error?.message).toContain('expired');
    expect(existsSync(marker)).toBe(false);
  }, 90_000);

  it('refuses the question at once when the request declares no elicitation', async () => {
    const marker = path.join(temp, 'undeclared.txt');
    const answer = await call({ name: 'confirm_write', arguments: { marker } }, {});
    expect(answer.result?.isError).toBe(true);
    expect(answer.result?.content?.[0]?.text).toContain('cannot ask: E_ELICITATION_UNAVAILABLE');
    expect(existsSync(marker)).toBe(false);
  }, 60_000);
});

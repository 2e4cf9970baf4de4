// Tools that ask their user, through the real CLI and the real pwsh, with the SDK client:
// ShouldProcess, Read-Host and PromptForChoice become elicitation/create requests over stdio
// and HTTP; a declined confirmation leaves no side effect; secrets and clients without the
// elicitation capability are refused at once; a bash script asks through an ::ask line.
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { PWSH_TEST_TAG, hasPwsh } from '@toolpack/pwsh-probe';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { startHttpServe, startStdioSession, type SpawnedServer } from '../testing/index.ts';

const project = path.join(import.meta.dirname, 'fixtures', 'elicitation-project');
const TOKEN = 'e2e-elicitation-token';
const ASKING = { capabilities: { elicitation: { form: {} } } };

interface Elicitation {
  message: string;
  requestedSchema: { properties: Record<string, Record<string, unknown>>; required?: string[] };
}
type Reply =
  { action: 'accept'; content?: Record<string, string> } | { action: 'decline' | 'cancel' };

/** Answers elicitation requests from a queue the test fills, recording each request. */
function answerElicitations(client: Client) {
  const asked: Elicitation[] = [];
  const replies: Reply[] = [];
  client.setRequestHandler('elicitation/create', async (request) => {
    asked.push(request.params as unknown as Elicitation);
    return replies.shift() ?? { action: 'cancel' };
  });
  return {
    asked,
    reply(...next: Reply[]) {
      asked.length = 0;
      replies.push(...next);
    },
  };
}

function textOf(result: { content?: unknown }): string {
  return ((result.content ?? []) as { type: string; text?: string }[])
    .map((block) => block.text ?? '')
    .join('\n');
}

async function callTool(client: Client, name: string, args: Record<string, unknown> = {}) {
  const result = await client.callTool({ name, arguments: args });
  return { text: textOf(result), isError: result.isError === true };
}

interface Connection {
  asking: Client;
  silent: Client;
  close(): Promise<void>;
}

async function connectStdio(): Promise<Connection> {
  const args = ['--no-cache', '--no-watch'];
  const asking = await startStdioSession(args, { cwd: project, client: ASKING });
  const silent = await startStdioSession(args, { cwd: project });
  return {
    asking: asking.client,
    silent: silent.client,
    close: async () => {
      await Promise.all([asking.close(), silent.close()]);
    },
  };
}

async function connectHttp(): Promise<Connection> {
  const server: SpawnedServer & { url: URL } = await startHttpServe(
    ['--no-cache', '--no-watch', '--token', TOKEN],
    { cwd: project },
  );
  const connect = async (options?: typeof ASKING) => {
    const client = new Client({ name: 'toolpack-elicitation-e2e', version: '1.0.0' }, options);
    await client.connect(
      new StreamableHTTPClientTransport(server.url, {
        requestInit: { headers: { Authorization: `Bearer ${TOKEN}` } },
      }),
    );
    return client;
  };
  const asking = await connect(ASKING);
  const silent = await connect();
  return {
    asking,
    silent,
    close: async () => {
      await asking.close().catch(() => undefined);
      await silent.close().catch(() => undefined);
      server.kill();
    },
  };
}

describe.skipIf(!hasPwsh).each([
  ['stdio', connectStdio],
  ['HTTP', connectHttp],
] as const)('elicitation from tools over %s (SDK client)', (_transport, connect) => {
  let connection: Connection;
  let answers: ReturnType<typeof answerElicitations>;
  let temp: string;

  beforeAll(async () => {
    temp = mkdtempSync(path.join(os.tmpdir(), 'toolpack-elicitation-'));
    connection = await connect();
    answers = answerElicitations(connection.asking);
  }, 60_000);

  afterAll(async () => {
    await connection?.close();
    rmSync(temp, { recursive: true, force: true });
  });

  it(`${PWSH_TEST_TAG} asks before a High-impact ShouldProcess; declined, nothing happened`, async () => {
    const declined = path.join(temp, 'declined.txt');
    answers.reply({ action: 'decline' });
    expect(await callTool(connection.asking, 'Remove_Marker', { Path: declined })).toEqual({
      text: 'skipped',
      isError: false,
    });
    expect(existsSync(declined)).toBe(false);
    expect(answers.asked).toHaveLength(1);
    expect(answers.asked[0]?.message).toContain(
      `Performing the operation "Write the marker" on target "${declined}"`,
    );
    expect(answers.asked[0]?.requestedSchema.properties).toEqual({});

    const accepted = path.join(temp, 'accepted.txt');
    answers.reply({ action: 'accept', content: {} });
    expect(await callTool(connection.asking, 'Remove_Marker', { Path: accepted })).toEqual({
      text: 'written',
      isError: false,
    });
    expect(existsSync(accepted)).toBe(true);
  }, 60_000);

  it(`${PWSH_TEST_TAG} asks below ConfirmImpact when the call passes Confirm: true`, async () => {
    const unasked = path.join(temp, 'low-unasked.txt');
    answers.reply();
    expect(await callTool(connection.asking, 'Set_LowMarker', { Path: unasked })).toEqual({
      text: 'written',
      isError: false,
    });
    expect(answers.asked).toEqual([]);

    const declined = path.join(temp, 'low-declined.txt');
    answers.reply({ action: 'decline' });
    expect(
      await callTool(connection.asking, 'Set_LowMarker', { Path: declined, Confirm: true }),
    ).toEqual({ text: 'skipped', isError: false });
    expect(answers.asked[0]?.message).toContain(
      `Performing the operation "Write the marker" on target "${declined}"`,
    );
    expect(existsSync(declined)).toBe(false);
  }, 60_000);

  it(`${PWSH_TEST_TAG} refuses at once for a client without elicitation; nothing happened`, async () => {
    const target = path.join(temp, 'silent.txt');
    // The session's PowerShell host starts on its first call: warm it, then time the refusal.
    await callTool(connection.silent, 'Read_Password');
    const started = performance.now();
    const result = await callTool(connection.silent, 'Remove_Marker', { Path: target });
    expect(performance.now() - started).toBeLessThan(5_000);
    expect(result.isError).toBe(true);
    expect(result.text).toContain('E_ELICITATION_UNAVAILABLE');
    expect(result.text).toContain('did not declare the elicitation capability');
    expect(existsSync(target)).toBe(false);
  }, 60_000);

  it('asks through a bash ::ask line, answered on fd 3', async () => {
    const declined = path.join(temp, 'bash-declined.txt');
    answers.reply({ action: 'decline' });
    expect(await callTool(connection.asking, 'confirm_write', { marker: declined })).toEqual({
      text: 'skipped (decline)',
      isError: false,
    });
    expect(answers.asked.map((asked) => asked.message)).toEqual([
      `confirm_write asks: Write ${declined}?`,
    ]);
    expect(existsSync(declined)).toBe(false);

    const accepted = path.join(temp, 'bash-accepted.txt');
    answers.reply({ action: 'accept', content: {} });
    expect((await callTool(connection.asking, 'confirm_write', { marker: accepted })).text).toBe(
      'written',
    );
    expect(existsSync(accepted)).toBe(true);

    const silent = await callTool(connection.silent, 'confirm_write', {
      marker: path.join(temp, 'bash-silent.txt'),
    });
    expect(silent.isError).toBe(true);
    expect(silent.text).toContain('cannot ask: E_ELICITATION_UNAVAILABLE');
  }, 60_000);

  it(`${PWSH_TEST_TAG} turns Read-Host into a text field`, async () => {
    answers.reply({ action: 'accept', content: { 'Your name': 'Ada' } });
    expect(await callTool(connection.asking, 'Read_Name')).toEqual({
      text: 'Hello, Ada',
      isError: false,
    });
    expect(answers.asked[0]?.requestedSchema).toEqual({
      type: 'object',
      properties: { 'Your name': { type: 'string', title: 'Your name' } },
      required: ['Your name'],
    });
  }, 60_000);

  it(`${PWSH_TEST_TAG} turns PromptForChoice into an enum with each choice's help`, async () => {
    answers.reply({ action: 'accept', content: { choice: 'Red' } });
    expect(await callTool(connection.asking, 'Select_Colour')).toEqual({
      text: 'picked Red',
      isError: false,
    });
    expect(answers.asked[0]?.message).toBe('Select_Colour asks: Colour\nWhich colour?');
    expect(answers.asked[0]?.requestedSchema.properties.choice).toEqual({
      type: 'string',
      title: 'Choice',
      description: 'Red: Warm and loud\nBlue: Calm and deep',
      enum: ['Red', 'Blue'],
      default: 'Blue',
    });
  }, 60_000);

  it(`${PWSH_TEST_TAG} never asks for a secure string`, async () => {
    answers.reply({ action: 'accept', content: { Password: 'hunter2' } });
    const result = await callTool(connection.asking, 'Read_Password');
    expect(result.isError).toBe(true);
    expect(result.text).toContain('E_ELICITATION_SECRET');
    expect(answers.asked).toEqual([]);
  }, 60_000);
});

describe('a question nobody answers over stdio (--question-timeout)', () => {
  it('tells the tool nobody answered once the timeout passes; nothing happened', async () => {
    const temp = mkdtempSync(path.join(os.tmpdir(), 'toolpack-elicitation-timeout-'));
    const session = await startStdioSession(
      ['--no-cache', '--no-watch', '--question-timeout', '1000'],
      { cwd: project, client: ASKING },
    );
    // A client that declared elicitation but never answers (its user walked away).
    session.client.setRequestHandler('elicitation/create', () => new Promise(() => undefined));
    try {
      const target = path.join(temp, 'unanswered.txt');
      const started = performance.now();
      const result = await callTool(session.client, 'confirm_write', { marker: target });
      expect(performance.now() - started).toBeGreaterThanOrEqual(1_000);
      expect(result.isError).toBe(true);
      expect(result.text).toContain(
        'cannot ask: E_ELICITATION_UNAVAILABLE The tool asked its user a question and got no answer within 1000 ms.',
      );
      expect(existsSync(target)).toBe(false);
    } finally {
      await session.close();
      rmSync(temp, { recursive: true, force: true });
    }
  }, 60_000);
});

describe('elicitation in a task-augmented call over stdio', () => {
  it('refuses the question at once (the call was answered with its task); nothing happened', async () => {
    const temp = mkdtempSync(path.join(os.tmpdir(), 'toolpack-elicitation-task-'));
    const session = await startStdioSession(['--no-cache', '--no-watch'], {
      cwd: project,
      client: ASKING,
    });
    const answers = answerElicitations(session.client);
    try {
      const target = path.join(temp, 'task.txt');
      answers.reply({ action: 'accept', content: {} });
      const { task } = await session.client.request(
        {
          method: 'tools/call',
          params: { name: 'confirm_write_long', arguments: { marker: target }, task: {} },
        },
        z.looseObject({ task: z.looseObject({ taskId: z.string() }) }),
      );
      const result = await session.client.request(
        { method: 'tasks/result', params: { taskId: task.taskId } },
        z.looseObject({
          content: z.array(z.looseObject({ text: z.string().optional() })),
          isError: z.boolean().optional(),
        }),
      );
      expect(result.isError).toBe(true);
      const text = result.content.map((block) => block.text ?? '').join('\n');
      expect(text).toContain('cannot ask: E_ELICITATION_UNAVAILABLE');
      expect(text).toContain('task-augmented call');
      expect(answers.asked).toEqual([]);
      expect(existsSync(target)).toBe(false);
    } finally {
      await session.close();
      rmSync(temp, { recursive: true, force: true });
    }
  }, 60_000);
});

import path from 'node:path';
import { SdkError, SdkErrorCode } from '@modelcontextprotocol/client';
import { PWSH_TEST_TAG, hasPwsh } from '@toolpack/pwsh-probe';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startStdioSession, type StdioSession } from '../testing/index.ts';

// Scripts report progress: a bash script with `::progress i/n message` lines on stderr, a
// PowerShell script with Write-Progress. copy_files opted in to progress restarting its 1 s
// timeout (`# OPTIONS progress-resets-timeout`); copy_files_plain is the same without it;
// the reindex tool folder opted in with `progressResetsTimeout: true` in its metadata.
const project = path.join(import.meta.dirname, 'fixtures', 'progress-project');

interface Progress {
  progress: number;
  total?: number;
  message?: string;
}

function textOf(result: { content?: unknown }): string {
  return ((result.content ?? []) as { type: string; text?: string }[])
    .filter((block) => block.type === 'text')
    .map((block) => block.text)
    .join('\n');
}

/** Calls a tool, recording its progress notifications and the answer in arrival order. */
async function callRecording(
  session: StdioSession,
  name: string,
  args: Record<string, unknown>,
  options: { timeout?: number; resetTimeoutOnProgress?: boolean } = {},
) {
  const events: Array<{ progress: Progress } | { answer: string; isError: boolean }> = [];
  const result = await session.client.callTool(
    { name, arguments: args },
    { ...options, onprogress: (progress) => events.push({ progress }) },
  );
  events.push({ answer: textOf(result), isError: result.isError === true });
  const progress = events.flatMap((event) => ('progress' in event ? [event.progress] : []));
  return { events, progress, result };
}

function expectIncreasing(progress: readonly Progress[]): void {
  const values = progress.map((p) => p.progress);
  expect(values).toEqual([...new Set(values)].sort((a, b) => a - b));
}

describe('progress from scripts over mcp serve (SDK client)', () => {
  let session: StdioSession;

  beforeAll(async () => {
    session = await startStdioSession(['--no-cache', '--no-watch'], { cwd: project });
  });

  afterAll(async () => {
    await session?.close();
  });

  it("relays a bash script's ::progress lines in order, then the answer", async () => {
    const { events, progress } = await callRecording(session, 'copy_files', { count: 5 });
    expect(events.at(-1)).toEqual({ answer: 'copied 5 files', isError: false });
    expect(progress.length).toBeGreaterThanOrEqual(2);
    expect(progress[0]).toEqual({ progress: 1, total: 5, message: 'Copying file 1' });
    expect(progress.at(-1)).toEqual({ progress: 5, total: 5, message: 'Copying file 5' });
    expectIncreasing(progress);
  });

  it.skipIf(!hasPwsh)(
    `${PWSH_TEST_TAG} relays a PowerShell script's Write-Progress in order, then the answer`,
    async () => {
      const { events, progress } = await callRecording(session, 'Sync_Folder', { Steps: 4 });
      expect(events.at(-1)).toEqual({ answer: 'synchronised in 4 steps', isError: false });
      expect(progress[0]).toEqual({
        progress: 25,
        total: 100,
        message: 'Synchronising - step 1 of 4',
      });
      expect(progress.at(-1)).toEqual({
        progress: 100,
        total: 100,
        message: 'Synchronising - step 4 of 4',
      });
      expectIncreasing(progress);
    },
  );

  it('runs an opted-in script three times past its timeout while it reports', async () => {
    // 30 files at 100 ms: 3 s against a 1 s timeout on the server and 1.5 s on the client,
    // which restarts its own timeout on each notification.
    const { events } = await callRecording(
      session,
      'copy_files',
      { count: 30 },
      { timeout: 1_500, resetTimeoutOnProgress: true },
    );
    expect(events.at(-1)).toEqual({ answer: 'copied 30 files', isError: false });
  });

  it.skipIf(!hasPwsh)(
    `${PWSH_TEST_TAG} runs a tool folder with progressResetsTimeout in its metadata three times past its timeout`,
    async () => {
      // 30 steps of 100 ms against `timeout: 1s`.
      const { events, progress } = await callRecording(
        session,
        'reindex',
        { steps: 30 },
        { timeout: 1_500, resetTimeoutOnProgress: true },
      );
      expect(events.at(-1)).toEqual({ answer: '{"Reindexed":30}', isError: false });
      expect(progress.at(-1)).toEqual({
        progress: 100,
        total: 100,
        message: 'Reindexing - step 30 of 30',
      });
    },
  );

  it('stops the same script without the opt-in at its timeout', async () => {
    const { events } = await callRecording(session, 'copy_files_plain', { count: 30 });
    expect(events.at(-1)).toEqual({
      answer: expect.stringContaining('timed out after 1000 ms'),
      isError: true,
    });
  });

  it('leaves a client without resetTimeoutOnProgress to its own timeout', async () => {
    const failure = await callRecording(
      session,
      'copy_files',
      { count: 30 },
      { timeout: 1_500 },
    ).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(failure).toBeInstanceOf(SdkError);
    expect((failure as SdkError).code).toBe(SdkErrorCode.RequestTimeout);
  });
});

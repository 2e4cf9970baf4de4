import type { CallToolResult } from '@modelcontextprotocol/server';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createTaskStore, TASK_DEFAULTS, TaskRequestError } from './task-store.ts';

const text = (value: string): CallToolResult => ({ content: [{ type: 'text', text: value }] });

/** A run that waits for its signal (then answers as a cancelled call does) or for `finish`. */
function controllableRun() {
  let finish!: (result: CallToolResult) => void;
  let signal: AbortSignal | undefined;
  const run = (given: AbortSignal) =>
    new Promise<CallToolResult>((resolve) => {
      signal = given;
      finish = resolve;
      given.addEventListener('abort', () => resolve({ ...text('stopped'), isError: true }));
    });
  return { run, finish: (result: CallToolResult) => finish(result), signal: () => signal };
}

const kindOf = (work: () => unknown) => {
  try {
    work();
  } catch (error) {
    return error instanceof TaskRequestError ? error.kind : 'other';
  }
  return 'none';
};

afterEach(() => {
  vi.useRealTimers();
});

describe('createTaskStore', () => {
  it('starts a task working, completes it with the answer, and marks an isError answer failed', async () => {
    const store = createTaskStore();
    const ok = controllableRun();
    const bad = controllableRun();
    const first = store.start(ok.run);
    const second = store.start(bad.run, 5_000);
    expect(first).toMatchObject({ status: 'working', ttl: TASK_DEFAULTS.defaultTtlMs });
    expect(second.ttl).toBe(5_000);
    await Promise.resolve();
    ok.finish(text('done'));
    bad.finish({ ...text('no such file'), isError: true });
    expect(await store.outcome(first.taskId)).toEqual({ result: text('done') });
    await store.outcome(second.taskId);
    expect(store.get(first.taskId).status).toBe('completed');
    expect(store.get(second.taskId)).toMatchObject({
      status: 'failed',
      statusMessage: 'no such file',
    });
  });

  it("clips a failed tool's message to 1,000 characters in the task status", async () => {
    const store = createTaskStore();
    const { taskId } = store.start(() =>
      Promise.resolve({ ...text('x'.repeat(5_000)), isError: true }),
    );
    await store.outcome(taskId);
    expect(store.get(taskId).statusMessage).toBe(`${'x'.repeat(1_000)}…`);
  });

  it('keeps the error of a run that throws, and fails the task with its message', async () => {
    const store = createTaskStore();
    const { taskId } = store.start(() => {
      throw new Error('runner gone');
    });
    const settled = await store.outcome(taskId);
    expect('error' in settled && settled.error.message).toBe('runner gone');
    expect(store.get(taskId)).toMatchObject({ status: 'failed', statusMessage: 'runner gone' });
  });

  it('clamps a requested ttl to [1 s, 1 h]', () => {
    const store = createTaskStore();
    expect(store.start(controllableRun().run, 1).ttl).toBe(TASK_DEFAULTS.minTtlMs);
    expect(store.start(controllableRun().run, 10 * 3_600_000).ttl).toBe(TASK_DEFAULTS.maxTtlMs);
  });

  it('cancels a working task through its signal and stays cancelled; a terminal one is refused', async () => {
    const store = createTaskStore();
    const call = controllableRun();
    const { taskId } = store.start(call.run);
    await Promise.resolve();
    expect(store.cancel(taskId).status).toBe('cancelled');
    expect(call.signal()?.aborted).toBe(true);
    await store.outcome(taskId);
    // The run answered (an isError result) after the cancel: the status does not move.
    expect(store.get(taskId).status).toBe('cancelled');
    expect(kindOf(() => store.cancel(taskId))).toBe('terminal');
    expect(kindOf(() => store.get('nope'))).toBe('unknown-task');
  });

  it('forgets a task ttl after its creation, stopping it if it still runs', async () => {
    vi.useFakeTimers();
    const store = createTaskStore();
    const call = controllableRun();
    const { taskId } = store.start(call.run, 2_000);
    await vi.advanceTimersByTimeAsync(1_999);
    expect(store.get(taskId).status).toBe('working');
    await vi.advanceTimersByTimeAsync(1);
    expect(kindOf(() => store.get(taskId))).toBe('unknown-task');
    expect(call.signal()?.aborted).toBe(true);
  });

  it('keeps at most maxTasks: the oldest finished one makes room; all running refuses', async () => {
    const store = createTaskStore({ maxTasks: 3 });
    const calls = [controllableRun(), controllableRun(), controllableRun()];
    const ids = calls.map((call) => store.start(call.run).taskId);
    await Promise.resolve();
    expect(kindOf(() => store.start(controllableRun().run))).toBe('full');
    calls[1]?.finish(text('second'));
    calls[2]?.finish(text('third'));
    await store.outcome(ids[2] as string);
    const fourth = store.start(controllableRun().run).taskId;
    // The oldest finished (the second) went; the first still runs and is kept.
    expect(store.list().tasks.map((task) => task.taskId)).toEqual([ids[0], ids[2], fourth]);
  });

  it('lists in pages with an opaque cursor, and refuses a cursor it does not know', () => {
    const store = createTaskStore({ pageSize: 2 });
    const ids = [1, 2, 3].map(() => store.start(controllableRun().run).taskId);
    const first = store.list();
    expect(first.tasks.map((task) => task.taskId)).toEqual(ids.slice(0, 2));
    const second = store.list(first.nextCursor);
    expect(second).toEqual({ tasks: [expect.objectContaining({ taskId: ids[2] })] });
    expect(kindOf(() => store.list('bogus'))).toBe('bad-cursor');
  });

  it('close stops every run and forgets every task', async () => {
    const store = createTaskStore();
    const call = controllableRun();
    const { taskId } = store.start(call.run);
    await Promise.resolve();
    store.close();
    expect(call.signal()?.aborted).toBe(true);
    expect(store.list().tasks).toEqual([]);
    expect(kindOf(() => store.get(taskId))).toBe('unknown-task');
  });
});

import { describe, expect, it } from 'vitest';
import type { ToolQuestion, ToolQuestionAnswer } from '@toolpack/runners';
import { createSuspendedCalls, type CallLeg } from './suspended-calls.ts';

const question: ToolQuestion = { message: 'Sure?', fields: [] };
const binding = { tool: 'confirm', args: { path: 'a', depth: 1 } };
const request = (context = 'first') => ({ signal: new AbortController().signal, context });

/** A call that asks `times` questions in turn and answers with the actions it was given. */
function asking(times: number) {
  return async (ask: (q: ToolQuestion) => Promise<ToolQuestionAnswer>) => {
    const actions: string[] = [];
    for (let i = 0; i < times; i++) actions.push((await ask(question)).action);
    return actions.join(',');
  };
}

const stateOf = (leg: CallLeg<unknown>) => {
  if (leg.kind !== 'asked') throw new Error(`expected a question, got ${leg.kind}`);
  return leg.requestState;
};

describe('suspended calls (2026-07-28 input_required)', () => {
  it('runs a call on from where it asked, one state per round, each used once', async () => {
    const calls = createSuspendedCalls<string>({ waitMs: 60_000 });
    const first = stateOf(await calls.start(binding, asking(2), request()));
    expect(first).toMatch(/^[\w-]{43}$/u);
    const second = stateOf(
      await calls.resume(first, binding, { action: 'accept', values: {} }, request()),
    );
    expect(second).not.toBe(first);
    await expect(
      calls.resume(first, binding, { action: 'accept', values: {} }, request()),
    ).rejects.toThrow('already answered');
    const done = await calls.resume(second, binding, { action: 'decline' }, request());
    expect(done).toEqual({ kind: 'done', result: 'accept,decline' });
    expect(calls.size).toBe(0);
  });

  it('binds a state to its tool and arguments, whatever their key order', async () => {
    const calls = createSuspendedCalls<string>({ waitMs: 60_000 });
    const state = stateOf(await calls.start(binding, asking(1), request()));
    for (const other of [
      { tool: 'other', args: binding.args },
      { tool: 'confirm', args: { path: 'b', depth: 1 } },
    ]) {
      await expect(
        calls.resume(state, other, { action: 'accept', values: {} }, request()),
      ).rejects.toThrow('another tool or other arguments');
    }
    const reordered = { tool: 'confirm', args: { depth: 1, path: 'a' } };
    expect(
      await calls.resume(state, reordered, { action: 'accept', values: {} }, request()),
    ).toEqual({ kind: 'done', result: 'accept' });
  });

  it('stops a call whose retry does not come in time, and refuses its state after', async () => {
    const calls = createSuspendedCalls<string>({ waitMs: 50 });
    let stopped: unknown;
    const state = stateOf(
      await calls.start(
        binding,
        async (ask, signal) => {
          signal.addEventListener('abort', () => {
            stopped = signal.reason;
          });
          return (await ask(question)).action;
        },
        request(),
      ),
    );
    await new Promise((resolve) => setTimeout(resolve, 150));
    expect(String(stopped)).toContain('no retry with its answer came within 50 ms');
    await expect(calls.resume(state, binding, { action: 'decline' }, request())).rejects.toThrow(
      'Invalid or expired requestState',
    );
  });

  it('refuses a question past the number of calls that may wait', async () => {
    const calls = createSuspendedCalls<string>({ waitMs: 60_000, maxWaiting: 2 });
    await calls.start(binding, asking(1), request());
    await calls.start(binding, asking(1), request());
    const third = await calls.start(
      binding,
      async (ask) => {
        try {
          return (await ask(question)).action;
        } catch (error) {
          return (error as Error).message;
        }
      },
      request(),
    );
    expect(third.kind).toBe('done');
    expect((third as { result: string }).result).toContain('2 calls already wait');
    calls.close();
    expect(calls.size).toBe(0);
  });

  it('hands the call the context of the request serving its current round', async () => {
    const calls = createSuspendedCalls<string>({ waitMs: 60_000 });
    const seen: string[] = [];
    const state = stateOf(
      await calls.start(
        binding,
        async (ask, _signal, current) => {
          seen.push(current());
          await ask(question);
          seen.push(current());
          return 'ok';
        },
        request('round 1'),
      ),
    );
    await calls.resume(state, binding, { action: 'accept', values: {} }, request('round 2'));
    expect(seen).toEqual(['round 1', 'round 2']);
  });
});

import { describe, expect, it } from 'vitest';
import { createProgressThrottle } from './progress-throttle.ts';
import type { ToolProgress } from './runner-types.ts';

describe('createProgressThrottle', () => {
  it('relays a burst report for report, then holds back to the latest until flushed', () => {
    const sent: ToolProgress[] = [];
    const throttle = createProgressThrottle((p) => sent.push(p), {
      burst: 3,
      intervalMs: 60_000,
    });
    for (let step = 1; step <= 10_000; step += 1) throttle.push({ progress: step, total: 10_000 });
    expect(sent.map((p) => p.progress)).toEqual([1, 2, 3]);
    throttle.flush();
    expect(sent.map((p) => p.progress)).toEqual([1, 2, 3, 10_000]);
    throttle.flush();
    expect(sent).toHaveLength(4);
  });

  it('sends the held report once a token is earned', async () => {
    const sent: number[] = [];
    const throttle = createProgressThrottle((p) => sent.push(p.progress), {
      burst: 1,
      intervalMs: 20,
    });
    throttle.push({ progress: 1 });
    throttle.push({ progress: 2 });
    throttle.push({ progress: 3 });
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(sent).toEqual([1, 3]);
  });

  it('forgets what it held once cancelled', async () => {
    const sent: number[] = [];
    const throttle = createProgressThrottle((p) => sent.push(p.progress), {
      burst: 1,
      intervalMs: 20,
    });
    throttle.push({ progress: 1 });
    throttle.push({ progress: 2 });
    throttle.cancel();
    await new Promise((resolve) => setTimeout(resolve, 100));
    throttle.flush();
    expect(sent).toEqual([1]);
  });
});

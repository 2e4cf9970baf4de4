import { describe, expect, it } from 'vitest';
import { createProgressThrottle } from './progress-throttle.ts';
import type { ToolProgress } from './runner-types.ts';

describe('createProgressThrottle', () => {
  it('sends the first report at once and holds the rest back to the latest, until flushed', () => {
    const sent: ToolProgress[] = [];
    const throttle = createProgressThrottle((p) => sent.push(p), 60_000);
    for (let step = 1; step <= 10_000; step += 1) throttle.push({ progress: step, total: 10_000 });
    expect(sent).toEqual([{ progress: 1, total: 10_000 }]);
    throttle.flush();
    expect(sent).toEqual([
      { progress: 1, total: 10_000 },
      { progress: 10_000, total: 10_000 },
    ]);
    throttle.flush();
    expect(sent).toHaveLength(2);
  });

  it('sends the held report when its interval has passed', async () => {
    const sent: number[] = [];
    const throttle = createProgressThrottle((p) => sent.push(p.progress), 20);
    throttle.push({ progress: 1 });
    throttle.push({ progress: 2 });
    throttle.push({ progress: 3 });
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(sent).toEqual([1, 3]);
  });

  it('forgets what it held once cancelled', async () => {
    const sent: number[] = [];
    const throttle = createProgressThrottle((p) => sent.push(p.progress), 20);
    throttle.push({ progress: 1 });
    throttle.push({ progress: 2 });
    throttle.cancel();
    await new Promise((resolve) => setTimeout(resolve, 100));
    throttle.flush();
    expect(sent).toEqual([1]);
  });
});

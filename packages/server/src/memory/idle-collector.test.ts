import v8 from 'node:v8';
import { afterEach, describe, expect, it } from 'vitest';
import { collectGarbageFully, createIdleCollector, type IdleCollector } from './idle-collector.ts';

const MB = 1024 * 1024;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/** Waits until `condition` holds, at most 5 s: a loaded machine delays timers, never skips them. */
async function until(condition: () => boolean): Promise<void> {
  for (let waited = 0; !condition() && waited < 5_000; waited += 5) await sleep(5);
  expect(condition()).toBe(true);
}

const IDLE_MS = 30;

describe('createIdleCollector', () => {
  let collector: IdleCollector | undefined;
  afterEach(() => collector?.close());

  /** Collections record when they ran and the heap they found; each leaves 5 MB behind. */
  function start(heap: { used: number }, collected: { at: number; used: number }[]) {
    collector = createIdleCollector({
      idleMs: IDLE_MS,
      checkEveryMs: 5,
      minGrowthBytes: 10 * MB,
      readHeapUsed: () => heap.used,
      collect: () => {
        collected.push({ at: performance.now(), used: heap.used });
        heap.used = 5 * MB;
        return Promise.resolve();
      },
    });
    return collector;
  }

  it('collects once the calls have stopped and the heap grew, then not again without growth', async () => {
    const heap = { used: 5 * MB };
    const collected: { at: number; used: number }[] = [];
    const idle = start(heap, collected);
    idle.callStarted();
    heap.used = 80 * MB;
    await sleep(80);
    expect(collected).toEqual([]);
    const endedAt = performance.now();
    idle.callEnded();
    await until(() => collected.length === 1);
    expect(collected[0]?.used).toBe(80 * MB);
    expect(collected[0]!.at - endedAt).toBeGreaterThanOrEqual(IDLE_MS);
    expect(idle.collections).toBe(1);
    await sleep(80);
    expect(idle.collections).toBe(1);
  });

  it('collects once after start-up, which leaves garbage like a burst does', async () => {
    const heap = { used: 45 * MB };
    const collected: { at: number; used: number }[] = [];
    const idle = start(heap, collected);
    await until(() => idle.collections === 1);
    expect(collected.map((c) => c.used)).toEqual([45 * MB]);
  });

  it('leaves a heap that grew less than the threshold alone', async () => {
    const heap = { used: 5 * MB };
    const collected: { at: number; used: number }[] = [];
    const idle = start(heap, collected);
    idle.callStarted();
    heap.used = 9 * MB;
    idle.callEnded();
    await sleep(100);
    expect(collected).toEqual([]);
  });

  it('waits while any of several overlapping calls is still running', async () => {
    const heap = { used: 5 * MB };
    const collected: { at: number; used: number }[] = [];
    const idle = start(heap, collected);
    idle.callStarted();
    idle.callStarted();
    heap.used = 50 * MB;
    idle.callEnded();
    await sleep(80);
    expect(collected).toEqual([]);
    idle.callEnded();
    await until(() => collected.length === 1);
    expect(collected[0]?.used).toBe(50 * MB);
  });

  it('survives a failing collection and tries again after more growth', async () => {
    const heap = { used: 5 * MB };
    let attempts = 0;
    collector = createIdleCollector({
      idleMs: 10,
      checkEveryMs: 5,
      minGrowthBytes: 10 * MB,
      readHeapUsed: () => heap.used,
      collect: () => {
        attempts++;
        return Promise.reject(new Error('inspector busy'));
      },
    });
    collector.callStarted();
    heap.used = 40 * MB;
    collector.callEnded();
    await until(() => attempts === 1);
    await sleep(40);
    expect(attempts).toBe(1);
    heap.used = 60 * MB;
    await until(() => attempts === 2);
    expect(collector.collections).toBe(0);
  });
});

describe('collectGarbageFully', () => {
  it('frees unreachable objects without --expose-gc', async () => {
    // Unreachable once counted, but still on the heap until a major GC.
    const allocate = () =>
      Array.from({ length: 300_000 }, (_, index) => ({ index, text: `item ${index}` })).length;
    expect(allocate()).toBe(300_000);
    const before = v8.getHeapStatistics().used_heap_size;
    await collectGarbageFully();
    expect(before - v8.getHeapStatistics().used_heap_size).toBeGreaterThan(10 * MB);
  });
});

import v8 from 'node:v8';
import { afterEach, describe, expect, it } from 'vitest';
import { collectGarbageFully, createIdleCollector, type IdleCollector } from './idle-collector.ts';

const MB = 1024 * 1024;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('createIdleCollector', () => {
  let collector: IdleCollector | undefined;
  afterEach(() => collector?.close());

  function start(heap: { used: number }, collected: number[]) {
    collector = createIdleCollector({
      idleMs: 30,
      checkEveryMs: 5,
      minGrowthBytes: 10 * MB,
      readHeapUsed: () => heap.used,
      collect: () => {
        collected.push(heap.used);
        heap.used = 5 * MB;
        return Promise.resolve();
      },
    });
    return collector;
  }

  it('collects once the calls have stopped and the heap grew, then not again without growth', async () => {
    const heap = { used: 5 * MB };
    const collected: number[] = [];
    const idle = start(heap, collected);
    idle.callStarted();
    heap.used = 80 * MB;
    await sleep(80);
    expect(collected).toEqual([]);
    idle.callEnded();
    await sleep(15);
    expect(collected).toEqual([]);
    await sleep(80);
    expect(collected).toEqual([80 * MB]);
    expect(idle.collections).toBe(1);
    await sleep(80);
    expect(idle.collections).toBe(1);
  });

  it('collects once after start-up, which leaves garbage like a burst does', async () => {
    const heap = { used: 45 * MB };
    const collected: number[] = [];
    const idle = start(heap, collected);
    await sleep(100);
    expect(collected).toEqual([45 * MB]);
    expect(idle.collections).toBe(1);
  });

  it('leaves a heap that grew less than the threshold alone', async () => {
    const heap = { used: 5 * MB };
    const collected: number[] = [];
    const idle = start(heap, collected);
    idle.callStarted();
    heap.used = 9 * MB;
    idle.callEnded();
    await sleep(100);
    expect(collected).toEqual([]);
  });

  it('waits while any of several overlapping calls is still running', async () => {
    const heap = { used: 5 * MB };
    const collected: number[] = [];
    const idle = start(heap, collected);
    idle.callStarted();
    idle.callStarted();
    heap.used = 50 * MB;
    idle.callEnded();
    await sleep(80);
    expect(collected).toEqual([]);
    idle.callEnded();
    await sleep(80);
    expect(collected).toEqual([50 * MB]);
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
    await sleep(60);
    expect(attempts).toBe(1);
    heap.used = 60 * MB;
    await sleep(60);
    expect(attempts).toBe(2);
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

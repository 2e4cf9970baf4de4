import { describe, expect, it } from 'vitest';
import { createConcurrencyLimiter } from './concurrency-limiter.ts';

describe('createConcurrencyLimiter', () => {
  it('grants up to the limit and queues the rest in order', async () => {
    const limiter = createConcurrencyLimiter(2);
    const first = await limiter.acquire();
    const second = await limiter.acquire();
    const order: number[] = [];
    const third = limiter.acquire().then((release) => (order.push(3), release));
    const fourth = limiter.acquire().then((release) => (order.push(4), release));
    expect(limiter.active).toBe(2);
    expect(limiter.queued).toBe(2);
    first?.();
    first?.(); // Releasing twice frees one slot only.
    (await third)?.();
    second?.();
    (await fourth)?.();
    expect(order).toEqual([3, 4]);
    expect(limiter.active).toBe(0);
  });

  it('drops a waiter whose signal aborts, and never grants it', async () => {
    const limiter = createConcurrencyLimiter(1);
    const held = await limiter.acquire();
    const controller = new AbortController();
    const waiting = limiter.acquire(controller.signal);
    controller.abort();
    expect(await waiting).toBeUndefined();
    expect(limiter.queued).toBe(0);
    held?.();
    expect(limiter.active).toBe(0);
    expect(await limiter.acquire(AbortSignal.abort())).toBeUndefined();
  });
});

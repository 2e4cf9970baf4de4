import { describe, expect, it } from 'vitest';
import { askWithoutSlot, createConcurrencyLimiter, holdSlot } from './concurrency-limiter.ts';

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

  it('lets another call run while one waits for its user, and takes a slot again after', async () => {
    const limiter = createConcurrencyLimiter(1);
    const signal = new AbortController().signal;
    const slot = holdSlot(limiter, (await limiter.acquire()) as () => void, signal);
    let answer!: (text: string) => void;
    const ask = askWithoutSlot(slot, () => new Promise<string>((resolve) => (answer = resolve)));
    // Without giving the slot back, a second call would queue behind the question.
    const asked = ask('Sure?');
    const other = await limiter.acquire(signal);
    expect(other).toBeDefined();
    expect(limiter.active).toBe(1);
    answer('yes');
    let answered = false;
    void asked.then(() => (answered = true));
    await new Promise((resolve) => setTimeout(resolve, 10));
    // The answer waits for a slot: the other call still holds the only one.
    expect(answered).toBe(false);
    other?.();
    expect(await asked).toBe('yes');
    expect(limiter.active).toBe(1);
    slot.release();
    expect(limiter.active).toBe(0);
  });
});

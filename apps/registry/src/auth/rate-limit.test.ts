import { describe, expect, it } from 'vitest';
import { createRateLimiter } from './rate-limit.ts';

describe('createRateLimiter', () => {
  it('allows a burst, then refuses with the seconds until the next request is allowed', () => {
    const limiter = createRateLimiter({ capacity: 2, refillPerSecond: 0.5 });
    expect(limiter.take('a', 0)).toEqual({ allowed: true });
    expect(limiter.take('a', 0)).toEqual({ allowed: true });
    expect(limiter.take('a', 0)).toEqual({ allowed: false, retryAfterSeconds: 2 });
    expect(limiter.take('a', 1000)).toEqual({ allowed: false, retryAfterSeconds: 1 });
    expect(limiter.take('a', 2000)).toEqual({ allowed: true });
  });

  it('keeps one bucket per client', () => {
    const limiter = createRateLimiter({ capacity: 1, refillPerSecond: 1 });
    expect(limiter.take('a', 0).allowed).toBe(true);
    expect(limiter.take('b', 0).allowed).toBe(true);
    expect(limiter.take('a', 0).allowed).toBe(false);
  });

  it('refills up to the capacity, never beyond', () => {
    const limiter = createRateLimiter({ capacity: 2, refillPerSecond: 10 });
    limiter.take('a', 0);
    const later = 60_000;
    expect(
      [limiter.take('a', later), limiter.take('a', later), limiter.take('a', later)].map(
        (d) => d.allowed,
      ),
    ).toEqual([true, true, false]);
  });

  it('forgets idle clients instead of growing without bound', () => {
    const limiter = createRateLimiter({ capacity: 1, refillPerSecond: 1, maxKeys: 100 });
    for (let i = 0; i < 10_000; i += 1) limiter.take(`client-${i}`, i);
    // A client seen long ago starts with a full bucket again.
    expect(limiter.take('client-0', 20_000).allowed).toBe(true);
  });

  it('refuses nonsense options', () => {
    expect(() => createRateLimiter({ capacity: 0, refillPerSecond: 1 })).toThrow(/capacity/);
    expect(() => createRateLimiter({ capacity: 1, refillPerSecond: 0 })).toThrow(/refillPerSecond/);
  });
});

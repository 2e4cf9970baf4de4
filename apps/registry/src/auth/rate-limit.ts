import { ToolpackError } from '@toolpack/core';

export interface TokenBucketOptions {
  /** Requests allowed in a burst. */
  capacity: number;
  /** Requests regained per second. */
  refillPerSecond: number;
  /** Clients remembered at once; full buckets are forgotten first. Default 10 000. */
  maxKeys?: number;
}

export type RateDecision = { allowed: true } | { allowed: false; retryAfterSeconds: number };

export interface RateLimiter {
  /** Takes one request from `key`'s bucket. */
  take(key: string, now?: number): RateDecision;
}

interface Bucket {
  tokens: number;
  updatedAt: number;
}

/**
 * A token bucket per client (an IP address or a publish token). In memory, per instance:
 * behind a load balancer each instance limits on its own, which bounds abuse well enough
 * without shared state (README "Running several instances").
 */
export function createRateLimiter(options: TokenBucketOptions): RateLimiter {
  const { capacity, refillPerSecond } = options;
  if (!(capacity >= 1) || !(refillPerSecond > 0)) {
    throw new ToolpackError(
      'E_RATE_LIMIT_OPTIONS',
      'A rate limit needs capacity >= 1 and refillPerSecond > 0.',
      {
        hint: 'Pass rateLimits: false to turn rate limiting off instead.',
      },
    );
  }
  const maxKeys = options.maxKeys ?? 10_000;
  const buckets = new Map<string, Bucket>();

  const refill = (bucket: Bucket, now: number): void => {
    const elapsed = Math.max(0, now - bucket.updatedAt) / 1000;
    bucket.tokens = Math.min(capacity, bucket.tokens + elapsed * refillPerSecond);
    bucket.updatedAt = now;
  };

  const forgetIdle = (now: number): void => {
    for (const [key, bucket] of buckets) {
      refill(bucket, now);
      if (bucket.tokens >= capacity) buckets.delete(key);
    }
    // Still full of busy clients: drop the oldest, which is at worst generous to one of them.
    while (buckets.size >= maxKeys) {
      const oldest = buckets.keys().next().value;
      if (oldest === undefined) break;
      buckets.delete(oldest);
    }
  };

  return {
    take(key, now = Date.now()) {
      let bucket = buckets.get(key);
      if (bucket === undefined) {
        if (buckets.size >= maxKeys) forgetIdle(now);
        bucket = { tokens: capacity, updatedAt: now };
        buckets.set(key, bucket);
      } else {
        refill(bucket, now);
      }
      if (bucket.tokens >= 1) {
        bucket.tokens -= 1;
        return { allowed: true };
      }
      return {
        allowed: false,
        retryAfterSeconds: Math.max(1, Math.ceil((1 - bucket.tokens) / refillPerSecond)),
      };
    },
  };
}

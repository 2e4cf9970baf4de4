/** Releases a slot taken with `acquire`; calling it more than once is harmless. */
export type ReleaseSlot = () => void;

export interface ConcurrencyLimiter {
  /**
   * Waits for a free slot (FIFO). Resolves `undefined` when `signal` aborts first, so a
   * call that timed out while queued never starts.
   */
  acquire(signal?: AbortSignal): Promise<ReleaseSlot | undefined>;
  readonly active: number;
  readonly queued: number;
}

interface Waiter {
  grant(release: ReleaseSlot): void;
}

export function createConcurrencyLimiter(limit: number): ConcurrencyLimiter {
  const max = Math.max(1, Math.floor(limit));
  let active = 0;
  const waiters: Waiter[] = [];

  const createRelease = (): ReleaseSlot => {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = waiters.shift();
      if (next === undefined) active -= 1;
      else next.grant(createRelease());
    };
  };

  return {
    acquire(signal) {
      if (signal?.aborted) return Promise.resolve(undefined);
      if (active < max) {
        active += 1;
        return Promise.resolve(createRelease());
      }
      return new Promise((resolve) => {
        const onAbort = (): void => {
          const index = waiters.indexOf(waiter);
          if (index !== -1) waiters.splice(index, 1);
          resolve(undefined);
        };
        const waiter: Waiter = {
          grant(release) {
            signal?.removeEventListener('abort', onAbort);
            if (signal?.aborted) {
              release();
              resolve(undefined);
            } else {
              resolve(release);
            }
          },
        };
        waiters.push(waiter);
        signal?.addEventListener('abort', onAbort, { once: true });
      });
    },
    get active() {
      return active;
    },
    get queued() {
      return waiters.length;
    },
  };
}

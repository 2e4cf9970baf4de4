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

/** A call's slot while it runs, which it can give back for a while and take again. */
export interface HeldSlot {
  /** Gives the slot back (nothing if it is not held). */
  pause(): void;
  /** Takes a slot again; false when the call was stopped while it waited for one. */
  resume(): Promise<boolean>;
  release(): void;
}

export function holdSlot(
  limiter: ConcurrencyLimiter,
  first: ReleaseSlot,
  signal: AbortSignal,
): HeldSlot {
  let release: ReleaseSlot | undefined = first;
  return {
    pause() {
      release?.();
      release = undefined;
    },
    async resume() {
      release ??= await limiter.acquire(signal);
      return release !== undefined;
    },
    release() {
      release?.();
      release = undefined;
    },
  };
}

/**
 * The call's `ask` with its slot given back while the user thinks (a person may take minutes,
 * a 2026-07-28 client may never call back) and taken again before the answer lets the tool go
 * on: calls waiting for answers do not hold up every other call of their kind. For runners
 * whose waiting tool holds nothing else the limit protects (a process blocked on a read, a
 * promise in a module's process); a PowerShell runspace stays busy, so not for those.
 */
export function askWithoutSlot<Question, Answer>(
  slot: HeldSlot,
  ask: (question: Question) => Promise<Answer>,
): (question: Question) => Promise<Answer> {
  return async (question) => {
    slot.pause();
    try {
      return await ask(question);
    } finally {
      await slot.resume();
    }
  };
}

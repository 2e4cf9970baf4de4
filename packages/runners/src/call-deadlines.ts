/** One call's timeout. */
export interface CallDeadline {
  /** Starts the same time again from now (a progress report of an opted-in tool). */
  refresh(): void;
  /** The call ended: its timeout never fires. */
  cancel(): void;
  /**
   * Stops the clock (the tool waits for its user); the returned function starts it again
   * with the time that was left. Holds may overlap: the clock runs once none is held.
   */
  hold(): () => void;
}

export interface CallDeadlines {
  /** Calls `onExpire` once `ms` milliseconds have passed, unless cancelled or refreshed first. */
  start(ms: number, onExpire: () => void): CallDeadline;
  /** Deadlines not yet expired or cancelled. */
  readonly pending: number;
}

interface Entry {
  at: number;
  /** While held: the time that was left, and how many holds are open. */
  left: number;
  holds: number;
  readonly ms: number;
  readonly onExpire: () => void;
}

/**
 * The timeouts of a runner's calls on one Node timer, instead of a timer per call: a Node
 * timer created and cleared per call costs a timer list, a queue insert and two native calls
 * each time (measured: the biggest single item of the runner's own time per call). The timer
 * is armed for the earliest deadline and looks again when it fires; a call that ends only
 * leaves the set. While any deadline is pending the timer holds the event loop open, as a
 * call's own timer did; with none it does not.
 */
export function createCallDeadlines(): CallDeadlines {
  const entries = new Set<Entry>();
  let timer: NodeJS.Timeout | undefined;
  let armedAt = Number.POSITIVE_INFINITY;

  // With no deadline pending the timer may stay armed, but it no longer holds the loop open.
  const releaseIfIdle = (): void => {
    if (entries.size === 0) timer?.unref();
  };

  const arm = (at: number, now: number): void => {
    if (timer !== undefined) clearTimeout(timer);
    armedAt = at;
    // Node may fire a little before `at` by this clock: then `expire` arms again.
    timer = setTimeout(expire, Math.max(1, Math.ceil(at - now)));
  };

  const expire = (): void => {
    timer = undefined;
    armedAt = Number.POSITIVE_INFINITY;
    const now = performance.now();
    for (const entry of [...entries]) {
      if (entry.at <= now) {
        entries.delete(entry);
        entry.onExpire();
      }
    }
    // onExpire may have started or cancelled deadlines: arm for what is left, if not yet.
    if (timer === undefined && entries.size > 0) {
      let earliest = Number.POSITIVE_INFINITY;
      for (const entry of entries) if (entry.at < earliest) earliest = entry.at;
      arm(earliest, performance.now());
    }
    releaseIfIdle();
  };

  return {
    start(ms, onExpire) {
      const now = performance.now();
      const entry: Entry = { at: now + ms, left: 0, holds: 0, ms, onExpire };
      entries.add(entry);
      if (entry.at < armedAt) arm(entry.at, now);
      else if (entries.size === 1) timer?.ref();
      return {
        refresh() {
          // Later than before: the armed timer fires no later than needed and looks again.
          if (entries.has(entry)) entry.at = performance.now() + entry.ms;
        },
        cancel() {
          entry.holds = -1;
          if (entries.delete(entry)) releaseIfIdle();
        },
        hold() {
          if (entry.holds < 0) return () => {};
          if (entry.holds++ === 0) {
            if (!entries.delete(entry)) {
              entry.holds = -1;
              return () => {};
            }
            entry.left = Math.max(0, entry.at - performance.now());
            releaseIfIdle();
          }
          let released = false;
          return () => {
            if (released || entry.holds <= 0) return;
            released = true;
            if (--entry.holds > 0) return;
            const again = performance.now();
            entry.at = again + entry.left;
            entries.add(entry);
            if (entry.at < armedAt) arm(entry.at, again);
            else if (entries.size === 1) timer?.ref();
          };
        },
      };
    },
    get pending() {
      return entries.size;
    },
  };
}

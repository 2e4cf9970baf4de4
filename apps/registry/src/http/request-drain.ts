import type { ServerResponse } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';

/** What a registry that is closing tells clients to wait before they retry (another instance, or this one restarted). */
export const CLOSING_RETRY_AFTER_SECONDS = 5;

/** Default time `close()` lets requests in flight (publishes above all) finish. */
export const DEFAULT_DRAIN_TIMEOUT_MS = 10_000;

/** After the drain times out and aborts what is left, how long aborted work gets to clean up. */
export const DEFAULT_ABORT_GRACE_MS = 5_000;

export interface DrainOptions {
  /** How long requests in flight may take to finish. Default 10 s. */
  timeoutMs?: number;
  /** How long aborted requests get to clean up after that. Default 5 s. */
  abortGraceMs?: number;
}

export interface DrainReport {
  /** Requests in flight when the drain began. */
  inFlight: number;
  /** Requests still running at the timeout, told to give up. */
  aborted: number;
  /** Requests still running after the abort grace too; the caller closes their connections. */
  abandoned: number;
}

/**
 * The registry's side of a graceful stop: counts requests in flight (the handler's work and
 * the response, so a tarball download counts until it is sent), turns new ones away once a
 * drain begins, and aborts `signal` for the work a drain runs out of time for.
 */
export interface RequestDrain {
  /** Aborted when a drain times out: publishes still running give up and remove their blob. */
  readonly signal: AbortSignal;
  /** True from the moment `drain` is called. */
  isDraining(): boolean;
  /** Counts one request until `work` settles and `response` closes. */
  track(work: Promise<unknown>, response: ServerResponse): void;
  /** Stops taking requests and waits for those in flight (see DrainOptions). Calling it again joins the first drain. */
  drain(options?: DrainOptions): Promise<DrainReport>;
}

export function createRequestDrain(): RequestDrain {
  const controller = new AbortController();
  const inFlight = new Map<Promise<void>, ServerResponse>();
  let draining: Promise<DrainReport> | undefined;

  const waitForAll = async (ms: number): Promise<boolean> => {
    if (inFlight.size === 0) return true;
    const timer = new AbortController();
    const settled = Promise.allSettled([...inFlight.keys()]).then(() => true);
    const timedOut = sleep(ms, false, { signal: timer.signal }).catch(() => false);
    const result = await Promise.race([settled, timedOut]);
    timer.abort();
    // Requests that finished while we waited are gone; new ones are refused while draining.
    return result || inFlight.size === 0;
  };

  const run = async (options: DrainOptions): Promise<DrainReport> => {
    const report: DrainReport = { inFlight: inFlight.size, aborted: 0, abandoned: 0 };
    // Answers still to be written go out with `Connection: close`, so no client reuses a
    // connection to a server that is going away.
    for (const response of inFlight.values())
      if (!response.headersSent) response.shouldKeepAlive = false;
    if (await waitForAll(options.timeoutMs ?? DEFAULT_DRAIN_TIMEOUT_MS)) return report;
    report.aborted = inFlight.size;
    controller.abort();
    if (await waitForAll(options.abortGraceMs ?? DEFAULT_ABORT_GRACE_MS)) return report;
    report.abandoned = inFlight.size;
    return report;
  };

  return {
    signal: controller.signal,
    isDraining: () => draining !== undefined,
    track(work, response) {
      const closed = new Promise<void>((resolve) => {
        if (response.destroyed || response.writableFinished) resolve();
        else response.once('close', () => resolve());
      });
      const done: Promise<void> = Promise.allSettled([work, closed]).then(() => {
        inFlight.delete(done);
      });
      inFlight.set(done, response);
    },
    drain(options = {}) {
      draining ??= run(options);
      return draining;
    },
  };
}

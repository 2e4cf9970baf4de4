import type { ToolProgress } from './runner-types.ts';

/**
 * Coalesces a call's progress reports with a token bucket: up to `burst` reports go out at
 * once, then one every `intervalMs`, each time the latest held back. A tool that reports a
 * few times is relayed report for report; a loop reporting ten thousand times a second costs
 * the client `burst` notifications and then one per interval, and never hides where the tool
 * has got to.
 */
export interface ProgressThrottle {
  push(progress: ToolProgress): void;
  /** Sends the report still held back (before the answer, so the client sees the last one). */
  flush(): void;
  /** Forgets the held report and its timer (the call was answered). */
  cancel(): void;
}

export interface ProgressThrottleOptions {
  intervalMs: number;
  burst: number;
}

export function createProgressThrottle(
  send: (progress: ToolProgress) => void,
  options: ProgressThrottleOptions,
): ProgressThrottle {
  const { intervalMs, burst } = options;
  let tokens = burst;
  let refilledAt = performance.now();
  let held: ToolProgress | undefined;
  let timer: NodeJS.Timeout | undefined;

  const refill = (): void => {
    const now = performance.now();
    const earned = Math.floor((now - refilledAt) / intervalMs);
    if (earned <= 0) return;
    tokens = Math.min(burst, tokens + earned);
    refilledAt = tokens === burst ? now : refilledAt + earned * intervalMs;
  };

  const sendHeld = (): void => {
    if (held === undefined) return;
    const progress = held;
    held = undefined;
    send(progress);
  };

  const onTimer = (): void => {
    timer = undefined;
    refill();
    tokens = Math.max(0, tokens - 1);
    sendHeld();
  };

  return {
    push(progress) {
      held = progress;
      if (timer !== undefined) return;
      refill();
      if (tokens >= 1) {
        tokens -= 1;
        sendHeld();
        return;
      }
      timer = setTimeout(onTimer, Math.max(1, refilledAt + intervalMs - performance.now()));
      timer.unref();
    },
    flush() {
      clearTimeout(timer);
      timer = undefined;
      sendHeld();
    },
    cancel() {
      clearTimeout(timer);
      timer = undefined;
      held = undefined;
    },
  };
}

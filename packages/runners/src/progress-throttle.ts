import type { ToolProgress } from './runner-types.ts';

/**
 * Coalesces a call's progress reports: the first goes out at once, then at most one every
 * `intervalMs`, always the latest, so a loop reporting ten thousand times a second costs the
 * client a handful of notifications and never hides where the tool has got to.
 */
export interface ProgressThrottle {
  push(progress: ToolProgress): void;
  /** Sends the report still held back (before the answer, so the client sees the last one). */
  flush(): void;
  /** Forgets the held report and its timer (the call was answered). */
  cancel(): void;
}

export function createProgressThrottle(
  send: (progress: ToolProgress) => void,
  intervalMs: number,
): ProgressThrottle {
  let held: ToolProgress | undefined;
  let lastSentAt = Number.NEGATIVE_INFINITY;
  let timer: NodeJS.Timeout | undefined;

  const sendHeld = (): void => {
    timer = undefined;
    if (held === undefined) return;
    const progress = held;
    held = undefined;
    lastSentAt = performance.now();
    send(progress);
  };

  return {
    push(progress) {
      held = progress;
      if (timer !== undefined) return;
      const wait = lastSentAt + intervalMs - performance.now();
      if (wait <= 0) {
        sendHeld();
        return;
      }
      timer = setTimeout(sendHeld, wait);
      timer.unref();
    },
    flush() {
      clearTimeout(timer);
      sendHeld();
    },
    cancel() {
      clearTimeout(timer);
      timer = undefined;
      held = undefined;
    },
  };
}

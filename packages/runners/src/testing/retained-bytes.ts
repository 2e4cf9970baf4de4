import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/**
 * Bytes this thread's isolate still holds after a full collection: the V8 heap plus the
 * memory behind Buffers. Unlike RSS it does not depend on when V8 chose to collect or on
 * what the allocator kept for reuse, so "the runner does not hold a flood" stays true on a
 * loaded machine. A module's child process is not included; it has its own limits.
 */
export function retainedBytes(): number {
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as () => void;
  // One collection can leave a freed flood's Buffer memory counted (16 MB of 100 MB seen
  // after the first, 0.6 MB after the second): the memory behind a Buffer is released by a
  // weak callback that runs after the collection that found it dead. Collect until a pass
  // frees nothing more, at most five times.
  let retained = Number.POSITIVE_INFINITY;
  for (let pass = 0; pass < 5; pass++) {
    gc();
    const usage = process.memoryUsage();
    const now = usage.heapUsed + usage.external;
    if (now >= retained) return now;
    retained = now;
  }
  return retained;
}

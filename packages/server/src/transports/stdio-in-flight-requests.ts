export interface InFlightRequests {
  /** A message that got past the guard: a request starts being in flight, a cancellation ends it. */
  noteIncoming(message: Record<string, unknown>): void;
  /** A message the server sent: an answer ends its request. */
  noteOutgoing(message: unknown): void;
  /** Resolves once no request is in flight (at once when none is). */
  whenAllAnswered(): Promise<void>;
}

/** 1 and "1" are different ids in JSON-RPC. */
function keyOf(id: unknown): string {
  return JSON.stringify(id);
}

/**
 * Counts the client's requests the server has not answered yet, so stdio can wait for them at
 * the end of input. The server's own requests to the client (sampling, elicitation) and the
 * client's answers to them carry ids too, but only a client request with a method counts.
 */
export function createInFlightRequests(): InFlightRequests {
  const pending = new Set<string>();
  let waiters: (() => void)[] = [];
  const settle = (key: string) => {
    if (!pending.delete(key) || pending.size > 0) return;
    const ready = waiters;
    waiters = [];
    for (const wake of ready) wake();
  };
  return {
    noteIncoming(message) {
      if (typeof message.method !== 'string') return;
      if ('id' in message) {
        pending.add(keyOf(message.id));
        return;
      }
      // A cancelled request is never answered (MCP): stop waiting for it.
      if (message.method === 'notifications/cancelled') {
        const params = message.params as { requestId?: unknown } | undefined;
        if (params?.requestId !== undefined) settle(keyOf(params.requestId));
      }
    },
    noteOutgoing(message) {
      if (typeof message !== 'object' || message === null) return;
      const reply = message as Record<string, unknown>;
      if ('method' in reply || !('id' in reply)) return;
      if ('result' in reply || 'error' in reply) settle(keyOf(reply.id));
    },
    whenAllAnswered() {
      if (pending.size === 0) return Promise.resolve();
      return new Promise((resolve) => waiters.push(resolve));
    },
  };
}

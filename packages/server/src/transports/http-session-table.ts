/** What the table needs of one 2025-era session: a way to end it. */
export interface SessionEntry {
  close(): Promise<void>;
}

export interface SessionTableOptions {
  /** Sessions at most; a new one evicts the idlest idle session, or is refused. */
  maxSessions: number;
  /** A session without a request in flight for this long is closed. */
  idleTimeoutMs: number;
  onError(error: unknown): void;
}

export interface SessionTable<T extends SessionEntry> {
  get(id: string): T | undefined;
  readonly size: number;
  /**
   * Room for one more session: true when there is (possibly after evicting the session idle
   * the longest), false when every session has a request in flight.
   */
  makeRoom(): boolean;
  add(id: string, entry: T): void;
  /** Forgets a session its client closed (DELETE); does not close it again. */
  remove(id: string): void;
  /** Marks a request of `id` in flight until the returned function is called. */
  begin(id: string): () => void;
  /** Closes and forgets every session. */
  close(): Promise<void>;
}

interface Slot<T> {
  entry: T;
  inFlight: number;
  lastActive: number;
}

/**
 * The open 2025-era HTTP sessions. Clients that crash never send DELETE, and `initialize`
 * is free to send: without expiry 256 of them filled the table and every later client got
 * 503 until a restart. Idle sessions expire; a full table evicts the session idle longest,
 * never one with a request in flight (an open GET stream counts as one).
 */
export function createSessionTable<T extends SessionEntry>(
  options: SessionTableOptions,
): SessionTable<T> {
  const slots = new Map<string, Slot<T>>();
  const evict = (id: string, slot: Slot<T>) => {
    slots.delete(id);
    slot.entry.close().catch(options.onError);
  };
  const findIdlest = (except?: string): [string, Slot<T>] | undefined => {
    let idlest: [string, Slot<T>] | undefined;
    for (const pair of slots) {
      if (pair[1].inFlight > 0 || pair[0] === except) continue;
      if (idlest === undefined || pair[1].lastActive < idlest[1].lastActive) idlest = pair;
    }
    return idlest;
  };
  const sweep = () => {
    const now = performance.now();
    for (const [id, slot] of slots) {
      if (slot.inFlight === 0 && now - slot.lastActive >= options.idleTimeoutMs) evict(id, slot);
    }
  };
  const timer = setInterval(sweep, Math.max(100, Math.min(options.idleTimeoutMs / 4, 30_000)));
  timer.unref();

  return {
    get: (id) => slots.get(id)?.entry,
    get size() {
      return slots.size;
    },
    makeRoom() {
      if (slots.size < options.maxSessions) return true;
      sweep();
      if (slots.size < options.maxSessions) return true;
      const idlest = findIdlest();
      if (idlest === undefined) return false;
      evict(...idlest);
      return true;
    },
    add(id, entry) {
      slots.set(id, { entry, inFlight: 0, lastActive: performance.now() });
      // Initializes that arrived together all found room before any was added.
      while (slots.size > options.maxSessions) {
        const idlest = findIdlest(id);
        if (idlest === undefined) break;
        evict(...idlest);
      }
    },
    remove(id) {
      slots.delete(id);
    },
    begin(id) {
      const slot = slots.get(id);
      if (slot === undefined) return () => undefined;
      slot.inFlight += 1;
      let ended = false;
      return () => {
        if (ended) return;
        ended = true;
        slot.inFlight -= 1;
        slot.lastActive = performance.now();
      };
    },
    async close() {
      clearInterval(timer);
      const open = [...slots.values()];
      slots.clear();
      await Promise.allSettled(open.map((slot) => slot.entry.close()));
    },
  };
}

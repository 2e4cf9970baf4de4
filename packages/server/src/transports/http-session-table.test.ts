import { afterEach, describe, expect, it } from 'vitest';
import { createSessionTable, type SessionTable } from './http-session-table.ts';

interface FakeSession {
  closed: boolean;
  close(): Promise<void>;
}

const fake = (): FakeSession => {
  const session: FakeSession = {
    closed: false,
    close: async () => {
      session.closed = true;
    },
  };
  return session;
};

describe('createSessionTable', () => {
  let table: SessionTable<FakeSession> | undefined;
  afterEach(async () => {
    await table?.close();
  });

  it('makes room by closing the session idle the longest, never one with a request in flight', () => {
    table = createSessionTable<FakeSession>({
      maxSessions: 3,
      idleTimeoutMs: 3_600_000,
      onError: () => undefined,
    });
    const [a, b, c] = [fake(), fake(), fake()];
    table.add('a', a);
    table.add('b', b);
    table.add('c', c);
    const endA = table.begin('a');
    expect(table.makeRoom()).toBe(true);
    expect([a.closed, b.closed, c.closed]).toEqual([false, true, false]);
    expect(table.get('b')).toBeUndefined();
    table.begin('c');
    table.add('d', fake());
    table.begin('d');
    expect(table.makeRoom()).toBe(false);
    endA();
    expect(table.makeRoom()).toBe(true);
    expect(a.closed).toBe(true);
  });

  it('evicts down to the limit when initializes that arrived together are added', () => {
    table = createSessionTable<FakeSession>({
      maxSessions: 2,
      idleTimeoutMs: 3_600_000,
      onError: () => undefined,
    });
    const sessions = [fake(), fake(), fake(), fake()];
    sessions.forEach((session, i) => table!.add(String(i), session));
    expect(table.size).toBe(2);
    expect(sessions.map((s) => s.closed)).toEqual([true, true, false, false]);
  });

  it('forgets a session its client deleted without closing it again', () => {
    table = createSessionTable<FakeSession>({
      maxSessions: 2,
      idleTimeoutMs: 3_600_000,
      onError: () => undefined,
    });
    const session = fake();
    table.add('x', session);
    table.remove('x');
    expect(table.get('x')).toBeUndefined();
    expect(session.closed).toBe(false);
  });
});

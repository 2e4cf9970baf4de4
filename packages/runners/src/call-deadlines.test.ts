import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createCallDeadlines } from './call-deadlines.ts';

describe('createCallDeadlines', () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('expires each deadline at its own time, a shorter one started later first', () => {
    const deadlines = createCallDeadlines();
    const expired: string[] = [];
    deadlines.start(1_000, () => expired.push('long'));
    vi.advanceTimersByTime(100);
    deadlines.start(200, () => expired.push('short'));
    vi.advanceTimersByTime(199);
    expect(expired).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(expired).toEqual(['short']);
    vi.advanceTimersByTime(699);
    expect(expired).toEqual(['short']);
    vi.advanceTimersByTime(1);
    expect(expired).toEqual(['short', 'long']);
    expect(deadlines.pending).toBe(0);
  });

  it('never fires a cancelled deadline, and fires the ones started after it', () => {
    const deadlines = createCallDeadlines();
    const expired: number[] = [];
    const first = deadlines.start(100, () => expired.push(1));
    first.cancel();
    vi.advanceTimersByTime(50);
    // Started while the timer is still armed for the cancelled one.
    deadlines.start(100, () => expired.push(2));
    vi.advanceTimersByTime(100);
    expect(expired).toEqual([2]);
  });

  it('starts the time again on refresh, however often', () => {
    const deadlines = createCallDeadlines();
    let expired = false;
    const deadline = deadlines.start(100, () => (expired = true));
    for (let i = 0; i < 5; i++) {
      vi.advanceTimersByTime(90);
      deadline.refresh();
    }
    expect(expired).toBe(false);
    vi.advanceTimersByTime(100);
    expect(expired).toBe(true);
  });

  it('holds the event loop open while a deadline is pending, and only then, with one timer', () => {
    vi.useRealTimers();
    const timeouts = () =>
      process.getActiveResourcesInfo().filter((name) => name === 'Timeout').length;
    const before = timeouts();
    const deadlines = createCallDeadlines();
    const a = deadlines.start(60_000, () => undefined);
    expect(timeouts()).toBe(before + 1);
    const b = deadlines.start(60_000, () => undefined);
    expect(timeouts()).toBe(before + 1);
    a.cancel();
    expect(timeouts()).toBe(before + 1);
    b.cancel();
    expect(timeouts()).toBe(before);
    // A new call holds it open again.
    const c = deadlines.start(60_000, () => undefined);
    expect(timeouts()).toBe(before + 1);
    c.cancel();
    expect(timeouts()).toBe(before);
  });

  it('does not run the clock while held, and runs the time that was left after', () => {
    const deadlines = createCallDeadlines();
    const expired: string[] = [];
    const deadline = deadlines.start(1_000, () => expired.push('held'));
    vi.advanceTimersByTime(400);
    const release = deadline.hold();
    const overlapping = deadline.hold();
    vi.advanceTimersByTime(5_000);
    expect(expired).toEqual([]);
    release();
    release();
    vi.advanceTimersByTime(5_000);
    // Still held by the second hold.
    expect(expired).toEqual([]);
    overlapping();
    vi.advanceTimersByTime(599);
    expect(expired).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(expired).toEqual(['held']);
  });

  it('never fires a deadline cancelled while held', () => {
    const deadlines = createCallDeadlines();
    const expired: string[] = [];
    const deadline = deadlines.start(100, () => expired.push('cancelled'));
    const release = deadline.hold();
    deadline.cancel();
    release();
    vi.advanceTimersByTime(1_000);
    expect(expired).toEqual([]);
    expect(deadlines.pending).toBe(0);
  });
});

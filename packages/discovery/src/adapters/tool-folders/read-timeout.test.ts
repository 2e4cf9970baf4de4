import { describe, expect, it } from 'vitest';
import type { Report } from './metadata-report.ts';
import { readTimeout } from './read-timeout.ts';

function read(metadata: Record<string, unknown>) {
  const reports: { code: string; message: string }[] = [];
  const report: Report = (_severity, code, message) => reports.push({ code, message });
  return { ms: readTimeout(metadata, report, () => 1), reports };
}

describe('readTimeout', () => {
  it('reads seconds, durations and milliseconds as whole milliseconds, at least 1', () => {
    expect(read({ timeout: 60 }).ms).toBe(60_000);
    expect(read({ timeout: '2m' }).ms).toBe(120_000);
    expect(read({ timeout: '500 MS' }).ms).toBe(500);
    expect(read({ timeoutMs: 1500 }).ms).toBe(1500);
    expect(read({ timeout_ms: 0.4 }).ms).toBe(1);
    expect(read({}).ms).toBeUndefined();
  });

  it('refuses zero, negative and unreadable values', () => {
    for (const timeout of [0, -1, '0s', 'soon', true]) {
      const { ms, reports } = read({ timeout });
      expect(ms).toBeUndefined();
      expect(reports.map((r) => r.code)).toEqual(['E_METADATA_FIELD']);
    }
  });

  it('prefers timeoutMs over timeout, with a warning', () => {
    const { ms, reports } = read({ timeout: 5, timeoutMs: 250 });
    expect(ms).toBe(250);
    expect(reports.map((r) => r.code)).toEqual(['W_DUPLICATE_KEY']);
  });
});

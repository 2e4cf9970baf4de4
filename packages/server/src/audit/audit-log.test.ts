import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createAuditLog, MAX_AUDITED_KEYS, summarizeArgumentKeys } from './audit-log.ts';

const temp = mkdtempSync(path.join(os.tmpdir(), 'toolpack-audit-'));
afterAll(() => rmSync(temp, { recursive: true, force: true }));

describe('audit log', () => {
  it('lists argument names, sorted, and nothing for non-objects', () => {
    expect(summarizeArgumentKeys({ b: 1, a: 'secret' })).toEqual({ argumentKeys: ['a', 'b'] });
    expect(summarizeArgumentKeys(undefined)).toEqual({ argumentKeys: [] });
    expect(summarizeArgumentKeys(['x'])).toEqual({ argumentKeys: [] });
    expect(summarizeArgumentKeys('x')).toEqual({ argumentKeys: [] });
  });

  it('lists at most 50 clipped names and counts the rest', () => {
    const args: Record<string, number> = { ['k'.repeat(10_000)]: 1 };
    for (let i = 0; i < 100_000; i++) args[`key${i}`] = i;
    const summary = summarizeArgumentKeys(args);
    expect(summary.argumentKeys).toHaveLength(MAX_AUDITED_KEYS);
    expect(summary.moreArgumentKeys).toBe(100_001 - MAX_AUDITED_KEYS);
    expect(JSON.stringify(summary).length).toBeLessThan(2_000);
  });

  it('appends one JSON line per call, creating the folder, with exactly the five fields', async () => {
    const file = path.join(temp, 'nested', 'audit.jsonl');
    const log = createAuditLog(file);
    const entry = {
      time: '2026-01-01T00:00:00.000Z',
      tool: 'x',
      argumentKeys: ['a'],
      outcome: 'ok' as const,
      ms: 3,
    };
    log.record({ ...entry, ...({ args: { a: 'secret' } } as object) });
    log.record({ ...entry, outcome: 'denied' });
    await log.close();
    const again = createAuditLog(file);
    again.record({ ...entry, tool: 'y' });
    await again.close();
    const lines = readFileSync(file, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as unknown);
    expect(lines).toEqual([entry, { ...entry, outcome: 'denied' }, { ...entry, tool: 'y' }]);
    expect(readFileSync(file, 'utf8')).not.toContain('secret');
  });

  it('reports a file it cannot write once, and never throws into a call', async () => {
    const errors: Error[] = [];
    const log = createAuditLog(temp, (error) => errors.push(error));
    log.record({ time: 't', tool: 'x', argumentKeys: [], outcome: 'ok', ms: 1 });
    log.record({ time: 't', tool: 'x', argumentKeys: [], outcome: 'ok', ms: 1 });
    await new Promise((resolve) => setTimeout(resolve, 50));
    await log.close();
    expect(errors).toHaveLength(1);
  });
});

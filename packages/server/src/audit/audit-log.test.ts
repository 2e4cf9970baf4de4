import { execFileSync } from 'node:child_process';
import {
  createWriteStream,
  linkSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
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

  // /proc takes no new file: the open fails as it would on a read-only disk, even for root.
  it.skipIf(process.platform !== 'linux')(
    'reports a file it cannot write once, and never throws into a call',
    async () => {
      const errors: Error[] = [];
      const log = createAuditLog('/proc/toolpack-audit.jsonl', (error) => errors.push(error));
      log.record({ time: 't', tool: 'x', argumentKeys: [], outcome: 'ok', ms: 1 });
      log.record({ time: 't', tool: 'x', argumentKeys: [], outcome: 'ok', ms: 1 });
      await new Promise((resolve) => setTimeout(resolve, 50));
      await log.close();
      expect(errors).toHaveLength(1);
    },
  );

  // What a pack that may write the audit file's folder plants there between two server runs.
  describe('refuses what it must not follow', () => {
    const entry = { time: 't', tool: 'x', argumentKeys: ['$(id)'], outcome: 'ok' as const, ms: 1 };

    it('a symbolic link: opened as before, the line lands in its target (a shell rc file)', async () => {
      const dir = mkdtempSync(path.join(temp, 'planted-'));
      const target = path.join(dir, 'bashrc');
      writeFileSync(target, 'export PATH\n');
      const link = path.join(dir, 'audit.jsonl');
      symlinkSync(target, link);
      // The open the log used before: append, following the link.
      const followed = createWriteStream(link, { flags: 'a', encoding: 'utf8' });
      followed.write(`${JSON.stringify(entry)}\n`);
      await new Promise<void>((resolve) => followed.end(resolve));
      expect(readFileSync(target, 'utf8')).toContain('"$(id)"');
      writeFileSync(target, 'export PATH\n');

      expect(() => createAuditLog(link)).toThrow(
        expect.objectContaining({
          code: 'E_AUDIT_FILE',
          message: expect.stringContaining('symbolic link'),
        }),
      );
      expect(readFileSync(target, 'utf8')).toBe('export PATH\n');
    });

    it.skipIf(process.platform === 'win32')('a FIFO, without waiting for a reader', () => {
      const dir = mkdtempSync(path.join(temp, 'planted-'));
      const fifo = path.join(dir, 'audit.jsonl');
      execFileSync('mkfifo', [fifo]);
      expect(() => createAuditLog(fifo)).toThrow(
        expect.objectContaining({
          code: 'E_AUDIT_FILE',
          message: expect.stringContaining('not a regular file'),
        }),
      );
    });

    it('a folder, which would leave the server without its log', () => {
      const dir = mkdtempSync(path.join(temp, 'planted-'));
      const folder = path.join(dir, 'audit.jsonl');
      mkdirSync(folder);
      expect(() => createAuditLog(folder)).toThrow(
        expect.objectContaining({
          code: 'E_AUDIT_FILE',
          message: expect.stringContaining('not a regular file'),
        }),
      );
    });

    it('a hard link to another file', () => {
      const dir = mkdtempSync(path.join(temp, 'planted-'));
      const other = path.join(dir, 'other');
      writeFileSync(other, 'keep\n');
      const file = path.join(dir, 'audit.jsonl');
      linkSync(other, file);
      expect(() => createAuditLog(file)).toThrow(
        expect.objectContaining({
          code: 'E_AUDIT_FILE',
          message: expect.stringContaining('hard links'),
        }),
      );
      expect(readFileSync(other, 'utf8')).toBe('keep\n');
    });
  });
});

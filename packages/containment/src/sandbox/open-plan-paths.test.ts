import { mkdirSync, mkdtempSync, readlinkSync, realpathSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openPlanPaths } from './open-plan-paths.ts';

let scratch: string;
beforeAll(() => {
  scratch = realpathSync(mkdtempSync(path.join(tmpdir(), 'toolpack-open-plan-')));
});
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe.skipIf(process.platform !== 'linux')('openPlanPaths [needs /proc/self/fd]', () => {
  it('opens each planned path, and leaves out one removed since the plan', () => {
    const kept = path.join(scratch, 'kept');
    mkdirSync(kept);
    const removed = path.join(scratch, 'removed');
    const opened = openPlanPaths({ read: [kept], write: [removed] });
    try {
      const fd = opened.fds.get(kept);
      expect(fd).toEqual(expect.any(Number));
      expect(readlinkSync(`/proc/self/fd/${fd}`)).toBe(kept);
      expect(opened.fds.get(removed)).toBeNull();
    } finally {
      opened.close();
    }
    expect(opened.fds.size).toBe(0);
  });

  it('refuses a planned folder swapped for a symlink since the plan', () => {
    const secret = path.join(scratch, 'secret');
    mkdirSync(secret);
    const swapped = path.join(scratch, 'swapped');
    symlinkSync(secret, swapped);
    expect(() => openPlanPaths({ read: [swapped], write: [] })).toThrow(
      expect.objectContaining({
        code: 'E_SANDBOX_PATH',
        message: expect.stringContaining(`now leads to ${secret}`),
      }),
    );
  });
});

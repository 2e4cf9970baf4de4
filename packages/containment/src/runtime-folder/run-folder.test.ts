import { lstatSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect, it } from 'vitest';
import { openCacheFolder, openRuntimeFolder } from './run-folder.ts';

it.skipIf(process.platform === 'win32')(
  'opens a cache folder of its own in the runtime folder (0700), and refuses a symlink in its place',
  () => {
    const name = `cache-test-${process.pid}`;
    const folder = path.join(openRuntimeFolder(), name);
    const elsewhere = mkdtempSync(path.join(tmpdir(), 'toolpack-cache-elsewhere-'));
    try {
      expect(openCacheFolder(name)).toBe(folder);
      expect(lstatSync(folder).mode & 0o777).toBe(0o700);
      expect(openCacheFolder(name)).toBe(folder);
      rmSync(folder, { recursive: true });
      // Another process of this user planted a link to a folder it chose: never used.
      symlinkSync(elsewhere, folder);
      expect(() => openCacheFolder(name)).toThrow(
        expect.objectContaining({ code: 'E_RUNTIME_FOLDER' }),
      );
    } finally {
      rmSync(folder, { recursive: true, force: true });
      rmSync(elsewhere, { recursive: true, force: true });
    }
  },
);

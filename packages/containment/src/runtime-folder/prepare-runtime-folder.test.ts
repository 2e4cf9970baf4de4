import {
  chmodSync,
  chownSync,
  mkdirSync,
  mkdtempSync,
  realpathSync,
  rmSync,
  statSync,
  symlinkSync,
} from 'node:fs';
import os, { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { locateRuntimeFolder, prepareRuntimeFolder } from './prepare-runtime-folder.ts';

const posix = process.platform !== 'win32';
let scratch: string;
let runtimeDir: string;

beforeEach(() => {
  scratch = realpathSync(mkdtempSync(path.join(tmpdir(), 'toolpack-runtime-')));
  runtimeDir = path.join(scratch, 'run-user');
  mkdirSync(runtimeDir, { mode: 0o700 });
});
afterEach(() => rmSync(scratch, { recursive: true, force: true }));

describe('locateRuntimeFolder', () => {
  it('is $XDG_RUNTIME_DIR/toolpack, else a folder of this user in the temp folder, never the temp folder itself', () => {
    expect(locateRuntimeFolder({ XDG_RUNTIME_DIR: runtimeDir })).toBe(
      path.join(runtimeDir, 'toolpack'),
    );
    const fallback = locateRuntimeFolder({});
    expect(path.dirname(fallback)).toBe(tmpdir());
    expect(path.basename(fallback)).toBe(
      `toolpack-${process.getuid?.() ?? os.userInfo().username}`,
    );
  });
});

describe.skipIf(!posix)('prepareRuntimeFolder', () => {
  const env = () => ({ XDG_RUNTIME_DIR: runtimeDir });
  const folder = () => path.join(runtimeDir, 'toolpack');

  it('creates the folder 0700 and accepts it again', () => {
    expect(prepareRuntimeFolder(env())).toEqual({ folder: folder() });
    expect(statSync(folder()).mode & 0o777).toBe(0o700);
    expect(prepareRuntimeFolder(env())).toEqual({ folder: folder() });
  });

  it('refuses a folder others may use', () => {
    mkdirSync(folder());
    chmodSync(folder(), 0o777);
    expect(prepareRuntimeFolder(env())).toMatchObject({ problem: expect.stringMatching(/777/) });
  });

  it('refuses a symlink in its place (to a folder someone else prepared)', () => {
    const planted = path.join(scratch, 'planted');
    mkdirSync(planted, { mode: 0o700 });
    symlinkSync(planted, folder());
    expect(prepareRuntimeFolder(env())).toMatchObject({
      problem: expect.stringMatching(/symlink/),
    });
  });

  it.skipIf(process.getuid?.() !== 0)(
    'refuses a folder another user made first [needs root to make one]',
    () => {
      mkdirSync(folder(), { mode: 0o700 });
      chownSync(folder(), 4242, 4242);
      expect(prepareRuntimeFolder(env())).toMatchObject({
        problem: expect.stringMatching(/belongs to user 4242/),
      });
    },
  );

  it('refuses a parent others may write that is not sticky (the folder could be swapped)', () => {
    chmodSync(runtimeDir, 0o777);
    expect(prepareRuntimeFolder(env())).toMatchObject({
      problem: expect.stringMatching(/not sticky/),
    });
    chmodSync(runtimeDir, 0o1777);
    expect(prepareRuntimeFolder(env())).toEqual({ folder: folder() });
  });
});

import {
  chmodSync,
  mkdirSync,
  mkdtempSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { findInstallFolder } from './find-install-folder.ts';

let scratch: string;

function makeExecutable(path: string): string {
  mkdirSync(join(path, '..'), { recursive: true });
  writeFileSync(path, '#!/bin/sh\n');
  chmodSync(path, 0o755);
  return path;
}

beforeAll(() => {
  // Real, so that paths resolved through symlinks compare equal (macOS's /var is a symlink).
  scratch = realpathSync(mkdtempSync(join(tmpdir(), 'toolpack-install-folder-')));
});

afterAll(() => rmSync(scratch, { recursive: true, force: true }));

it.skipIf(process.platform === 'win32')(
  'finds the install prefix through symlinks, and a version manager root through its shims [needs POSIX]',
  () => {
    const node = makeExecutable(join(scratch, 'node-v24', 'bin', 'node'));
    mkdirSync(join(scratch, 'links'));
    symlinkSync(node, join(scratch, 'links', 'node'));
    expect(findInstallFolder(join(scratch, 'links', 'node'))).toBe(join(scratch, 'node-v24'));
    const shim = makeExecutable(join(scratch, 'pyenv', 'shims', 'python3'));
    expect(findInstallFolder(shim)).toBe(join(scratch, 'pyenv'));
    const loose = makeExecutable(join(scratch, 'tools', 'basic'));
    expect(findInstallFolder(loose)).toBe(join(scratch, 'tools'));
  },
);

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
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findInterpreterRuntimePaths, findPwshRuntimePaths } from './runtime-paths.ts';

let scratch: string;

function makeExecutable(path: string): string {
  mkdirSync(join(path, '..'), { recursive: true });
  writeFileSync(path, '#!/bin/sh\n');
  chmodSync(path, 0o755);
  return path;
}

beforeAll(() => {
  // Real, so that paths resolved through symlinks compare equal (macOS's /var is a symlink).
  scratch = realpathSync(mkdtempSync(join(tmpdir(), 'toolpack-runtime-paths-')));
});

afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe.skipIf(process.platform === 'win32')('runtime paths of a confined tool', () => {
  it("gives an interpreter's command folder (found on the tool's PATH) and its absolute arguments", () => {
    makeExecutable(join(scratch, 'basic', 'bin', 'basic'));
    const launcher = join(scratch, 'launcher.mjs');
    writeFileSync(launcher, '');
    const paths = findInterpreterRuntimePaths(['basic', launcher, '--run', '/nonexistent/x'], {
      PATH: `/nonexistent:${join(scratch, 'basic', 'bin')}`,
    });
    expect(paths).toEqual([join(scratch, 'basic'), launcher]);
    expect(findInterpreterRuntimePaths(['no-such-interpreter'], { PATH: scratch })).toEqual([]);
  });

  it("gives pwsh's real folder and the .NET runtime a launcher starts", () => {
    const pwsh = makeExecutable(join(scratch, 'powershell', '7', 'pwsh'));
    symlinkSync(pwsh, join(scratch, 'pwsh'));
    const dotnet = makeExecutable(join(scratch, 'share', 'dotnet', 'dotnet'));
    mkdirSync(join(scratch, 'bin'));
    symlinkSync(dotnet, join(scratch, 'bin', 'dotnet'));
    const paths = findPwshRuntimePaths(join(scratch, 'pwsh'), {
      PATH: join(scratch, 'bin'),
      DOTNET_ROOT: join(scratch, 'share', 'dotnet'),
    });
    expect(paths).toEqual(
      expect.arrayContaining([join(scratch, 'powershell', '7'), join(scratch, 'share', 'dotnet')]),
    );
    expect(paths).not.toContain(join(scratch, 'bin'));
  });
});

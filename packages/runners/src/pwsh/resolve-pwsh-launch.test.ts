// Starting the PowerShell host without the .NET global tool's shim: the layout
// `dotnet tool install --global PowerShell` makes is recognised, anything else starts as given,
// and on a machine whose pwsh is that tool, the process started directly is the same pwsh.
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PWSH_TEST_TAG } from '@toolpack/pwsh-probe';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { findExecutable } from '../find-executable.ts';
import { resolvePwshLaunch } from './resolve-pwsh-launch.ts';

const TOOL = '.store/powershell/7.6.9/powershell/7.6.9/tools/net10.0/any';
const platformFolder = process.platform === 'win32' ? 'win' : 'unix';
let scratch: string;

beforeEach(() => {
  scratch = realpathSync(mkdtempSync(join(tmpdir(), 'toolpack-pwsh-launch-')));
});
afterEach(() => rmSync(scratch, { recursive: true, force: true }));

/**
 * The global tool's layout: an apphost `pwsh` whose image names its entry point between NULs
 * (as the SDK writes it into the apphost's placeholder), the shim, and pwsh.dll beside it.
 */
function installGlobalTool(options: { bound?: string; withPwshDll?: boolean } = {}): string {
  const tools = join(scratch, 'tools');
  mkdirSync(join(tools, TOOL, platformFolder), { recursive: true });
  writeFileSync(join(tools, TOOL, 'Microsoft.PowerShell.GlobalTool.Shim.dll'), 'shim');
  if (options.withPwshDll !== false)
    writeFileSync(join(tools, TOOL, platformFolder, 'pwsh.dll'), 'pwsh');
  const bound = options.bound ?? `${TOOL}/Microsoft.PowerShell.GlobalTool.Shim.dll`;
  const apphost = join(tools, 'pwsh');
  writeFileSync(
    apphost,
    Buffer.concat([
      Buffer.from('\x7fELF native code DOTNET_ROOT\0'),
      Buffer.from(`${bound}\0`),
      Buffer.alloc(1024 - bound.length),
      Buffer.from('more native code\0'),
    ]),
  );
  chmodSync(apphost, 0o755);
  return apphost;
}

/** A folder holding an executable `dotnet`, for PATH. */
function installDotnet(): string {
  const folder = join(scratch, 'dotnet');
  mkdirSync(folder);
  writeFileSync(join(folder, 'dotnet'), '#!/bin/sh\n');
  chmodSync(join(folder, 'dotnet'), 0o755);
  return folder;
}

describe('resolvePwshLaunch', () => {
  it.skipIf(process.platform === 'win32')(
    "starts the global tool's pwsh.dll with the dotnet on the host's PATH, without its shim",
    () => {
      const apphost = installGlobalTool();
      const dotnetFolder = installDotnet();
      expect(resolvePwshLaunch(apphost, { PATH: dotnetFolder })).toEqual({
        command: join(dotnetFolder, 'dotnet'),
        args: [join(scratch, 'tools', TOOL, 'unix', 'pwsh.dll')],
      });
    },
  );

  it.skipIf(process.platform === 'win32')('follows a link to the apphost, as PATH gives it', () => {
    const apphost = installGlobalTool();
    const dotnetFolder = installDotnet();
    const bin = join(scratch, 'bin');
    mkdirSync(bin);
    execFileSync('ln', ['-s', apphost, join(bin, 'pwsh')]);
    expect(resolvePwshLaunch(join(bin, 'pwsh'), { PATH: dotnetFolder }).args).toEqual([
      join(scratch, 'tools', TOOL, 'unix', 'pwsh.dll'),
    ]);
  });

  it('starts anything else as given: a native pwsh, a layout missing pwsh.dll, no dotnet on PATH', () => {
    const dotnetFolder = installDotnet();
    const native = join(scratch, 'pwsh-native');
    writeFileSync(native, '\x7fELF a native pwsh, bound to nothing\0');
    expect(resolvePwshLaunch(native, { PATH: dotnetFolder })).toEqual({
      command: native,
      args: [],
    });

    const withoutDll = installGlobalTool({ withPwshDll: false });
    expect(resolvePwshLaunch(withoutDll, { PATH: dotnetFolder })).toEqual({
      command: withoutDll,
      args: [],
    });
    rmSync(join(scratch, 'tools'), { recursive: true });

    const apphost = installGlobalTool();
    expect(resolvePwshLaunch(apphost, { PATH: join(scratch, 'nowhere') })).toEqual({
      command: apphost,
      args: [],
    });
    expect(resolvePwshLaunch(join(scratch, 'missing'), { PATH: dotnetFolder })).toEqual({
      command: join(scratch, 'missing'),
      args: [],
    });
  });

  it('starts as given when the bound entry point is not where the apphost says', () => {
    const apphost = installGlobalTool({
      bound: 'elsewhere/Microsoft.PowerShell.GlobalTool.Shim.dll',
    });
    expect(resolvePwshLaunch(apphost, { PATH: installDotnet() })).toEqual({
      command: apphost,
      args: [],
    });
  });

  const pwshOnPath = findExecutable('pwsh', process.env);
  const environment = { PATH: process.env.PATH ?? '' };
  const launch = pwshOnPath === undefined ? undefined : resolvePwshLaunch(pwshOnPath, environment);
  it.skipIf(launch === undefined || launch.args.length === 0)(
    `on this machine's global-tool pwsh, the direct start is the same PowerShell ${PWSH_TEST_TAG} [needs the pwsh .NET global tool]`,
    () => {
      const report = '"$($PSVersionTable.PSVersion) $PSHOME $([Environment]::ProcessPath)"';
      const args = ['-NoLogo', '-NoProfile', '-NonInteractive', '-Command', report];
      const viaShim = execFileSync(pwshOnPath!, args, { encoding: 'utf8' }).trim().split(' ');
      const direct = execFileSync(launch!.command, [...launch!.args, ...args], {
        encoding: 'utf8',
      })
        .trim()
        .split(' ');
      // Version and PSHOME (modules, types, formats) alike; the process is dotnet either way.
      expect(direct).toEqual(viaShim);
      expect(realpathSync(direct[2]!)).toBe(realpathSync(launch!.command));
    },
  );
});

import { closeSync, existsSync, openSync, readSync, realpathSync, statSync } from 'node:fs';
import { dirname, isAbsolute, join } from 'node:path';
import { findExecutable } from '../find-executable.ts';

/** How a PowerShell host process is started: `command`, then `args`, then pwsh's own arguments. */
export interface PwshLaunch {
  command: string;
  args: string[];
}

/** The managed entry point `dotnet tool install --global PowerShell` binds its `pwsh` to. */
const GLOBAL_TOOL_SHIM = 'Microsoft.PowerShell.GlobalTool.Shim.dll';

/** An apphost is a small native file; anything larger is a full pwsh, not worth reading. */
const MAX_APPHOST_BYTES = 4 * 1024 * 1024;

/**
 * How to start `pwshPath`. The `pwsh` of the .NET global tool is an apphost bound to
 * PowerShell's shim, a .NET program that starts `dotnet <tool>/unix/pwsh.dll` (`win\` on
 * Windows) with the same arguments, with `dotnet` from PATH, and waits for it: two .NET
 * start-ups in a row before the host's first line, and the shim resident beside the host
 * for as long as it runs. Started as that second process directly, the host is the same
 * program with the same arguments and environment, one runtime start sooner and one process
 * lighter. Anything else (a native install, a missing piece of the layout) starts as given.
 */
export function resolvePwshLaunch(
  pwshPath: string,
  environment: Readonly<Record<string, string>>,
): PwshLaunch {
  const asGiven: PwshLaunch = { command: pwshPath, args: [] };
  let apphost: string;
  try {
    apphost = realpathSync(pwshPath);
  } catch {
    return asGiven;
  }
  const shim = readBoundShim(apphost);
  if (shim === undefined) return asGiven;
  const pwshDll = join(dirname(shim), process.platform === 'win32' ? 'win' : 'unix', 'pwsh.dll');
  // The shim starts `dotnet` by name: the one on the PATH the host is given.
  const dotnet = findExecutable('dotnet', environment);
  if (!existsSync(pwshDll) || dotnet === undefined) return asGiven;
  return { command: dotnet, args: [pwshDll] };
}

/**
 * The shim an apphost is bound to, or undefined when it is not PowerShell's global tool: the
 * apphost carries the path of its managed entry point, relative to its own folder, as a
 * NUL-terminated string in its image.
 */
function readBoundShim(apphost: string): string | undefined {
  let image: Buffer;
  try {
    const size = statSync(apphost).size;
    if (size > MAX_APPHOST_BYTES) return undefined;
    image = Buffer.alloc(size);
    const descriptor = openSync(apphost, 'r');
    try {
      readSync(descriptor, image, 0, size, 0);
    } finally {
      closeSync(descriptor);
    }
  } catch {
    return undefined;
  }
  const end = image.indexOf(`${GLOBAL_TOOL_SHIM}\0`, 0, 'utf8');
  if (end === -1) return undefined;
  const start = image.lastIndexOf(0, end) + 1;
  const bound = image.toString('utf8', start, end + GLOBAL_TOOL_SHIM.length);
  const shim = isAbsolute(bound) ? bound : join(dirname(apphost), bound);
  return existsSync(shim) ? shim : undefined;
}

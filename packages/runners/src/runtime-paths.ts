import { existsSync, realpathSync } from 'node:fs';
import { dirname, isAbsolute } from 'node:path';
import { findInstallFolder } from '@toolpack/containment';
import { findExecutable } from './find-executable.ts';

/**
 * What an interpreter's argv prefix needs to start inside a sandbox: the install folder of
 * its command (found on the tool's PATH), and every absolute path among its arguments (a
 * launcher script such as `['node', '/opt/basic/run.mjs']`).
 */
export function findInterpreterRuntimePaths(
  argv: readonly string[],
  environment: Readonly<Record<string, string>>,
): string[] {
  const [command = '', ...args] = argv;
  const paths: string[] = [];
  const executable = findExecutable(command, environment);
  if (executable !== undefined) paths.push(findInstallFolder(executable));
  for (const arg of args) if (isAbsolute(arg) && existsSync(arg)) paths.push(arg);
  return paths;
}

/**
 * What pwsh needs to start inside a sandbox: the real folder of the executable (a full install
 * keeps its assemblies there; a framework-dependent launcher keeps pwsh.dll there), and the
 * .NET runtime such a launcher looks for: `DOTNET_ROOT`, the folder of the `dotnet` on the
 * tool's PATH, and `/etc/dotnet` (where an install records its location).
 */
export function findPwshRuntimePaths(
  pwshPath: string,
  environment: Readonly<Record<string, string>>,
): string[] {
  const paths: string[] = [];
  try {
    paths.push(dirname(realpathSync(pwshPath)));
  } catch {
    paths.push(dirname(pwshPath));
  }
  const dotnetRoot = environment.DOTNET_ROOT;
  if (dotnetRoot !== undefined && isAbsolute(dotnetRoot) && existsSync(dotnetRoot))
    paths.push(dotnetRoot);
  const dotnet = findExecutable('dotnet', environment);
  if (dotnet !== undefined) paths.push(dirname(realpathSync(dotnet)));
  if (existsSync('/etc/dotnet')) paths.push('/etc/dotnet');
  return paths;
}

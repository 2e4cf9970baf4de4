// Test support: how a machine without PowerShell looks to mcp, on any machine.
import path from 'node:path';
import { findOnPath } from '../find-on-path.ts';

/** This process's environment with the PATH folders that hold a `pwsh` left out. */
export function withoutPwsh(env: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  const dirs = (env.PATH ?? '').split(path.delimiter);
  return {
    ...env,
    PATH: dirs
      .filter((dir) => findOnPath('pwsh', { ...env, PATH: dir }) === undefined)
      .join(path.delimiter),
  };
}

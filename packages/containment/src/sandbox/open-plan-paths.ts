import { closeSync, constants, openSync, readlinkSync } from 'node:fs';
import { ToolpackError } from '@toolpack/core';
import type { SandboxPlan } from './plan-sandbox.ts';

/** The plan's paths opened for bwrap's `--ro-bind-fd`/`--bind-fd`, by path. */
export interface OpenedPlanPaths {
  /** An open fd of this process, or null for a path removed since the plan (left out). */
  readonly fds: ReadonlyMap<string, number | null>;
  /** Closes this process's copies (once the child has been spawned with its own). */
  close(): void;
}

/**
 * Opens each path of the plan and checks that the opened file is still the planned real path.
 * bwrap follows symlinks in what it binds by name: a tool with a writable project, running
 * twice at once, could swap a planned folder for a link to ~/.ssh between the plan and the
 * start of its other instance. Bound by fd, the sandbox gets what was checked.
 * A path removed since the plan was made is left out (as `--bind-try` would); one that cannot
 * be opened (a socket) is left to a bind by name. Throws `E_SANDBOX_PATH` for a swapped path.
 */
export function openPlanPaths(plan: Pick<SandboxPlan, 'read' | 'write'>): OpenedPlanPaths {
  const fds = new Map<string, number | null>();
  const close = () => {
    for (const fd of fds.values()) if (fd !== null) closeSync(fd);
    fds.clear();
  };
  try {
    for (const planned of [...plan.read, ...plan.write]) {
      let fd: number;
      try {
        fd = openSync(planned, constants.O_RDONLY | constants.O_NOCTTY | constants.O_NONBLOCK);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') fds.set(planned, null);
        continue;
      }
      fds.set(planned, fd);
      const opened = readlinkSync(`/proc/self/fd/${fd}`);
      if (opened !== planned) {
        throw new ToolpackError(
          'E_SANDBOX_PATH',
          `${planned} changed since its sandbox was planned: it now leads to ${opened}.`,
          {
            hint: 'A tool with write access may have replaced a folder with a symlink; check the folder, and plan the sandbox again.',
          },
        );
      }
    }
  } catch (error) {
    close();
    throw error;
  }
  return { fds, close };
}

import { spawnSync } from 'node:child_process';
import { ToolpackError } from '@toolpack/core';
import { findSystemTool } from '../find-system-tool.ts';
import { buildSandboxArgv } from './build-sandbox-argv.ts';

/** The variable that turns the OS sandbox off (`off`) or leaves it to the probe (`auto`). */
export const SANDBOX_ENV_VARIABLE = 'TOOLPACK_SANDBOX';

/** What `TOOLPACK_SANDBOX` may ask for: `auto` (the default) uses bubblewrap where it works. */
export type SandboxRequest = 'auto' | 'off';

const REQUESTS: readonly SandboxRequest[] = ['auto', 'off'];

/** Whether confined tools run under the OS sandbox here, and one sentence saying why (not). */
export interface SandboxDescription {
  available: boolean;
  reason: string;
}

/** The answer of the one real try of bwrap per process. */
export interface SandboxProbe extends SandboxDescription {
  /** The absolute path of bwrap, when it was found. */
  bwrap?: string;
}

let probed: SandboxProbe | undefined;

/** Reads `TOOLPACK_SANDBOX`; a wrong value is an error, never a silent choice of either. */
export function readSandboxRequest(environment: NodeJS.ProcessEnv = process.env): SandboxRequest {
  const raw = environment[SANDBOX_ENV_VARIABLE]?.trim().toLowerCase();
  if (raw === undefined || raw === '') return 'auto';
  if ((REQUESTS as readonly string[]).includes(raw)) return raw as SandboxRequest;
  throw new ToolpackError(
    'E_CONTAINMENT_MODE',
    `${SANDBOX_ENV_VARIABLE}=${environment[SANDBOX_ENV_VARIABLE]} is not a sandbox setting.`,
    { hint: `Use ${REQUESTS.join(' or ')} (or leave it unset for auto).` },
  );
}

/**
 * Tries bwrap once per process, with the namespaces and system binds every confined child
 * gets, running `true` (about 10 ms), and remembers the answer. Ignores `TOOLPACK_SANDBOX`:
 * `resolveSandbox` and `describeSandbox` read that on every call.
 */
export function probeSandbox(): SandboxProbe {
  probed ??= runSandboxProbe();
  return probed;
}

function runSandboxProbe(): SandboxProbe {
  if (process.platform !== 'linux') {
    return {
      available: false,
      reason: `the sandbox (bubblewrap) is Linux-only; this is ${process.platform}`,
    };
  }
  // The fixed system folders only: a bwrap found on a project's or a user's PATH could be anything.
  const bwrap = findSystemTool('bwrap', '');
  if (bwrap === undefined) {
    return {
      available: false,
      reason:
        'bwrap was not found in /usr/bin, /bin, /usr/sbin or /sbin: install the bubblewrap package',
    };
  }
  const truePath = findSystemTool('true', '');
  if (truePath === undefined)
    return { available: false, bwrap, reason: 'the sandbox probe found no `true` program to run' };
  const argv = buildSandboxArgv({
    plan: { read: [], write: [], network: false, cwd: '/' },
    command: truePath,
    args: [],
  });
  const check = spawnSync(bwrap, argv, {
    encoding: 'utf8',
    timeout: 5_000,
    stdio: ['ignore', 'ignore', 'pipe'],
    env: {},
  });
  if (check.error !== undefined) {
    return {
      available: false,
      bwrap,
      reason: `the sandbox probe could not run ${bwrap}: ${check.error.message}`,
    };
  }
  if (check.status !== 0) {
    const why = check.stderr.trim().split('\n').slice(-1)[0] ?? '';
    return {
      available: false,
      bwrap,
      reason: `${bwrap} cannot create its namespaces here (${why || `exit ${check.status ?? check.signal}`}); unprivileged user namespaces may be refused (AppArmor's userns restriction, kernel.unprivileged_userns_clone=0, a container without them)`,
    };
  }
  return {
    available: true,
    bwrap,
    reason: `${bwrap} confines pack tools to what they declared`,
  };
}

/** The bwrap to run a confined child with, or why there is none (`TOOLPACK_SANDBOX` first). */
export function resolveSandbox(environment: NodeJS.ProcessEnv = process.env): SandboxProbe {
  if (readSandboxRequest(environment) === 'off') {
    return {
      available: false,
      reason: `${SANDBOX_ENV_VARIABLE}=off turns the sandbox off: confined tools run with the user's full rights`,
    };
  }
  return probeSandbox();
}

/**
 * Whether confined tools (pack tools, sources with `sandbox: true`) run under the OS sandbox
 * for a process with this environment, and why (not): what `mcp doctor` and `mcp pack add`
 * print. Never throws: a wrong `TOOLPACK_SANDBOX` is `available: false` with the reason.
 * The probe behind it runs once per process.
 */
export function describeSandbox(environment: NodeJS.ProcessEnv = process.env): SandboxDescription {
  try {
    const { available, reason } = resolveSandbox(environment);
    return { available, reason };
  } catch (error) {
    return { available: false, reason: error instanceof Error ? error.message : String(error) };
  }
}

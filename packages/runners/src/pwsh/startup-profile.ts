import { createHash, randomBytes } from 'node:crypto';
import {
  constants,
  copyFileSync,
  existsSync,
  lstatSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  renameSync,
  rmSync,
  statSync,
} from 'node:fs';
import { dirname, join } from 'node:path';
import {
  describeSandbox,
  openCacheFolder,
  planSandbox,
  type SandboxHomeFile,
  type SandboxPlan,
} from '@toolpack/containment';
import { LEAST_PERMISSIONS } from '@toolpack/core';
import { resolveWarmUpFolder } from '../asset-paths.ts';
import { findPwshRuntimePaths } from '../runtime-paths.ts';
import { startPwshHost } from './pwsh-host.ts';

/** Where pwsh started with `-NonInteractive` reads its startup profile, relative to HOME. */
export const PROFILE_HOME_TARGET = '.cache/powershell/StartupProfileData-NonInteractive';

/** Where pwsh writes it under `XDG_CACHE_HOME`. */
const PROFILE_CACHE_TARGET = 'powershell/StartupProfileData-NonInteractive';

const CACHE_FOLDER_NAME = 'pwsh-startup-profiles';

/** Variables of the server's own environment the warm-up keeps: what finds pwsh and .NET. */
const WARM_UP_VARIABLES = ['PATH', 'DOTNET_ROOT', 'LANG', 'LC_ALL'];

export interface StartupProfileOptions {
  pwshPath: string;
  hostScriptPath: string;
  /** The server's project-wide environment (never a pack's): the warm-up keeps PATH and .NET's. */
  environment: Readonly<Record<string, string>>;
  startTimeoutMs: number;
  /** Where profiles are kept; default Toolpack's private runtime folder's `pwsh-startup-profiles`. */
  cacheFolder?: string;
  /** Why a warm-up failed (once per key and process). */
  onDebug?(message: string): void;
}

/** Warm-ups under way, and keys whose warm-up failed in this process (retried next run). */
const running = new Map<string, Promise<string | undefined>>();
const failed = new Set<string>();

/**
 * The home file that gives a confined PowerShell host .NET's startup profile, or undefined
 * when there is none yet, in which case the warm-up that makes it starts in the background
 * (once per profile, never twice at once).
 *
 * Why not the user's own `~/.cache/powershell` profile: that is an unconfined pwsh's cache,
 * and nothing an unconfined process caches is reachable from a sandbox. This one is recorded
 * by a confined pwsh that runs only Toolpack's host and `assets/warm-up`, written where no
 * sandbox can write (the private runtime folder), and bound read-only into pack sandboxes, so
 * no pack's run writes a profile another run reads; no unconfined process reads it.
 */
export function findStartupProfile(options: StartupProfileOptions): SandboxHomeFile | undefined {
  let file: string;
  try {
    file = locateStartupProfile(options);
  } catch (error) {
    options.onDebug?.(`PowerShell startup profile: ${(error as Error).message}`);
    return undefined;
  }
  if (existsSync(file)) return { source: file, target: PROFILE_HOME_TARGET };
  void prepareStartupProfile(options);
  return undefined;
}

/**
 * Records the startup profile if it is missing (`findStartupProfile`); resolves to its path,
 * or undefined when it cannot be made here (no sandbox, a failed warm-up).
 */
export function prepareStartupProfile(options: StartupProfileOptions): Promise<string | undefined> {
  let file: string;
  try {
    file = locateStartupProfile(options);
  } catch (error) {
    options.onDebug?.(`PowerShell startup profile: ${(error as Error).message}`);
    return Promise.resolve(undefined);
  }
  if (existsSync(file)) return Promise.resolve(file);
  if (failed.has(file)) return Promise.resolve(undefined);
  let warming = running.get(file);
  if (warming === undefined) {
    warming = recordStartupProfile(options, file).then(
      () => file,
      (error: unknown) => {
        failed.add(file);
        options.onDebug?.(
          `PowerShell startup profile warm-up failed (retried at the next start): ${(error as Error).message}`,
        );
        return undefined;
      },
    );
    running.set(file, warming);
    void warming.finally(() => running.delete(file));
  }
  return warming;
}

/**
 * The profile's path in the cache: one per pwsh install (its real path, size and time) and
 * host script (its content), since a profile lists methods of that runtime and that script.
 */
export function locateStartupProfile(
  options: Pick<StartupProfileOptions, 'pwshPath' | 'hostScriptPath' | 'cacheFolder'>,
): string {
  const pwsh = realpathSync(options.pwshPath);
  const hash = createHash('sha256').update(pwsh);
  for (const file of [pwsh, join(dirname(pwsh), 'System.Management.Automation.dll')]) {
    if (!existsSync(file)) continue;
    const stats = statSync(file);
    hash.update(`\0${file}\0${stats.size}\0${stats.mtimeMs}`);
  }
  hash.update('\0').update(readFileSync(options.hostScriptPath));
  const folder = options.cacheFolder ?? openCacheFolder(CACHE_FOLDER_NAME);
  return join(folder, `${hash.digest('hex').slice(0, 32)}.profile`);
}

export interface PlanWarmUpSandboxOptions {
  pwshPath: string;
  hostScriptPath: string;
  environment: Readonly<Record<string, string>>;
  /** The host's channel folder. */
  socketFolder: string;
  /** The fresh folder the warm-up's pwsh writes its profile in (its `XDG_CACHE_HOME`). */
  outputFolder: string;
}

/**
 * The warm-up's sandbox: its own folder is Toolpack's `assets/warm-up` (the project is not
 * granted, so no pack's or project's code is in reach), and it may write only the channel's
 * folder and its own fresh output folder.
 */
export function planWarmUpSandbox(options: PlanWarmUpSandboxOptions): SandboxPlan {
  const warmUpFolder = resolveWarmUpFolder();
  return planSandbox({
    sandbox: { root: warmUpFolder, permissions: LEAST_PERMISSIONS },
    projectRoot: warmUpFolder,
    runtimePaths: [
      ...findPwshRuntimePaths(options.pwshPath, options.environment),
      dirname(options.hostScriptPath),
    ],
    writableRuntimePaths: [options.socketFolder, options.outputFolder],
  });
}

async function recordStartupProfile(options: StartupProfileOptions, file: string): Promise<void> {
  const sandbox = describeSandbox();
  if (!sandbox.available) throw new Error(`no sandbox here (${sandbox.reason})`);
  const cacheFolder = dirname(file);
  const outputFolder = mkdtempSync(join(cacheFolder, 'warm-up-'));
  try {
    const environment: Record<string, string> = {};
    for (const name of WARM_UP_VARIABLES) {
      const value = options.environment[name];
      if (value !== undefined) environment[name] = value;
    }
    const warmUpFolder = resolveWarmUpFolder();
    let sandboxed = false;
    const host = startPwshHost({
      pwshPath: options.pwshPath,
      hostScriptPath: options.hostScriptPath,
      projectRoot: warmUpFolder,
      poolSize: 1,
      maxOutputBytes: 64 * 1024,
      // Only this pwsh writes its profile to the output folder; pack hosts read the copy.
      environment: { ...environment, XDG_CACHE_HOME: outputFolder },
      startTimeoutMs: options.startTimeoutMs,
      planSandbox: (socketFolder) => {
        if (socketFolder === undefined) return undefined;
        sandboxed = true;
        return planWarmUpSandbox({
          pwshPath: options.pwshPath,
          hostScriptPath: options.hostScriptPath,
          environment,
          socketFolder,
          outputFolder,
        });
      },
    });
    try {
      await host.ready;
      if (!sandboxed) throw new Error('the warm-up host could not be confined');
      const outcome = await host.startCall(
        {
          mode: 'script',
          toolName: 'warm-up',
          scriptPath: join(warmUpFolder, 'Invoke-WarmUp.ps1'),
          functionName: null,
          modulePath: null,
          arguments: {},
        },
        {
          onProgress: () => {},
          onLog: () => {},
          onAsk: () => Promise.reject(new Error('the warm-up asks nothing')),
        },
      ).outcome;
      if (outcome.type === 'lost') throw new Error(outcome.reason);
    } finally {
      // pwsh writes the profile as it exits: a clean shutdown, not a kill.
      await host.close();
    }
    const written = join(outputFolder, PROFILE_CACHE_TARGET);
    const stats = lstatSync(written, { throwIfNoEntry: false });
    if (stats === undefined || !stats.isFile() || stats.size === 0)
      throw new Error(`pwsh wrote no startup profile at ${written}`);
    // Copied to a file of our own, then renamed: a reader sees the whole profile or none.
    const temporary = `${file}.${randomBytes(6).toString('hex')}.tmp`;
    copyFileSync(written, temporary, constants.COPYFILE_EXCL);
    renameSync(temporary, file);
  } finally {
    rmSync(outputFolder, { recursive: true, force: true });
  }
}

import { createHash } from 'node:crypto';
import { mkdirSync, realpathSync } from 'node:fs';
import { join } from 'node:path';
import { openCacheFolder } from '@toolpack/containment';

const CACHE_FOLDER_NAME = 'pwsh-host-cache';

/**
 * The folder an unconfined PowerShell host gives pwsh as its cache folder (`XDG_CACHE_HOME`),
 * one per pwsh install, in Toolpack's private runtime folder; undefined when that folder cannot
 * be had (the host then uses the user's own, as before).
 *
 * Why one of its own: pwsh keeps .NET's startup profile (the methods the runtime compiles
 * ahead on a spare core) in its cache folder under one name that every `pwsh -NonInteractive`
 * of the user shares, and each rewrites it as it exits. A host started after any other pwsh
 * script found that script's methods in it and started 120-170 ms slower (50 scripts,
 * interleaved with another pwsh server, pwsh 7.6.9). Only this user's unconfined hosts write
 * here (never bound into a sandbox); the tools still see the environment's own
 * `XDG_CACHE_HOME`, which the host puts back before any tool runs.
 */
export function resolveHostCacheHome(pwshPath: string): string | undefined {
  try {
    const install = createHash('sha256').update(realpathSync(pwshPath)).digest('hex').slice(0, 16);
    const folder = join(openCacheFolder(CACHE_FOLDER_NAME), install);
    mkdirSync(folder, { recursive: true, mode: 0o700 });
    return folder;
  } catch {
    return undefined;
  }
}

// An unconfined PowerShell host's own cache folder (host-cache-home.ts): pwsh keeps .NET's
// startup profile there instead of in the one every `pwsh -NonInteractive` of the user shares,
// and the tools still see the environment's own XDG_CACHE_HOME.
import { execFileSync } from 'node:child_process';
import { existsSync, realpathSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { pwshEngine, PWSH_TEST_TAG } from '@toolpack/pwsh-probe';
import { describe, expect, it } from 'vitest';
import { createToolRunner } from '../index.ts';
import { hasProc, makeTool } from '../testing/index.ts';
import { resolveHostCacheHome } from './host-cache-home.ts';

const fixtures = fileURLToPath(new URL('./fixtures/', import.meta.url));
const hasPwsh = pwshEngine !== undefined;
const cacheHomeTool = makeTool({
  name: 'get_cache_home',
  invocation: { runner: 'pwsh', mode: 'script', scriptPath: 'scripts/Get-CacheHome.ps1' },
});

function which(command: string): string {
  return execFileSync('sh', ['-c', `command -v ${command}`], { encoding: 'utf8' }).trim();
}

interface Seen {
  CacheHome: string | null;
  Note: string | null;
  StartedCacheHome: string | null;
}

describe('PowerShell host: a cache folder of its own', () => {
  it.skipIf(!hasPwsh || !hasProc)(
    `${PWSH_TEST_TAG} starts pwsh with its own cache folder and gives the tools the environment's own XDG_CACHE_HOME back`,
    async () => {
      let cacheHome: string | null | undefined;
      for (const given of [undefined, '/tmp/toolpack-users-own-cache']) {
        const runner = createToolRunner({
          projectRoot: fixtures,
          ...(given === undefined ? {} : { env: { XDG_CACHE_HOME: given } }),
        });
        try {
          const seen = (await runner.call(cacheHomeTool, {})).structuredContent as unknown as Seen;
          // pwsh read the host's own folder at its start...
          const started = seen.StartedCacheHome;
          // (the folder for the pwsh on PATH, as the runner finds it)
          expect(started).toBe(resolveHostCacheHome(realpathSync(which('pwsh'))));
          cacheHome ??= started;
          expect(started).toBe(cacheHome);
          // ...and the tool sees what the environment gives it, and no note of the swap.
          expect(seen.CacheHome).toBe(given ?? null);
          expect(seen.Note).toBeNull();
        } finally {
          await runner.close();
        }
      }
    },
    60_000,
  );

  it.skipIf(pwshEngine?.kind !== 'full')(
    `${PWSH_TEST_TAG} leaves .NET's startup profile in that folder when the host exits`,
    async () => {
      const cacheHome = resolveHostCacheHome(realpathSync(which('pwsh')))!;
      const profile = path.join(cacheHome, 'powershell', 'StartupProfileData-NonInteractive');
      const start = Date.now() - 1_000;
      const runner = createToolRunner({ projectRoot: fixtures });
      try {
        await runner.call(cacheHomeTool, {});
      } finally {
        await runner.close();
      }
      // pwsh rewrites it as it exits (after close() has asked the host to stop).
      const written = () => existsSync(profile) && statSync(profile).mtimeMs >= start;
      for (let attempt = 0; attempt < 50 && !written(); attempt += 1)
        await new Promise((resolve) => setTimeout(resolve, 100));
      expect(written()).toBe(true);
    },
    60_000,
  );
});

// The confined warm-up that records .NET's startup profile for pack hosts: what its sandbox
// holds (no pack or project code), and that it writes one profile per key, atomically, once.
import { mkdtempSync, readdirSync, realpathSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describeSandbox } from '@toolpack/containment';
import { hasPwsh, PWSH_TEST_TAG } from '@toolpack/pwsh-probe';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveHostScriptPath, resolveWarmUpFolder } from '../asset-paths.ts';
import { findExecutable } from '../find-executable.ts';
import {
  findStartupProfile,
  locateStartupProfile,
  planWarmUpSandbox,
  prepareStartupProfile,
  PROFILE_HOME_TARGET,
} from './startup-profile.ts';

const sandbox = describeSandbox({});
const pwshPath = findExecutable('pwsh', process.env as Record<string, string>);
const hostScriptPath = resolveHostScriptPath();
let scratch: string;

beforeAll(() => {
  scratch = realpathSync(mkdtempSync(join(tmpdir(), 'toolpack-profile-')));
});
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe('planWarmUpSandbox', () => {
  it.skipIf(pwshPath === undefined)(
    `runs no pack or project code: its own folder is Toolpack's warm-up asset, and it writes only its channel and output folders ${PWSH_TEST_TAG} [needs pwsh]`,
    () => {
      const socketFolder = mkdtempSync(join(scratch, 'host-'));
      const outputFolder = mkdtempSync(join(scratch, 'warm-up-'));
      const plan = planWarmUpSandbox({
        pwshPath: pwshPath ?? 'pwsh',
        hostScriptPath,
        environment: { PATH: process.env.PATH ?? '' },
        socketFolder,
        outputFolder,
      });
      const warmUpFolder = resolveWarmUpFolder();
      expect(readdirSync(warmUpFolder)).toEqual(['Invoke-WarmUp.ps1']);
      expect(plan.ownFolder).toBe(warmUpFolder);
      expect(plan.cwd).toBe(warmUpFolder);
      expect(plan.write).toEqual([outputFolder, socketFolder].sort());
      expect(plan.network).toBe(false);
      expect(plan.temp).toBeUndefined();
      expect(plan.homeFiles).toBeUndefined();
      // Read-only: the asset, the host script's folder, and pwsh's own install only.
      expect(plan.read).toContain(dirname(hostScriptPath));
      expect(plan.read).toContain(dirname(realpathSync(pwshPath ?? 'pwsh')));
      for (const folder of plan.read)
        expect(
          folder === warmUpFolder ||
            folder === dirname(hostScriptPath) ||
            !folder.startsWith(dirname(dirname(hostScriptPath))),
          folder,
        ).toBe(true);
    },
  );
});

describe.skipIf(!hasPwsh || pwshPath === undefined || !sandbox.available)(
  `the startup-profile warm-up ${PWSH_TEST_TAG} [needs pwsh, bwrap: ${sandbox.reason}]`,
  () => {
    it('records the profile once per key in the cache, through one warm-up at a time, and leaves nothing else', async () => {
      const cacheFolder = mkdtempSync(join(scratch, 'cache-'));
      const options = {
        pwshPath: pwshPath ?? 'pwsh',
        hostScriptPath,
        environment: { PATH: process.env.PATH ?? '' },
        startTimeoutMs: 60_000,
        cacheFolder,
      };
      const file = locateStartupProfile(options);
      expect(dirname(file)).toBe(cacheFolder);
      expect(findStartupProfile(options)).toBeUndefined();
      // The call above started the warm-up: a second asks join it rather than start another.
      const first = prepareStartupProfile(options);
      expect(prepareStartupProfile(options)).toBe(first);
      expect(readdirSync(cacheFolder).filter((name) => name.startsWith('warm-up-'))).toHaveLength(
        1,
      );
      expect(await first).toBe(file);
      expect(statSync(file).size).toBeGreaterThan(0);
      expect(readdirSync(cacheFolder)).toEqual([file.slice(cacheFolder.length + 1)]);
      expect(findStartupProfile(options)).toEqual({ source: file, target: PROFILE_HOME_TARGET });
    }, 120_000);

    it('gives another host script another profile', () => {
      const cacheFolder = mkdtempSync(join(scratch, 'cache-'));
      const other = join(scratch, 'host.ps1');
      const base = { pwshPath: pwshPath ?? 'pwsh', cacheFolder };
      writeFileSync(other, '# another host\n');
      expect(locateStartupProfile({ ...base, hostScriptPath: other })).not.toBe(
        locateStartupProfile({ ...base, hostScriptPath }),
      );
    });
  },
);

// Issue 34's runspace reuse on scripts as they ship: fleschutz/PowerShell's cd-* scripts
// (vendored in tests/powershell-corpus/fixtures, CC0) change the working location, which the
// host must undo before the next call, whether it resets that runspace or finds it unchanged.
// The real pwsh decides what a clean call answers: list-workdir.ps1 run with -File from the
// project root. Served by the built CLI over stdio.
import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PWSH_TEST_TAG, hasPwsh } from '@toolpack/pwsh-probe';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { repo, sleep, startRawStdio, type RawStdioServer } from './system-helpers.ts';

const scripts = path.join(
  repo,
  'tests',
  'powershell-corpus',
  'fixtures',
  'fleschutz-PowerShell',
  'scripts',
);
let project: string;
let server: RawStdioServer;
let nextId = 1;

async function callText(name: string): Promise<string> {
  const answer = await server.request(nextId++, 'tools/call', { name, arguments: {} }, 60_000);
  const result = answer.result as { content: { text?: string }[]; isError?: boolean };
  expect(result.isError, `${name}: ${JSON.stringify(result)}`).not.toBe(true);
  return result.content.map((item) => item.text ?? '').join('');
}

describe.skipIf(!hasPwsh)(
  `fleschutz/PowerShell scripts that change the location ${PWSH_TEST_TAG}`,
  () => {
    beforeAll(async () => {
      project = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'toolpack-real-scripts-')));
      cpSync(scripts, path.join(project, 'scripts'), { recursive: true });
      server = await startRawStdio(
        ['--no-watch', '--max-tools', '1000', '--script-root', 'scripts'],
        {
          cwd: project,
        },
      );
    }, 120_000);
    afterAll(() => {
      server?.kill();
      rmSync(project, { recursive: true, force: true });
    });

    it('leave no location behind: list-workdir answers as pwsh -File does from the project root, before and after the host has rested', async () => {
      const clean = spawnSync(
        'pwsh',
        [
          '-NoLogo',
          '-NoProfile',
          '-NonInteractive',
          '-File',
          path.join(project, 'scripts', 'list-workdir.ps1'),
        ],
        {
          cwd: project,
          encoding: 'utf8',
        },
      ).stdout.trim();
      expect(clean).toBe(`📂${project}`);
      for (let round = 0; round < 2; round += 1) {
        // The second round runs after a rest, once the host compares state instead of resetting
        // every runspace.
        if (round === 1) await sleep(1_500);
        expect(await callText('list_workdir')).toBe(clean);
        for (const mover of ['cd_temp', 'cd_home', 'cd_up']) {
          expect(await callText(mover)).toMatch(/^📂/u);
          expect(await callText('list_workdir'), `after ${mover}`).toBe(clean);
          expect(await callText('list_workdir'), `twice after ${mover}`).toBe(clean);
        }
      }
    }, 120_000);
  },
);

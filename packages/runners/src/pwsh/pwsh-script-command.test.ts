// How the host runs a script or tool-folder file: as the command PowerShell's own discovery
// makes for its path, made afresh for each call (host.ps1, Get-ScriptCommandFactory). The
// real pwsh decides what `& $path` gives a script; these tests hold the host to it.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { hasPwsh, PWSH_TEST_TAG } from '@toolpack/pwsh-probe';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createToolRunner, type ToolRunner } from '../index.ts';
import { firstText, makeTool } from '../testing/index.ts';

const fixtures = fileURLToPath(new URL('./fixtures/', import.meta.url));
const scripts = path.join(fixtures, 'scripts');

const invocation = makeTool({
  name: 'get_invocation',
  invocation: { runner: 'pwsh', mode: 'script', scriptPath: 'scripts/Get-Invocation.ps1' },
  properties: { Mark: { type: 'string' } },
});

interface Invocation {
  Runspace: string;
  Type: string;
  Name: string;
  Path: string;
  CommandPath: string;
  Root: string;
  InvocationName: string;
  Seen: string | null;
}

describe('PowerShell runner: the command a script runs as', () => {
  let runner: ToolRunner;
  let work: string;

  beforeAll(async () => {
    work = mkdtempSync(path.join(os.tmpdir(), 'toolpack-script-command-'));
    if (!hasPwsh) return;
    runner = createToolRunner({ projectRoot: fixtures, concurrency: { pwsh: 2 } });
    await runner.warm();
  }, 60_000);
  afterAll(async () => {
    await runner?.close();
    rmSync(work, { recursive: true, force: true });
  });

  it.skipIf(!hasPwsh)(
    `${PWSH_TEST_TAG} gives a script the invocation \`& $path\` gives it, and refuses what #requires refuses`,
    async () => {
      const result = (await runner.call(invocation, {})).structuredContent as unknown as Invocation;
      expect(result).toMatchObject({
        Type: 'ExternalScriptInfo',
        Name: 'Get-Invocation.ps1',
        Path: path.join(scripts, 'Get-Invocation.ps1'),
        CommandPath: path.join(scripts, 'Get-Invocation.ps1'),
        Root: scripts.replace(/[\\/]$/u, ''),
        InvocationName: '&',
        Seen: null,
      });
      // The same script run by path in a pwsh of its own, as a user would.
      const direct = spawnSync(
        'pwsh',
        [
          '-NoLogo',
          '-NoProfile',
          '-NonInteractive',
          '-Command',
          `& '${path.join(scripts, 'Get-Invocation.ps1')}' | ConvertTo-Json -Compress`,
        ],
        { encoding: 'utf8', timeout: 60_000 },
      );
      if (direct.status === 0 && direct.stdout.trim().startsWith('{')) {
        const own = JSON.parse(direct.stdout) as Invocation;
        const { Runspace: _a, ...ours } = result;
        const { Runspace: _b, ...theirs } = own;
        expect(ours).toEqual(theirs);
      }
      const future = makeTool({
        name: 'test_future_version',
        invocation: {
          runner: 'pwsh',
          mode: 'script',
          scriptPath: 'scripts/Test-FutureVersion.ps1',
        },
      });
      const refused = await runner.call(future, {});
      expect(refused.isError).toBe(true);
      expect(firstText(refused)).toMatch(/#requires.*99\.0/u);
    },
    60_000,
  );

  it.skipIf(!hasPwsh)(
    `${PWSH_TEST_TAG} gives each call a command object of its own: a mark on one is not on the next call's`,
    async () => {
      // The detector works: two runs of one command object share what a run hangs on it.
      const shared = spawnSync(
        'pwsh',
        [
          '-NoLogo',
          '-NoProfile',
          '-NonInteractive',
          '-Command',
          `$c = $ExecutionContext.InvokeCommand.GetCommand('${path.join(scripts, 'Get-Invocation.ps1')}', 'ExternalScript'); $null = & $c -Mark kept; (& $c).Seen`,
        ],
        { encoding: 'utf8', timeout: 60_000 },
      );
      expect(shared.stdout.trim()).toBe('kept');
      // Through the host, a call that follows on the same runspace finds no mark.
      let sameRunspace = 0;
      for (let attempt = 0; attempt < 20 && sameRunspace < 3; attempt += 1) {
        const first = (await runner.call(invocation, { Mark: `call-${attempt}` }))
          .structuredContent as unknown as Invocation;
        const next = (await runner.call(invocation, {})).structuredContent as unknown as Invocation;
        expect(next.Seen).toBeNull();
        if (next.Runspace === first.Runspace) sameRunspace += 1;
      }
      expect(sameRunspace).toBeGreaterThan(0);
    },
    60_000,
  );

  it.skipIf(!hasPwsh)(
    `${PWSH_TEST_TAG} runs a script and a tool folder as their files are at the call, edited or not`,
    async () => {
      const edited = createToolRunner({ projectRoot: work });
      try {
        const script = path.join(work, 'Get-Word.ps1');
        const folder = path.join(work, 'word-tool');
        mkdirSync(folder, { recursive: true });
        const folderScript = path.join(folder, 'script.ps1');
        const scriptTool = makeTool({
          name: 'get_word',
          invocation: { runner: 'pwsh', mode: 'script', scriptPath: 'Get-Word.ps1' },
        });
        const folderTool = makeTool({
          name: 'word_tool',
          invocation: {
            runner: 'pwsh',
            mode: 'tool-folder',
            scriptPath: 'word-tool/script.ps1',
            functionName: 'Invoke-WordTool',
          },
        });
        // The same length and, on a coarse clock, possibly the same time stamp: only the
        // content tells the versions apart.
        for (const word of ['one', 'two', 'six']) {
          writeFileSync(script, `param()\n'${word}'\n`);
          writeFileSync(
            folderScript,
            `function Invoke-WordTool { param([hashtable]$Arguments) '${word}' }\n`,
          );
          expect(firstText(await edited.call(scriptTool, {}))).toBe(word);
          expect(firstText(await edited.call(folderTool, {}))).toBe(word);
        }
        rmSync(script);
        const gone = await edited.call(scriptTool, {});
        expect(gone.isError).toBe(true);
        expect(firstText(gone)).toContain('Get-Word.ps1');
      } finally {
        await edited.close();
      }
    },
    60_000,
  );
});

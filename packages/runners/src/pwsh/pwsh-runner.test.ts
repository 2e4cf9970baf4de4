// The PowerShell runner against a real pwsh: a full PowerShell 7.2+ or the bare engine
// (tools/pwsh-engine). The fixture scripts use .NET APIs only, so every test here runs on
// both; without any pwsh they are skipped, and pwsh-fake-host.test.ts covers the Node side.
import { fileURLToPath } from 'node:url';
import type { JsonSchema } from '@toolpack/core';
import { hasPwsh, PWSH_TEST_TAG } from '@toolpack/pwsh-probe';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createToolRunner, type ToolRunner } from '../index.ts';
import type { ToolProgress } from '../runner-types.ts';
import {
  firstText,
  hasProc,
  isProcessAlive,
  listDescendants,
  makeTool,
  retainedBytes,
  waitFor,
} from '../testing/index.ts';

const fixtures = fileURLToPath(new URL('./fixtures/', import.meta.url));
const projectRoot = fixtures.replace(/[\\/]$/u, '');

function scriptTool(
  name: string,
  properties: Record<string, JsonSchema> = {},
  required?: string[],
) {
  return makeTool({
    name: name.toLowerCase().replace(/-/gu, '_'),
    invocation: { runner: 'pwsh', mode: 'script', scriptPath: `scripts/${name}.ps1` },
    properties,
    ...(required === undefined ? {} : { required }),
  });
}

const counterModule = 'modules/Counter/Counter.psm1';
const addCount = makeTool({
  name: 'Add-Count',
  invocation: {
    runner: 'pwsh',
    mode: 'module',
    modulePath: counterModule,
    functionName: 'Add-Count',
  },
  properties: { By: { type: 'integer' } },
});

describe('PowerShell runner without pwsh', () => {
  it.skipIf(hasPwsh)(
    'says how to install PowerShell 7 and keeps other runners working [needs no pwsh on PATH]',
    async () => {
      const runner = createToolRunner({ projectRoot: fixtures });
      try {
        const result = await runner.call(scriptTool('Get-Greeting'), { Name: 'Ada' });
        expect(result.isError).toBe(true);
        expect(firstText(result)).toContain('PowerShell 7 (pwsh) is not installed or not on PATH');
        expect(firstText(result)).toContain('dotnet tool install --global PowerShell');
        const other = makeTool({
          name: 'node_echo',
          invocation: {
            runner: 'process',
            scriptPath: '../../process/fixtures/echo.mjs',
            extension: '.mjs',
          },
        });
        const echo = await runner.call(other, { ok: 1 });
        expect(echo.structuredContent).toMatchObject({ received: { ok: 1 } });
      } finally {
        await runner.close();
      }
    },
  );
});

describe('PowerShell runner with pwsh', () => {
  let runner: ToolRunner;

  beforeAll(async () => {
    if (!hasPwsh) return;
    runner = createToolRunner({
      projectRoot: fixtures,
      concurrency: { pwsh: 4 },
      stopGraceMs: 1_000,
    });
    await runner.warm();
  }, 60_000);
  afterAll(async () => {
    await runner?.close();
  });

  it.skipIf(!hasPwsh)(
    `${PWSH_TEST_TAG} binds named parameters and returns a string as text`,
    async () => {
      const tool = scriptTool(
        'Get-Greeting',
        { Name: { type: 'string' }, Shout: { type: 'boolean' } },
        ['Name'],
      );
      expect(await runner.call(tool, { Name: 'Ada' })).toEqual({
        content: [{ type: 'text', text: 'Hello, Ada!' }],
      });
      expect(firstText(await runner.call(tool, { Name: 'Ada', Shout: true }))).toBe('HELLO, ADA!');
      expect(firstText(await runner.call(tool, { Name: 'Ada', Shout: false }))).toBe('Hello, Ada!');
    },
  );

  it.skipIf(!hasPwsh)(
    `${PWSH_TEST_TAG} binds the listed spelling of a ValidateSet value sent in another case`,
    async () => {
      const tool = scriptTool('Get-Format', {
        Format: { type: 'string', enum: ['Markdown', 'Html'], 'x-enumIgnoreCase': true },
        Value: {},
      });
      // PowerShell itself takes 'hTML' and hands the script 'hTML' (a schema without the enum
      // shows it); Toolpack binds the listed spelling.
      const plain = scriptTool('Get-Format', { Format: { type: 'string' }, Value: {} });
      expect(firstText(await runner.call(plain, { Format: 'hTML' }))).toBe('hTML|null');
      expect(firstText(await runner.call(tool, { Format: 'hTML' }))).toBe('Html|null');
      expect(firstText(await runner.call(tool, {}))).toBe('markdown|null');
      expect(firstText(await runner.call(tool, { Format: 'pdf' }))).toMatch(/must be one of/);
      expect(firstText(await runner.call(tool, { Value: { a: [1] } }))).toBe('markdown|Hashtable');
      expect(firstText(await runner.call(tool, { Value: 3 }))).toBe('markdown|Int64');
    },
  );

  it.skipIf(!hasPwsh)(
    `${PWSH_TEST_TAG} returns objects as structuredContent with the project root set`,
    async () => {
      const result = await runner.call(scriptTool('Get-Info', { Count: { type: 'integer' } }), {
        Count: 2,
      });
      expect(result.structuredContent).toEqual({
        Count: 2,
        Items: [
          { Index: 1, Label: 'item 1' },
          { Index: 2, Label: 'item 2' },
        ],
        Nested: { Enabled: true, Ratio: 0.5, Nothing: null },
        When: '2024-01-02T03:04:05.0000000Z',
        Kind: 'Friday',
        Project: projectRoot,
      });
    },
  );

  it.skipIf(!hasPwsh)(
    `${PWSH_TEST_TAG} round-trips data nested deeper than ConvertTo-Json allows`,
    async () => {
      const result = await runner.call(scriptTool('Get-Deep', { Depth: { type: 'integer' } }), {
        Depth: 150,
      });
      let node = result.structuredContent as Record<string, unknown>;
      for (let level = 1; level <= 150; level += 1) {
        expect(node.Level).toBe(level);
        node = node.Child as Record<string, unknown>;
      }
      expect(node).toEqual({ Value: 'bottom' });
    },
  );

  it.skipIf(!hasPwsh)(
    `${PWSH_TEST_TAG} returns no content for $null and an array for several objects`,
    async () => {
      expect(await runner.call(scriptTool('Get-Nothing'), {})).toEqual({ content: [] });
      expect(await runner.call(scriptTool('Get-List'), {})).toEqual({
        content: [{ type: 'text', text: '[1,"two",{"three":3}]' }],
      });
    },
  );

  it.skipIf(!hasPwsh)(
    `${PWSH_TEST_TAG} runs a dotbot tool folder with -Arguments and the dotbot globals`,
    async () => {
      const tool = makeTool({
        name: 'say_hello',
        invocation: {
          runner: 'pwsh',
          mode: 'tool-folder',
          scriptPath: 'tools/say-hello/script.ps1',
          functionName: 'Invoke-SayHello',
        },
      });
      const result = await runner.call(tool, { name: 'Ada', when: '2024-01-02T03:04:05Z' });
      expect(result.structuredContent).toEqual({
        Greeting: 'Hello, Ada!',
        Root: projectRoot,
        SameRoot: true,
        // Strings stay strings (ConvertFrom-Json would have made this a DateTime).
        WhenKept: '2024-01-02T03:04:05Z',
      });
    },
  );

  it.skipIf(!hasPwsh)(
    `${PWSH_TEST_TAG} refuses bad arguments before PowerShell sees them`,
    async () => {
      const tool = scriptTool('Get-Info', { Count: { type: 'integer', maximum: 100 } });
      const result = await runner.call(tool, { Count: 500 });
      expect(firstText(result)).toContain('/Count must be <= 100');
    },
  );

  it.skipIf(!hasPwsh)(
    `${PWSH_TEST_TAG} reports a terminating error with file and line`,
    async () => {
      const result = await runner.call(scriptTool('Invoke-Throw'), {});
      expect(result.isError).toBe(true);
      expect(firstText(result)).toContain('The widget is broken.');
      expect(firstText(result)).toMatch(/Invoke-Throw\.ps1:7\)/u);
    },
  );

  it.skipIf(!hasPwsh)(`${PWSH_TEST_TAG} applies the Write-Error rule`, async () => {
    const only = await runner.call(scriptTool('Write-ErrorOnly'), {});
    expect(only.isError).toBe(true);
    expect(firstText(only)).toContain('Could not reach the widget service.');
    const withOutput = await runner.call(scriptTool('Write-ErrorWithOutput'), {});
    expect(withOutput.isError).toBeUndefined();
    expect(withOutput.structuredContent).toEqual({ Processed: 4 });
    expect(withOutput.content[1]?.type === 'text' && withOutput.content[1].text).toContain(
      'One widget was skipped.',
    );
  });

  it.skipIf(!hasPwsh)(
    `${PWSH_TEST_TAG} captures every stream as logs and Write-Progress as progress`,
    async () => {
      const logs: string[] = [];
      const progress: ToolProgress[] = [];
      const result = await runner.call(
        scriptTool('Write-Streams'),
        {},
        {
          onLog: (level, message) => logs.push(`${level}:${message}`),
          onProgress: (p) => progress.push(p),
        },
      );
      expect(result.content[0]).toEqual({ type: 'text', text: 'finished' });
      expect(result.content[1]).toEqual({ type: 'text', text: 'Warnings:\n- Disk almost full.' });
      expect(logs).toEqual(
        expect.arrayContaining([
          'warning:Disk almost full.',
          'debug:Verbose detail.',
          'info:Some information.',
          'info:Host text.',
        ]),
      );
      expect(progress.map((p) => p.progress)).toEqual([10, 60, 100]);
      expect(progress[0]?.message).toContain('Copying - file 1');
    },
  );

  it.skipIf(!hasPwsh)(
    `${PWSH_TEST_TAG} keeps console writes and native output away from the channel`,
    async () => {
      const result = await runner.call(scriptTool('Write-Junk'), {});
      expect(result).toEqual({ content: [{ type: 'text', text: 'clean result' }] });
    },
  );

  it.skipIf(!hasPwsh)(
    `${PWSH_TEST_TAG} isolates script calls on reused runspaces: nothing one call leaves is seen by the next`,
    async () => {
      const clean = {
        Global: null,
        Function: false,
        Alias: false,
        Module: false,
        Env: null,
        Location: projectRoot,
        Directory: projectRoot,
      };
      const runs: Array<Record<string, unknown>> = [];
      for (let call = 0; call < 4; call += 1) {
        const result = await runner.call(scriptTool('Set-State'), {});
        const { Runspace, ...seen } = result.structuredContent as Record<string, unknown>;
        expect(seen).toEqual(clean);
        runs.push({ Runspace });
      }
      // The isolation comes from resetting runspaces, not from opening one per call.
      expect(new Set(runs.map((run) => run.Runspace)).size).toBeLessThan(runs.length);
    },
  );

  it.skipIf(!hasPwsh)(
    `${PWSH_TEST_TAG} reuses a runspace without a reset only when a call left its global state as it found it`,
    async () => {
      // The host skips ResetRunspaceState for a call that changed nothing it resets. A call
      // that changes nothing keeps the very PSVariable objects a reset would replace...
      const identity = scriptTool('Get-VariableIdentity');
      let reusedAsIs = false;
      for (let attempt = 0; attempt < 60 && !reusedAsIs; attempt += 1) {
        // (the host builds what compares the state at its first rest, so give it one)
        if (attempt > 0) await new Promise((resolve) => setTimeout(resolve, 100));
        const result = await runner.call(identity, {});
        reusedAsIs = (result.structuredContent as { Same: boolean }).Same;
      }
      expect(reusedAsIs).toBe(true);
      // ...and a call that changes any of it, without adding a name, is reset after.
      const clean = {
        Confirm: 'High',
        Errors: 0,
        Defaults: 0,
        Description: expect.not.stringMatching(/leaked/),
        Subscribers: 0,
        Events: 0,
        Breakpoints: 0,
        Trace: 0,
        History: 0,
        Function: expect.not.stringMatching(/leaked/),
        Alias: 'Set-Location',
        Drive: 0,
        TypeData: '',
        FormatData: 0,
        Environment: null,
        Directory: projectRoot,
      };
      const subtle = scriptTool('Set-SubtleState', { Leave: { type: 'string' } });
      const kinds = [
        'preference',
        'error',
        'default',
        'description',
        'subscriber',
        'event',
        'breakpoint',
        'trace',
        'history',
        // Redefined under a name the baseline has: no name is left to remove.
        'function',
        'alias',
        // A name added to the global scope's drives.
        'drive',
        // Held in the runspace's own type and format tables, which no reset restores.
        'typedata',
        'formatdata',
        // The process's, which the runspace does not hold: put back before the next call
        // unless the runspace found them as the host started once the tool had ended.
        'environment',
        'directory',
      ];
      for (const kind of kinds) {
        // Left behind, then looked for by the next call on that runspace (the most recently
        // used is the next one given out), with a call in between that changes nothing.
        for (let call = 0; call < 2; call += 1) {
          const result = await runner.call(subtle, { Leave: kind });
          expect(result.structuredContent, `after leaving a ${kind}`).toEqual(clean);
          await runner.call(identity, {});
        }
      }
    },
    60_000,
  );

  it.skipIf(!hasPwsh)(
    `${PWSH_TEST_TAG} shares state between calls of one module, one call at a time`,
    async () => {
      const start = (
        (await runner.call(addCount, { By: 0 })).structuredContent as { Count: number }
      ).Count;
      const results = await Promise.all(Array.from({ length: 5 }, () => runner.call(addCount, {})));
      const counts = results.map((result) => (result.structuredContent as { Count: number }).Count);
      expect(counts).toEqual([start + 1, start + 2, start + 3, start + 4, start + 5]);
    },
  );

  it.skipIf(!hasPwsh)(
    `${PWSH_TEST_TAG} runs a module's first call only after the module has been imported`,
    async () => {
      // PowerShell marks a runspace Opened before it imports the InitialSessionState's
      // modules; a call started then finds no function or a pipeline already running.
      const slow = makeTool({
        name: 'Get-ImportedAt',
        invocation: {
          runner: 'pwsh',
          mode: 'module',
          modulePath: 'modules/SlowImport/SlowImport.psm1',
          functionName: 'Get-ImportedAt',
        },
      });
      const results = await Promise.all(
        Array.from({ length: 3 }, () => runner.call(slow, {}, { timeoutMs: 60_000 })),
      );
      for (const result of results) {
        expect(firstText(result)).not.toContain('failed');
        expect(result.structuredContent).toEqual({ ImportedAt: expect.any(Number) });
      }
    },
    60_000,
  );

  it.skipIf(!hasPwsh)(
    `${PWSH_TEST_TAG} answers calls to a module that cannot be imported with the reason`,
    async () => {
      const missing = makeTool({
        name: 'Get-Missing',
        invocation: {
          runner: 'pwsh',
          mode: 'module',
          modulePath: 'modules/Missing/Missing.psm1',
          functionName: 'Get-Missing',
        },
      });
      const result = await runner.call(missing, {}, { timeoutMs: 60_000 });
      expect(result.isError).toBe(true);
      expect(firstText(result)).toContain('Cannot import module');
      expect(firstText(result)).toContain('Missing.psm1');
    },
    60_000,
  );

  it.skipIf(!hasPwsh)(
    `${PWSH_TEST_TAG} serves a module whose one dot-sourced file does not parse, as Import-Module loads it`,
    async () => {
      // Discovery lists Get-BrokenFileGood and refuses the broken file's function; its calls
      // must work, as they do after Import-Module at a prompt (which reports the error).
      const good = makeTool({
        name: 'Get-BrokenFileGood',
        invocation: {
          runner: 'pwsh',
          mode: 'module',
          modulePath: 'modules/BrokenFile/BrokenFile.psm1',
          functionName: 'Get-BrokenFileGood',
        },
      });
      const result = await runner.call(good, {}, { timeoutMs: 60_000 });
      expect(result.isError).toBeFalsy();
      expect(firstText(result)).toBe('still served');
    },
    60_000,
  );

  it.skipIf(!hasPwsh)(
    `${PWSH_TEST_TAG} re-imports a module after reloadModules()`,
    async () => {
      await runner.call(addCount, { By: 5 });
      runner.reloadModules([counterModule]);
      const getCount = makeTool({
        name: 'Get-Count',
        invocation: {
          runner: 'pwsh',
          mode: 'module',
          modulePath: counterModule,
          functionName: 'Get-Count',
        },
      });
      expect((await runner.call(getCount, {}, { timeoutMs: 60_000 })).structuredContent).toEqual({
        Count: 0,
      });
    },
    60_000,
  );

  it.skipIf(!hasPwsh)(
    `${PWSH_TEST_TAG} runs 50 concurrent script calls in parallel runspaces`,
    async () => {
      const tool = scriptTool('Get-Slow', { N: { type: 'integer' } });
      const results = await Promise.all(
        Array.from({ length: 50 }, (_, n) => runner.call(tool, { N: n }, { timeoutMs: 60_000 })),
      );
      const runs = results.map(
        (result) => result.structuredContent as { N: number; Started: number; Ended: number },
      );
      expect(runs.map((run) => run.N)).toEqual(Array.from({ length: 50 }, (_, n) => n));
      // Parallel, not one after another: some calls ran while others were running.
      const overlapping = runs.filter((run) =>
        runs.some(
          (other) => other !== run && other.Started < run.Ended && run.Started < other.Ended,
        ),
      );
      expect(overlapping.length).toBeGreaterThan(1);
    },
    60_000,
  );

  it.skipIf(!hasPwsh)(
    `${PWSH_TEST_TAG} closes the runspaces a burst opened once the pool has rested, keeping its floor`,
    async () => {
      const own = createToolRunner({
        projectRoot: fixtures,
        concurrency: { pwsh: 8 },
        pwshIdleReleaseMs: 300,
      });
      const count = scriptTool('Get-OpenRunspaces');
      const openRunspaces = async () => Number(firstText(await own.call(count, {})));
      try {
        const slow = scriptTool('Get-Slow', {
          N: { type: 'integer' },
          Milliseconds: { type: 'integer' },
        });
        await Promise.all(
          Array.from({ length: 8 }, (_, n) =>
            own.call(slow, { N: n, Milliseconds: 500 }, { timeoutMs: 60_000 }),
          ),
        );
        // The burst opened a runspace per call: the host's own and at least 5 more.
        expect(await openRunspaces()).toBeGreaterThanOrEqual(6);
        // At rest the pool keeps its floor of two (the host's own runspace makes three);
        // without the release every runspace the burst opened stays open.
        let open = Number.POSITIVE_INFINITY;
        for (let attempt = 0; attempt < 100 && open > 3; attempt += 1) {
          await new Promise((resolve) => setTimeout(resolve, 1_000));
          open = await openRunspaces();
        }
        expect(open).toBeLessThanOrEqual(3);
        // A call after the release is answered as before.
        expect(
          firstText(
            await own.call(scriptTool('Get-Greeting', { Name: { type: 'string' } }), {
              Name: 'Ada',
            }),
          ),
        ).toBe('Hello, Ada!');
      } finally {
        await own.close();
      }
    },
    120_000,
  );

  it.skipIf(!hasPwsh || !hasProc)(
    `${PWSH_TEST_TAG} gives back the memory calls freed once the host has rested, and keeps it without the rest`,
    async () => {
      const restsSoon = createToolRunner({ projectRoot: fixtures, pwshIdleReleaseMs: 300 });
      const neverRests = createToolRunner({ projectRoot: fixtures, pwshIdleReleaseMs: 600_000 });
      const probe = scriptTool('Get-HostMemory');
      const use = scriptTool('Use-HostMemory', { Megabytes: { type: 'integer' } });
      const residentMb = async (runner: ToolRunner) =>
        Number(firstText(await runner.call(probe, {}))) / 1024;
      try {
        const after = new Map<ToolRunner, number>();
        for (const runner of [restsSoon, neverRests]) {
          await runner.call(probe, {});
          const result = await runner.call(use, { Megabytes: 96 }, { timeoutMs: 60_000 });
          expect(result.isError, firstText(result)).not.toBe(true);
          after.set(runner, await residentMb(runner));
        }
        // The rested host gives most of the 2 x 96 MB back (the GC's and glibc's free memory).
        let rested = Number.POSITIVE_INFINITY;
        for (let attempt = 0; attempt < 30; attempt += 1) {
          await new Promise((resolve) => setTimeout(resolve, 1_000));
          rested = await residentMb(restsSoon);
          if (rested < after.get(restsSoon)! - 96) break;
        }
        expect(rested).toBeLessThan(after.get(restsSoon)! - 96);
        // A host that has not rested as long still holds it, in the same wait.
        expect(await residentMb(neverRests)).toBeGreaterThan(after.get(neverRests)! - 48);
        expect(
          firstText(
            await restsSoon.call(scriptTool('Get-Greeting', { Name: { type: 'string' } }), {
              Name: 'Ada',
            }),
          ),
        ).toBe('Hello, Ada!');
      } finally {
        await Promise.all([restsSoon.close(), neverRests.close()]);
      }
    },
    120_000,
  );

  it.skipIf(!hasPwsh)(
    `${PWSH_TEST_TAG} runs 8 calls of a waiting tool side by side with the default pool`,
    async () => {
      const own = createToolRunner({ projectRoot: fixtures });
      try {
        const tool = scriptTool('Get-Slow', {
          N: { type: 'integer' },
          Milliseconds: { type: 'integer' },
        });
        const results = await Promise.all(
          Array.from({ length: 8 }, (_, n) =>
            own.call(tool, { N: n, Milliseconds: 300 }, { timeoutMs: 60_000 }),
          ),
        );
        const runs = results.map(
          (result) => result.structuredContent as { N: number; Started: number; Ended: number },
        );
        expect(runs.map((run) => run.N)).toEqual(Array.from({ length: 8 }, (_, n) => n));
        // Overlap evidence from the tools' own clocks, not wall time: the most calls that
        // were running at one instant (one after another would be 1).
        const mostAtOnce = Math.max(
          ...runs.map(
            (run) =>
              runs.filter((other) => other.Started <= run.Started && run.Started < other.Ended)
                .length,
          ),
        );
        expect(mostAtOnce).toBeGreaterThanOrEqual(4);
      } finally {
        await own.close();
      }
    },
    60_000,
  );

  it.skipIf(!hasPwsh)(
    `${PWSH_TEST_TAG} stops a pipeline at the timeout and keeps the host`,
    async () => {
      const pid = runner.stats().pwshHostPid;
      const started = Date.now();
      const result = await runner.call(scriptTool('Wait-Stoppable'), {}, { timeoutMs: 500 });
      expect(firstText(result)).toContain('timed out after 500 ms');
      expect(Date.now() - started).toBeLessThan(500 + 5_000);
      expect(
        firstText(
          await runner.call(scriptTool('Get-Greeting', { Name: { type: 'string' } }), {
            Name: 'x',
          }),
        ),
      ).toBe('Hello, x!');
      expect(runner.stats().pwshHostPid).toBe(pid);
    },
  );

  it.skipIf(!hasPwsh)(
    `${PWSH_TEST_TAG} kills and restarts the host when a pipeline cannot be stopped`,
    async () => {
      const pid = runner.stats().pwshHostPid as number;
      const result = await runner.call(scriptTool('Wait-Unstoppable'), {}, { timeoutMs: 500 });
      expect(firstText(result)).toContain('timed out after 500 ms');
      if (hasProc) expect(await waitFor(() => !isProcessAlive(pid), 3_000)).toBe(true);
      const next = await runner.call(
        scriptTool('Get-Greeting', { Name: { type: 'string' } }),
        { Name: 'y' },
        { timeoutMs: 60_000 },
      );
      expect(firstText(next)).toBe('Hello, y!');
      expect(runner.stats().pwshHostPid).not.toBe(pid);
    },
    60_000,
  );

  it.skipIf(!hasPwsh)(
    `${PWSH_TEST_TAG} survives a tool that exits the host process; the next call succeeds`,
    async () => {
      const result = await runner.call(scriptTool('Stop-Host'), {});
      expect(result.isError).toBe(true);
      expect(firstText(result)).toContain('exited with code 3');
      const next = await runner.call(
        scriptTool('Get-Greeting', { Name: { type: 'string' } }),
        { Name: 'z' },
        { timeoutMs: 60_000 },
      );
      expect(firstText(next)).toBe('Hello, z!');
    },
    60_000,
  );

  it.skipIf(!hasPwsh)(
    `${PWSH_TEST_TAG} caps 100 MB of console output and a 5 MB result`,
    async () => {
      const before = retainedBytes();
      const result = await runner.call(scriptTool('Write-Flood'), {}, { timeoutMs: 60_000 });
      const text = firstText(result);
      expect(text).toContain('[output truncated:');
      expect(Buffer.byteLength(text)).toBeLessThan(1024 * 1024 + 200);
      // Console output goes to the null device; only the capped result crosses the channel.
      expect(retainedBytes() - before).toBeLessThan(16 * 1024 * 1024);
    },
    60_000,
  );

  it.skipIf(!hasPwsh || !hasProc)(
    `${PWSH_TEST_TAG} close() leaves no child process`,
    async () => {
      const own = createToolRunner({ projectRoot: fixtures });
      const before = new Set(listDescendants());
      await own.warm();
      const pid = own.stats().pwshHostPid as number;
      const pending = own.call(scriptTool('Wait-Stoppable'), {});
      await own.close();
      expect(firstText(await pending)).toContain('shutting down');
      expect(await waitFor(() => !isProcessAlive(pid), 3_000)).toBe(true);
      expect(listDescendants().filter((child) => !before.has(child))).toEqual([]);
    },
    60_000,
  );
});

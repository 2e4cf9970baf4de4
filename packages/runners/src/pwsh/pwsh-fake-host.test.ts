// The Node side of the PowerShell runner, driven against a stand-in host (fixtures/fake-pwsh.mjs)
// that speaks the same protocol as assets/host.ps1. These run everywhere, pwsh or not.
import { chmodSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createToolRunner, type ToolRunner } from '../index.ts';
import type { ToolProgress } from '../runner-types.ts';
import {
  firstText,
  hasProc,
  isProcessAlive,
  listDescendants,
  makeTool,
  waitFor,
} from '../testing/index.ts';

const fixtures = fileURLToPath(new URL('./fixtures/', import.meta.url));
const fakePwsh = fileURLToPath(new URL('./fixtures/fake-pwsh.mjs', import.meta.url));
const isWindows = process.platform === 'win32';

function scriptTool(name: string, timeoutMs?: number) {
  return makeTool({
    name,
    invocation: { runner: 'pwsh', mode: 'script', scriptPath: `scripts/${name}.ps1` },
    ...(timeoutMs === undefined ? {} : { timeoutMs }),
  });
}

function moduleTool(name: string, modulePath: string) {
  return makeTool({
    name,
    invocation: { runner: 'pwsh', mode: 'module', modulePath, functionName: `Invoke-${name}` },
  });
}

describe.skipIf(isWindows)('PowerShell runner on a stand-in host, no pwsh [needs POSIX]', () => {
  let runner: ToolRunner;

  beforeAll(() => {
    chmodSync(fakePwsh, 0o755);
    runner = createToolRunner({ projectRoot: fixtures, pwshPath: fakePwsh, stopGraceMs: 300 });
  });
  afterAll(async () => {
    await runner.close();
  });

  it('sends the resolved paths, mode and arguments, and turns a JSON object into structuredContent', async () => {
    const result = await runner.call(scriptTool('echo'), { name: 'Ada', count: 2 });
    expect(result.structuredContent).toEqual({
      arguments: { name: 'Ada', count: 2 },
      mode: 'script',
      scriptPath: `${fixtures}scripts/echo.ps1`,
      functionName: null,
      modulePath: null,
    });
  });

  it('sends tool folders with their function name, and modules by path or by name', async () => {
    const folder = makeTool({
      name: 'echo',
      invocation: {
        runner: 'pwsh',
        mode: 'tool-folder',
        scriptPath: 'tools/say-hello/script.ps1',
        functionName: 'Invoke-SayHello',
      },
    });
    expect((await runner.call(folder, {})).structuredContent).toMatchObject({
      mode: 'tool-folder',
      scriptPath: `${fixtures}tools/say-hello/script.ps1`,
      functionName: 'Invoke-SayHello',
    });
    const byPath = makeTool({
      name: 'echo',
      invocation: {
        runner: 'pwsh',
        mode: 'module',
        modulePath: 'modules/Counter/Counter.psm1',
        functionName: 'Add-Count',
      },
    });
    expect((await runner.call(byPath, {})).structuredContent).toMatchObject({
      modulePath: `${fixtures}modules/Counter/Counter.psm1`,
    });
    const byName = makeTool({
      name: 'echo',
      invocation: {
        runner: 'pwsh',
        mode: 'module',
        modulePath: 'PSReadLine',
        functionName: 'Get-X',
      },
    });
    expect((await runner.call(byName, {})).structuredContent).toMatchObject({
      modulePath: 'PSReadLine',
    });
  });

  it('returns a string as text and an array as text only', async () => {
    expect(await runner.call(scriptTool('text'), { name: 'Bo' })).toEqual({
      content: [{ type: 'text', text: 'hello Bo' }],
    });
    expect(await runner.call(scriptTool('list'), {})).toEqual({
      content: [{ type: 'text', text: '[1,2,3]' }],
    });
  });

  it('applies the Write-Error rule: errors alone make an error result', async () => {
    const result = await runner.call(scriptTool('errors-only'), {});
    expect(result.isError).toBe(true);
    expect(firstText(result)).toBe(
      'PowerShell tool "errors-only" wrote 2 errors and returned nothing:\n- first failure (at /tools/x.ps1:3)\n- second failure',
    );
  });

  it('applies the Write-Error rule: with output, the output wins and the errors are added', async () => {
    const logs: string[] = [];
    const result = await runner.call(
      scriptTool('errors-with-output'),
      {},
      { onLog: (level, message) => logs.push(`${level}:${message}`) },
    );
    expect(result.isError).toBeUndefined();
    expect(result.structuredContent).toEqual({ done: 1 });
    expect(result.content[0]).toEqual({ type: 'text', text: '{"done":1}' });
    expect(result.content[1]).toEqual({
      type: 'text',
      text: 'Errors (written with Write-Error; the tool still returned output):\n- partial failure',
    });
    expect(logs).toEqual(['error:partial failure']);
  });

  it('adds warnings as a text block and forwards every stream as logs', async () => {
    const logs: string[] = [];
    const result = await runner.call(
      scriptTool('warn'),
      {},
      { onLog: (level, message) => logs.push(`${level}:${message}`) },
    );
    expect(result.content).toEqual([
      { type: 'text', text: 'ok' },
      { type: 'text', text: 'Warnings:\n- disk almost full' },
    ]);
    expect(logs).toEqual(['warning:disk almost full', 'debug:verbose detail']);
  });

  it('reports a terminating error with its message and script position', async () => {
    const result = await runner.call(scriptTool('throw'), {});
    expect(result).toEqual({
      isError: true,
      content: [
        {
          type: 'text',
          text: 'PowerShell tool "throw" failed: The widget is broken. (at /tools/Get-Widget.ps1:12)',
        },
      ],
    });
  });

  it('maps Write-Progress percentages to progress notifications', async () => {
    const progress: ToolProgress[] = [];
    await runner.call(scriptTool('progress'), {}, { onProgress: (p) => progress.push(p) });
    expect(progress).toEqual([
      { progress: 10, total: 100, message: 'Copying - file 1' },
      { progress: 60, total: 100, message: 'Copying - file 6' },
    ]);
  });

  it('ignores junk on the host channel and the host console', async () => {
    expect(firstText(await runner.call(scriptTool('junk'), {}))).toBe('survived');
    expect(firstText(await runner.call(scriptTool('text'), { name: 'after' }))).toBe('hello after');
  });

  it('caps huge text and JSON results', async () => {
    const text = await runner.call(scriptTool('huge'), {});
    expect(firstText(text)).toContain('[output truncated:');
    expect(Buffer.byteLength(firstText(text))).toBeLessThan(1024 * 1024 + 200);
    const json = await runner.call(scriptTool('huge-json'), {});
    expect(json.structuredContent).toBeUndefined();
    expect(firstText(json)).toContain('[output truncated:');
  });

  it('answers 50 concurrent calls correctly', async () => {
    const results = await Promise.all(
      Array.from({ length: 50 }, (_, n) =>
        runner.call(scriptTool('slow'), { n, delayMs: 10 + (n % 7) * 5 }),
      ),
    );
    expect(results.map((result) => (result.structuredContent as { n: number }).n)).toEqual(
      Array.from({ length: 50 }, (_, n) => n),
    );
  });

  it('serializes calls to one module, and runs different modules side by side', async () => {
    const a = moduleTool('count', 'modules/A.psm1');
    const b = moduleTool('count', 'modules/B.psm1');
    const results = await Promise.all([
      ...Array.from({ length: 5 }, () => runner.call(a, {})),
      runner.call(b, {}),
    ]);
    expect(results.every((result) => result.isError !== true)).toBe(true);
    expect(
      results.slice(0, 5).map((result) => (result.structuredContent as { count: number }).count),
    ).toEqual([1, 2, 3, 4, 5]);
    expect(results[5]?.structuredContent).toEqual({ count: 1 });
  });

  it('re-imports a module on its next call after reloadModules()', async () => {
    const tool = moduleTool('count', 'modules/R.psm1');
    await runner.call(tool, {});
    expect((await runner.call(tool, {})).structuredContent).toEqual({ count: 2 });
    runner.reloadModules([`${fixtures}modules/R.psm1`]);
    expect((await runner.call(tool, {})).structuredContent).toEqual({ count: 1 });
  });

  it('stops a pipeline at the timeout and keeps the host', async () => {
    const pid = (await runner.call(scriptTool('pid'), {})).structuredContent;
    const result = await runner.call(scriptTool('stoppable'), {}, { timeoutMs: 150 });
    expect(firstText(result)).toContain('timed out after 150 ms');
    await new Promise((resolveWait) => setTimeout(resolveWait, 400));
    expect((await runner.call(scriptTool('pid'), {})).structuredContent).toEqual(pid);
  });

  it('kills and restarts the host when a pipeline ignores its stop, failing only the calls on it', async () => {
    await runner.call(scriptTool('pid'), {});
    // The host's pid as this process sees it (inside its namespace the host may be pid 1).
    const before = runner.stats().pwshHostPid as number;
    const bystander = runner.call(scriptTool('stoppable'), {});
    const started = Date.now();
    const stuck = await runner.call(scriptTool('stuck'), {}, { timeoutMs: 150 });
    expect(firstText(stuck)).toContain('timed out after 150 ms');
    const interrupted = await bystander;
    expect(Date.now() - started).toBeLessThan(150 + 300 + 5_000);
    expect(interrupted.isError).toBe(true);
    expect(firstText(interrupted)).toContain(
      'the PowerShell host was restarted because tool "stuck" did not stop within 300 ms after its timeout',
    );
    expect(firstText(interrupted)).toContain('retry this one');
    await runner.call(scriptTool('pid'), {});
    expect(runner.stats().pwshHostPid).not.toBe(before);
    if (hasProc) expect(await waitFor(() => !isProcessAlive(before), 1_000)).toBe(true);
    expect(runner.stats().pwshRestarts).toBeGreaterThanOrEqual(1);
  });

  it('restarts a host that crashed; the crash is explained and the next call succeeds', async () => {
    const result = await runner.call(scriptTool('crash'), {});
    expect(result.isError).toBe(true);
    expect(firstText(result)).toContain('exited with code 3');
    expect(firstText(result)).toContain('fake pwsh: fatal crash in the host');
    expect(firstText(await runner.call(scriptTool('text'), { name: 'back' }))).toBe('hello back');
  });

  it('cancels a call queued behind a busy module without sending it', async () => {
    const tool = moduleTool('stoppable', 'modules/Q.psm1');
    const controller = new AbortController();
    const first = runner.call(tool, {}, { timeoutMs: 300 });
    const second = runner.call(
      moduleTool('echo', 'modules/Q.psm1'),
      {},
      { signal: controller.signal },
    );
    controller.abort();
    expect(firstText(await second)).toContain('was cancelled');
    expect(firstText(await first)).toContain('timed out');
  });
});

describe.skipIf(isWindows)('PowerShell host start-up failures, stand-in host [needs POSIX]', () => {
  beforeAll(() => chmodSync(fakePwsh, 0o755));

  it('explains a host that dies on start, with its stderr', async () => {
    const runner = createToolRunner({
      projectRoot: fixtures,
      pwshPath: fakePwsh,
      env: { FAKE_PWSH_MODE: 'fail-start' },
    });
    try {
      const result = await runner.call(scriptTool('text'), {});
      expect(result.isError).toBe(true);
      expect(firstText(result)).toContain('exited with code 4');
      expect(firstText(result)).toContain('cannot load the host script');
    } finally {
      await runner.close();
    }
  });

  it('refuses a connection that does not carry the token', async () => {
    const runner = createToolRunner({
      projectRoot: fixtures,
      pwshPath: fakePwsh,
      pwshStartTimeoutMs: 500,
      env: { FAKE_PWSH_MODE: 'bad-token' },
    });
    try {
      const result = await runner.call(scriptTool('text'), {});
      expect(result.isError).toBe(true);
      expect(firstText(result)).toMatch(/did not start within 500 ms|exited with code/u);
    } finally {
      await runner.close();
    }
  });

  it('explains a pwshPath that does not exist', async () => {
    const runner = createToolRunner({ projectRoot: fixtures, pwshPath: '/nonexistent/pwsh' });
    try {
      const result = await runner.call(scriptTool('text'), {});
      expect(result.isError).toBe(true);
      expect(firstText(result)).toContain(
        'PowerShell could not be started from /nonexistent/pwsh: the file does not exist',
      );
    } finally {
      await runner.close();
    }
  });

  it.skipIf(!hasProc)('close() ends the host, no child process left [needs /proc]', async () => {
    const runner = createToolRunner({ projectRoot: fixtures, pwshPath: fakePwsh });
    const before = new Set(listDescendants());
    await runner.warm();
    const pid = runner.stats().pwshHostPid;
    expect(pid).toBeTypeOf('number');
    const pending = runner.call(scriptTool('stuck'), {});
    await runner.close();
    expect(firstText(await pending)).toContain('shutting down');
    expect(await waitFor(() => !isProcessAlive(pid as number), 2_000)).toBe(true);
    expect(listDescendants().filter((child) => !before.has(child))).toEqual([]);
  });
});

import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { JsonSchema } from '@toolpack/core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createToolRunner, type ToolRunner } from '../index.ts';
import {
  firstText,
  hasProc,
  listDescendants,
  makeTool,
  retainedBytes,
  waitFor,
} from '../testing/index.ts';

/** Processes below this one that were not there before: a contained tool reports namespace pids only. */
function countNewDescendants(before: ReadonlySet<number>): number {
  return listDescendants().filter((pid) => !before.has(pid)).length;
}

const fixtures = fileURLToPath(new URL('./fixtures/', import.meta.url));
const hasPython = spawnSync('python3', ['--version'], { stdio: 'ignore' }).status === 0;

function processTool(
  file: string,
  options: {
    timeoutMs?: number;
    properties?: Record<string, JsonSchema>;
    required?: string[];
  } = {},
) {
  return makeTool({
    name: file.replace(/\W/gu, '_'),
    invocation: {
      runner: 'process',
      scriptPath: file,
      extension: file.slice(file.lastIndexOf('.')),
    },
    ...options,
  });
}

describe('process runner', () => {
  let runner: ToolRunner;
  let scratch: string;

  beforeAll(() => {
    scratch = mkdtempSync(join(tmpdir(), 'toolpack-process-test-'));
    process.env.TOOLPACK_TEST_SECRET = 'must-not-leak';
    process.env.TOOLPACK_TEST_ALLOWED = 'visible';
    runner = createToolRunner({
      projectRoot: fixtures,
      envAllowList: ['TOOLPACK_TEST_ALLOWED'],
      interpreters: { '.bas': [process.execPath, join(fixtures, 'fake-basic.mjs')] },
    });
  });

  afterAll(async () => {
    await runner.close();
    rmSync(scratch, { recursive: true, force: true });
    delete process.env.TOOLPACK_TEST_SECRET;
    delete process.env.TOOLPACK_TEST_ALLOWED;
  });

  it('runs a bash script with the arguments on stdin and returns its output as text', async () => {
    const result = await runner.call(processTool('greet.sh'), { name: 'Ada' });
    expect(result).toEqual({ content: [{ type: 'text', text: 'Hello, Ada!' }] });
  });

  it('turns a JSON object on stdout into structuredContent and keeps it as text', async () => {
    const result = await runner.call(processTool('echo.mjs'), { count: 3, tags: ['a'] });
    expect(result.isError).toBeUndefined();
    expect(result.structuredContent).toMatchObject({ received: { count: 3, tags: ['a'] } });
    expect(JSON.parse(firstText(result))).toEqual(result.structuredContent);
  });

  it('passes the project root and tool name, and only allow-listed variables', async () => {
    const result = await runner.call(processTool('echo.mjs'), {});
    const env = (result.structuredContent as { env: Record<string, string | null> }).env;
    expect(env.TOOLPACK_PROJECT_ROOT).toBe(fixtures.replace(/\/$/u, ''));
    expect(env.TOOLPACK_TOOL).toBe('echo_mjs');
    expect(env.TOOLPACK_TEST_ALLOWED).toBe('visible');
    expect(env.TOOLPACK_TEST_SECRET).toBeNull();
    expect(env.PATH).toBe(process.env.PATH);
    expect((result.structuredContent as { cwd: string }).cwd).toBe(fixtures.replace(/\/$/u, ''));
  });

  it('keeps a JSON array as text only', async () => {
    const result = await runner.call(processTool('array.mjs'), {});
    expect(result).toEqual({ content: [{ type: 'text', text: '[1,2,3]' }] });
  });

  it('runs a TypeScript script with Node type stripping', async () => {
    const result = await runner.call(processTool('typed.ts'), { text: 'one two  three' });
    expect(result.structuredContent).toEqual({ words: 3 });
  });

  it.skipIf(!hasPython)('runs a Python script [needs python3]', async () => {
    const result = await runner.call(processTool('sum.py'), { a: 2, b: 40 });
    expect(result.structuredContent).toEqual({ sum: 42 });
  });

  it('refuses bad arguments before starting anything, naming the path', async () => {
    const tool = processTool('echo.mjs', {
      properties: { count: { type: 'integer', maximum: 100 } },
      required: ['count'],
    });
    const tooBig = await runner.call(tool, { count: 500 });
    expect(tooBig.isError).toBe(true);
    expect(firstText(tooBig)).toContain('/count must be <= 100');
    const missing = await runner.call(tool, {});
    expect(firstText(missing)).toContain('/count is required');
  });

  it('reports a non-zero exit as an error with the tail of stderr', async () => {
    const result = await runner.call(processTool('fail.sh'), {});
    expect(result.isError).toBe(true);
    const text = firstText(result);
    expect(text).toContain('exited with code 3');
    expect(text).toContain('fatal: the widget service refused the request');
    expect(text).not.toContain('noise line 1\n');
    expect(text.length).toBeLessThan(10_000);
  });

  it('captures junk on stdout and stderr without breaking anything', async () => {
    const logs: string[] = [];
    const result = await runner.call(
      processTool('junk.sh'),
      {},
      { onLog: (_level, message) => logs.push(message) },
    );
    expect(result.isError).toBeUndefined();
    expect(result.structuredContent).toBeUndefined();
    const text = firstText(result);
    expect(text).toContain('"jsonrpc":"2.0"');
    expect(text.endsWith('done')).toBe(true);
    expect(logs.join('\n')).toContain('stderr junk');
  });

  it('does not fail a tool that never reads its stdin', async () => {
    const result = await runner.call(processTool('no-stdin.sh'), { big: 'x'.repeat(256 * 1024) });
    expect(firstText(result)).toBe('ignored the input');
  });

  it.skipIf(!hasProc)('kills a hung tool and all it started on timeout [needs /proc]', async () => {
    const pidFile = join(scratch, 'hang.pids');
    const before = new Set(listDescendants());
    const started = Date.now();
    const result = await runner.call(processTool('hang.sh'), { pidFile }, { timeoutMs: 700 });
    const elapsed = Date.now() - started;
    expect(result.isError).toBe(true);
    expect(firstText(result)).toContain('timed out after 700 ms');
    expect(elapsed).toBeLessThan(700 + 5_000);
    // The tool and its grandchild ran (their pids are the namespace's own when contained).
    expect(readFileSync(pidFile, 'utf8').trim().split(' ')).toHaveLength(2);
    expect(await waitFor(() => countNewDescendants(before) === 0, 5_000)).toBe(true);
  });

  it('uses the tool timeout, and a per-call timeout over it', async () => {
    const pidFile = join(scratch, 'hang2.pids');
    const tool = processTool('hang.sh', { timeoutMs: 300 });
    const byTool = await runner.call(tool, { pidFile });
    expect(firstText(byTool)).toContain('timed out after 300 ms');
    const byCall = await runner.call(tool, { pidFile }, { timeoutMs: 200 });
    expect(firstText(byCall)).toContain('timed out after 200 ms');
  });

  it.skipIf(!hasProc)('stops a call on abort, killing its processes [needs /proc]', async () => {
    const pidFile = join(scratch, 'hang3.pids');
    const before = new Set(listDescendants());
    const controller = new AbortController();
    const pending = runner.call(processTool('hang.sh'), { pidFile }, { signal: controller.signal });
    await waitFor(() => {
      try {
        return readFileSync(pidFile, 'utf8').trim().split(' ').length === 2;
      } catch {
        return false;
      }
    }, 5_000);
    controller.abort();
    const result = await pending;
    expect(result.isError).toBe(true);
    expect(firstText(result)).toContain('cancelled');
    expect(readFileSync(pidFile, 'utf8').trim().split(' ')).toHaveLength(2);
    expect(await waitFor(() => countNewDescendants(before) === 0, 1_000)).toBe(true);
  });

  it('caps 100 MB of output twice without holding it', async () => {
    const before = retainedBytes();
    for (let round = 0; round < 2; round++) {
      const result = await runner.call(processTool('flood.sh'), {}, { timeoutMs: 20_000 });
      expect(result.isError).toBeUndefined();
      const text = firstText(result);
      expect(text).toContain(
        '[output truncated: 103809024 more bytes dropped; the limit is 1048576 bytes]',
      );
      expect(Buffer.byteLength(text)).toBeLessThan(1024 * 1024 + 200);
    }
    // Holding either flood would keep 100 MB; the capped results are garbage by now.
    expect(retainedBytes() - before).toBeLessThan(16 * 1024 * 1024);
  });

  it('answers 50 concurrent calls, each with its own result', async () => {
    const tool = processTool('slow.mjs');
    const results = await Promise.all(
      Array.from({ length: 50 }, (_, n) => runner.call(tool, { n, delayMs: 50 })),
    );
    expect(results.map((result) => (result.structuredContent as { n: number }).n)).toEqual(
      Array.from({ length: 50 }, (_, n) => n),
    );
    // A process per call: nothing is shared between calls.
    expect(
      new Set(results.map((result) => (result.structuredContent as { instance: string }).instance))
        .size,
    ).toBe(50);
  });

  it('runs a .bas tool through the configured interpreter', async () => {
    const result = await runner.call(processTool('hello.bas'), { name: 'Ada' });
    expect(result).toEqual({ content: [{ type: 'text', text: 'Hello, Ada' }] });
  });

  it('explains how to configure an interpreter when .bas has none', async () => {
    const bare = createToolRunner({ projectRoot: fixtures });
    try {
      const result = await bare.call(processTool('hello.bas'), { name: 'Ada' });
      expect(result.isError).toBe(true);
      expect(firstText(result)).toContain('No interpreter is configured for ".bas" files');
      expect(firstText(result)).toContain('interpreters: { ".bas"');
    } finally {
      await bare.close();
    }
  });

  it('says which interpreter is missing', async () => {
    const broken = createToolRunner({
      projectRoot: fixtures,
      interpreters: { '.sh': ['definitely-not-installed-shell'] },
    });
    try {
      const result = await broken.call(processTool('greet.sh'), { name: 'x' });
      expect(result.isError).toBe(true);
      expect(firstText(result)).toContain('Cannot start "definitely-not-installed-shell"');
    } finally {
      await broken.close();
    }
  });
});

describe('process runner limits and shutdown', () => {
  let scratch: string;
  beforeAll(() => {
    scratch = mkdtempSync(join(tmpdir(), 'toolpack-process-limit-'));
  });
  afterAll(() => rmSync(scratch, { recursive: true, force: true }));
  afterEach(() => undefined);

  it('queues calls beyond the concurrency limit', async () => {
    const runner = createToolRunner({ projectRoot: fixtures, concurrency: { process: 2 } });
    try {
      const tool = processTool('slow.mjs');
      const started = Date.now();
      await Promise.all(
        Array.from({ length: 4 }, (_, n) => runner.call(tool, { n, delayMs: 300 })),
      );
      // Two waves of two: at least twice the delay.
      expect(Date.now() - started).toBeGreaterThanOrEqual(600);
    } finally {
      await runner.close();
    }
  });

  it('times out a call that waited in the queue too long without ever starting it', async () => {
    const runner = createToolRunner({ projectRoot: fixtures, concurrency: { process: 1 } });
    try {
      const tool = processTool('slow.mjs');
      const first = runner.call(tool, { n: 1, delayMs: 600 });
      const second = await runner.call(tool, { n: 2, delayMs: 10 }, { timeoutMs: 150 });
      expect(firstText(second)).toContain('timed out after 150 ms');
      expect((await first).structuredContent).toMatchObject({ n: 1 });
    } finally {
      await runner.close();
    }
  });

  it.skipIf(!hasProc)(
    'close() kills running tools and leaves no child process behind [needs /proc]',
    async () => {
      const runner = createToolRunner({ projectRoot: fixtures });
      const before = new Set(listDescendants());
      const pidFiles = [0, 1, 2].map((n) => join(scratch, `close-${n}.pids`));
      const calls = pidFiles.map((pidFile) => runner.call(processTool('hang.sh'), { pidFile }));
      await waitFor(() => {
        try {
          return pidFiles.every(
            (file) => readFileSync(file, 'utf8').trim().split(' ').length === 2,
          );
        } catch {
          return false;
        }
      }, 5_000);
      expect(listDescendants().filter((pid) => !before.has(pid)).length).toBeGreaterThanOrEqual(6);
      await runner.close();
      const results = await Promise.all(calls);
      for (const result of results) expect(firstText(result)).toContain('shutting down');
      expect(await waitFor(() => countNewDescendants(before) === 0, 1_000)).toBe(true);
      await expect(runner.call(processTool('greet.sh'), { name: 'x' })).rejects.toMatchObject({
        code: 'E_RUNNER_CLOSED',
      });
    },
  );
});

describe('process runner: the ::progress line protocol on stderr', () => {
  const runner = createToolRunner({ projectRoot: fixtures });
  afterAll(async () => {
    await runner.close();
  });

  it('turns ::progress lines into progress, drops the backward one and keeps other stderr', async () => {
    const progress: { progress: number; total?: number; message?: string }[] = [];
    const logs: string[] = [];
    const result = await runner.call(
      processTool('progress-lines.sh'),
      {},
      {
        onProgress: (p) => progress.push(p),
        onLog: (level, message) => logs.push(`${level}: ${message}`),
      },
    );
    expect(result).toEqual({ content: [{ type: 'text', text: 'copied' }] });
    // Coalesced to the first and the latest; none goes backwards.
    expect(progress[0]).toEqual({ progress: 1, total: 4, message: 'Starting' });
    expect(progress.at(-1)).toEqual({ progress: 4, total: 4, message: 'Done' });
    const values = progress.map((p) => p.progress);
    expect(values).toEqual([...values].sort((a, b) => a - b));
    expect(logs.filter((line) => line.startsWith('warning:'))).toEqual([
      expect.stringContaining(
        'Ignored a malformed progress line on stderr: "::progress lots of work"',
      ),
    ]);
    const infos = logs.filter((line) => line.startsWith('info:'));
    expect(infos).toEqual([
      'info: note: an ordinary stderr line',
      'info: ::progress lots of work',
      'info: ::progressive is not a progress line',
    ]);
  });

  it('shows no progress line in the error output of a failed call', async () => {
    const result = await runner.call(processTool('progress-lines.sh'), { fail: true });
    expect(result.isError).toBe(true);
    const text = firstText(result);
    expect(text).toContain('fatal: the copy failed');
    expect(text).toContain('note: an ordinary stderr line');
    expect(text).not.toMatch(/::progress \d/u);
  });

  it('coalesces a flood of 10,000 progress lines and ends on the last one', async () => {
    const progress: number[] = [];
    const result = await runner.call(
      processTool('progress-flood.sh'),
      {},
      { onProgress: (p) => progress.push(p.progress) },
    );
    expect(firstText(result)).toBe('flooded');
    expect(progress.at(-1)).toBe(10_000);
    expect(progress.length).toBeLessThan(1_000);
  });
});

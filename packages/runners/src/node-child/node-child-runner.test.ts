import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createToolRunner, type ToolRunner } from '../index.ts';
import type { ToolProgress, ToolQuestion, ToolQuestionAnswer } from '../runner-types.ts';
import { firstText, makeTool, retainedBytes } from '../testing/index.ts';
import { resolveChildEntry } from './node-child-runner.ts';

const fixtures = fileURLToPath(new URL('./fixtures/', import.meta.url));
// The fixtures import @toolpack/core, which resolves to its sources only under this condition.
const workerOptions = {
  execArgv: ['--conditions=@toolpack/source'],
  maxHeapMb: 64,
};

function workerTool(exportName: string, modulePath = 'tools.ts', timeoutMs?: number) {
  return makeTool({
    name: exportName,
    invocation: { runner: 'node-worker', modulePath, exportName },
    ...(timeoutMs === undefined ? {} : { timeoutMs }),
  });
}

describe('node child runner (a child process per module)', () => {
  let runner: ToolRunner;

  beforeAll(() => {
    runner = createToolRunner({ projectRoot: fixtures, worker: workerOptions, stopGraceMs: 300 });
  });
  afterAll(async () => {
    await runner.close();
  });

  it('finds the child entry next to the module (the .ts source here)', () => {
    expect(resolveChildEntry().pathname.endsWith('/node-child/child-entry.ts')).toBe(true);
  });

  it('puts context.ask questions to the call, in turn, and hands the tool the answers', async () => {
    const asked: ToolQuestion[] = [];
    const answers: ToolQuestionAnswer[] = [
      { action: 'accept', values: { colour: 'blue' } },
      { action: 'accept', values: {} },
    ];
    const ask = async (question: ToolQuestion) => {
      asked.push(question);
      return answers.shift() ?? { action: 'cancel' as const };
    };
    expect(firstText(await runner.call(workerTool('askFirst'), {}, { ask }))).toBe('painted blue');
    expect(asked).toEqual([
      {
        message: 'askFirst asks: Which colour?',
        fields: [
          { name: 'colour', title: 'Colour', choices: [{ value: 'red' }, { value: 'blue' }] },
        ],
      },
      { message: 'askFirst asks: Paint it blue?', fields: [] },
    ]);
  });

  it('passes a question key a module gives, and refuses one that is no key', async () => {
    const asked: ToolQuestion[] = [];
    const ask = async (question: ToolQuestion): Promise<ToolQuestionAnswer> => {
      asked.push(question);
      return { action: 'decline' };
    };
    const tool = workerTool('askNamed');
    expect(firstText(await runner.call(tool, { key: 'user_name' }, { ask }))).toBe('decline');
    expect(asked[0]?.key).toBe('user_name');
    expect(firstText(await runner.call(tool, { key: 'two words' }, { ask }))).toBe(
      'cannot ask: context.ask: key "two words" is not 1 to 64 letters, digits, "_", "-" or ".".',
    );
    expect(asked).toHaveLength(1);
  });

  it('rejects context.ask at once, with why, when nobody can answer', async () => {
    const started = performance.now();
    const text = firstText(await runner.call(workerTool('askFirst'), {}));
    expect(performance.now() - started).toBeLessThan(5_000);
    expect(text).toMatch(/^cannot ask: E_ELICITATION_UNAVAILABLE /u);
  });

  it('returns a string as text', async () => {
    const result = await runner.call(workerTool('greet'), { name: 'Ada' });
    expect(result).toEqual({ content: [{ type: 'text', text: 'Hello, Ada!' }] });
  });

  it('returns an object as structuredContent plus JSON text (bigints as strings)', async () => {
    const result = await runner.call(workerTool('add'), { a: 2, b: 40 });
    expect(result.structuredContent).toEqual({ sum: 42, big: '100000000000000000000' });
    expect(JSON.parse(firstText(result))).toEqual(result.structuredContent);
  });

  it('returns an array as JSON text only, and undefined as no content', async () => {
    expect(await runner.call(workerTool('listed'), {})).toEqual({
      content: [{ type: 'text', text: '[1,2,3]' }],
    });
    expect(await runner.call(workerTool('nothing'), {})).toEqual({ content: [] });
  });

  it('passes an already formed CallToolResult through', async () => {
    const result = await runner.call(workerTool('formed'), {});
    expect(result).toEqual({ content: [{ type: 'text', text: 'made by hand' }], isError: true });
  });

  it('runs a plain .mjs module and gives the tool the project root', async () => {
    const result = await runner.call(workerTool('shout', 'plain.mjs'), { text: 'hey' });
    expect(result.structuredContent).toEqual({ text: 'HEY', root: fixtures.replace(/\/$/u, '') });
  });

  it('refuses bad arguments with the path named', async () => {
    const tool = makeTool({
      name: 'add',
      invocation: { runner: 'node-worker', modulePath: 'tools.ts', exportName: 'add' },
      properties: { a: { type: 'number' }, b: { type: 'number' } },
      required: ['a', 'b'],
    });
    const result = await runner.call(tool, { a: 'two' });
    expect(result.isError).toBe(true);
    expect(firstText(result)).toContain('/a must be number');
    expect(firstText(result)).toContain('/b is required');
  });

  it('turns a thrown error into an error result with its message and place', async () => {
    const result = await runner.call(workerTool('fail'), {});
    expect(result.isError).toBe(true);
    expect(firstText(result)).toMatch(
      /^TypeError: the widget is not configured \(.*tools\.ts:\d+:\d+\)$/u,
    );
  });

  it('explains an export that is not a tool, and a module that cannot load', async () => {
    const missing = await runner.call(workerTool('notATool'), {});
    expect(firstText(missing)).toContain('has no export "notATool" made with defineTool');
    const broken = await runner.call(workerTool('anything', 'broken.ts'), {});
    expect(broken.isError).toBe(true);
    expect(firstText(broken)).toContain('this module cannot load');
  });

  it('forwards progress (strictly increasing) and logs', async () => {
    const progress: ToolProgress[] = [];
    const logs: string[] = [];
    const result = await runner.call(
      workerTool('report'),
      {},
      {
        onProgress: (p) => progress.push(p),
        onLog: (level, message) => logs.push(`${level}:${message}`),
      },
    );
    expect(firstText(result)).toBe('reported');
    expect(progress).toEqual([
      { progress: 1, total: 3, message: 'first' },
      { progress: 2, total: 3, message: 'second' },
      { progress: 3, total: 3, message: 'done' },
    ]);
    expect(logs).toContain('warning:careful');
  });

  it('coalesces 10,000 progress reports into a few notifications, ending on the last', async () => {
    const progress: ToolProgress[] = [];
    const result = await runner.call(
      workerTool('progressFlood'),
      {},
      { onProgress: (p) => progress.push(p) },
    );
    expect(firstText(result)).toBe('flooded');
    expect(progress.length).toBeLessThan(1_000);
    expect(progress.at(-1)).toEqual({ progress: 10_000, total: 10_000, message: 'item 10000' });
  });

  it('restarts the timeout of an opted-in tool on each report, and not of others', async () => {
    // 30 ticks of 100 ms run three times the 1 000 ms timeout.
    const opted = { ...workerTool('tick', 'tools.ts', 1_000), progressResetsTimeout: true };
    const finished = await runner.call(opted, { ticks: 30 });
    expect(firstText(finished)).toBe('ticked 30');
    const plain = await runner.call(workerTool('tick', 'tools.ts', 1_000), { ticks: 30 });
    expect(firstText(plain)).toContain('timed out after 1000 ms');
    const silent = await runner.call(opted, { ticks: 3, silenceMs: 60_000 });
    expect(firstText(silent)).toContain('reported no progress for 1000 ms');
  });

  it('keeps console output away from stdout and the result', async () => {
    const logs: string[] = [];
    const result = await runner.call(
      workerTool('noisy'),
      {},
      { onLog: (_level, message) => logs.push(message) },
    );
    expect(result.structuredContent).toEqual({ ok: true });
    expect(logs.join('\n')).toContain('"jsonrpc":"2.0"');
  });

  it('shares module state between calls of one module', async () => {
    const first = await runner.call(workerTool('count'), {});
    const second = await runner.call(workerTool('count'), {});
    expect((second.structuredContent as { calls: number }).calls).toBe(
      (first.structuredContent as { calls: number }).calls + 1,
    );
  });

  it('answers 50 concurrent calls, each with its own result', async () => {
    const results = await Promise.all(
      Array.from({ length: 50 }, (_, n) =>
        runner.call(workerTool('slow'), { n, delayMs: 20 + (n % 5) * 10 }),
      ),
    );
    expect(results.map((result) => (result.structuredContent as { n: number }).n)).toEqual(
      Array.from({ length: 50 }, (_, n) => n),
    );
  });

  it('aborts the signal of a tool that times out, without replacing a worker that honours it', async () => {
    const before = await runner.call(workerTool('count'), {});
    const result = await runner.call(
      workerTool('slow'),
      { n: 1, delayMs: 5_000 },
      { timeoutMs: 100 },
    );
    expect(firstText(result)).toContain('timed out after 100 ms');
    const after = await runner.call(workerTool('count'), {});
    expect((after.structuredContent as { calls: number }).calls).toBe(
      (before.structuredContent as { calls: number }).calls + 1,
    );
  });

  it('replaces a worker stuck in an infinite loop; the next call succeeds', async () => {
    const started = Date.now();
    const result = await runner.call(workerTool('spin'), {}, { timeoutMs: 300 });
    expect(firstText(result)).toContain('timed out after 300 ms');
    expect(Date.now() - started).toBeLessThan(300 + 5_000);
    const next = await runner.call(workerTool('greet'), { name: 'again' });
    expect(firstText(next)).toBe('Hello, again!');
    // State was lost with the old worker: the module was imported afresh.
    expect((await runner.call(workerTool('count'), {})).structuredContent).toEqual({ calls: 1 });
  });

  it('fails the other calls on a replaced worker with a clear message', async () => {
    const bystander = runner.call(workerTool('slow'), { n: 9, delayMs: 2_000 });
    const stuck = await runner.call(workerTool('spin'), {}, { timeoutMs: 200 });
    expect(firstText(stuck)).toContain('timed out');
    const result = await bystander;
    expect(result.isError).toBe(true);
    expect(firstText(result)).toContain('was replaced because tool "spin" ignored its timeout');
  });

  it('survives process.exit() in a tool; the next call succeeds', async () => {
    const result = await runner.call(workerTool('quit'), {});
    expect(result.isError).toBe(true);
    expect(firstText(result)).toContain('exited (code 7)');
    expect(firstText(await runner.call(workerTool('greet'), { name: 'B' }))).toBe('Hello, B!');
  });

  it('survives an uncaught exception; the next call succeeds', async () => {
    const result = await runner.call(workerTool('explode'), {});
    expect(result.isError).toBe(true);
    expect(firstText(result)).toContain('crashed (boom from a timer');
    expect(firstText(await runner.call(workerTool('greet'), { name: 'C' }))).toBe('Hello, C!');
  });

  it('bounds worker memory: a tool that allocates without end dies, the next call succeeds', async () => {
    const result = await runner.call(workerTool('hog'), {}, { timeoutMs: 15_000 });
    expect(result.isError).toBe(true);
    expect(firstText(result)).toContain('ran out of memory (heap limit 64 MB)');
    expect(firstText(await runner.call(workerTool('greet'), { name: 'D' }))).toBe('Hello, D!');
  });

  it('caps a 100 MB console flood and a 5 MB result without holding them', async () => {
    const before = retainedBytes();
    const result = await runner.call(workerTool('flood'), {}, { timeoutMs: 20_000 });
    const text = firstText(result);
    expect(text).toContain('[output truncated:');
    expect(Buffer.byteLength(text)).toBeLessThan(1024 * 1024 + 200);
    // The flood crossed into this thread as console chunks; holding it would keep 100 MB.
    // The 1 MB of capped text is still referenced here.
    expect(retainedBytes() - before).toBeLessThan(16 * 1024 * 1024);
  });

  it('gives workers the condition flags of NODE_OPTIONS, which their own env would drop', async () => {
    vi.stubEnv('NODE_OPTIONS', '--max-old-space-size=256 --conditions=toolpack-test-flavour');
    // No execArgv of its own: the runner derives it from this process.
    const fresh = createToolRunner({ projectRoot: fixtures });
    vi.unstubAllEnvs();
    try {
      const result = await fresh.call(workerTool('which_flavour', 'conditions/tools.mjs'), {});
      expect(firstText(result)).toBe('conditioned');
    } finally {
      await fresh.close();
    }
  });

  it('loads a module afresh after reloadModules(), letting running calls finish', async () => {
    await runner.call(workerTool('count'), {});
    const running = runner.call(workerTool('slow'), { n: 5, delayMs: 200 });
    runner.reloadModules(['tools.ts']);
    expect((await runner.call(workerTool('count'), {})).structuredContent).toEqual({ calls: 1 });
    expect((await running).structuredContent).toEqual({ n: 5 });
  });

  it('warms a module so its worker is ready before the first call', async () => {
    const fresh = createToolRunner({ projectRoot: fixtures, worker: workerOptions });
    try {
      await fresh.warm([workerTool('greet')]);
      expect(fresh.stats().workers).toBe(1);
      const warmedAt = Date.now();
      const answer = await fresh.call(workerTool('imported_at'), {});
      // Imported by warm(), before the first call was made, and on the one warm worker.
      expect((answer.structuredContent as { importedAt: number }).importedAt).toBeLessThanOrEqual(
        warmedAt,
      );
      expect(fresh.stats().workers).toBe(1);
    } finally {
      await fresh.close();
    }
    expect(fresh.stats().workers).toBe(0);
  });

  it('close() stops running calls and terminates every worker', async () => {
    const fresh = createToolRunner({ projectRoot: fixtures, worker: workerOptions });
    const pending = fresh.call(workerTool('spin'), {});
    const other = fresh.call(workerTool('shout', 'plain.mjs'), { text: 'x' });
    await other;
    expect(fresh.stats().workers).toBe(2);
    await fresh.close();
    expect(firstText(await pending)).toContain('shutting down');
    expect(fresh.stats().workers).toBe(0);
  });
});

describe('node child runner against a hostile module (issue 14)', () => {
  const hostile = (name: string) => workerTool(name, 'hostile.mjs');

  it('reads a forged JSON-RPC line written to fd 1 as a log, never as output of the server', async () => {
    const runner = createToolRunner({ projectRoot: fixtures, worker: workerOptions });
    try {
      const logs: string[] = [];
      const result = await runner.call(hostile('forge'), {}, { onLog: (_l, m) => logs.push(m) });
      // The write happened: the tool saw its bytes accepted.
      expect((result.structuredContent as { written: number }).written).toBeGreaterThan(50);
      expect(logs.join('\n')).toContain('"text":"forged"');
    } finally {
      await runner.close();
    }
  });

  it('kills a module whose off-heap memory passes its resident limit, names the limit, and starts afresh', async () => {
    const runner = createToolRunner({
      projectRoot: fixtures,
      worker: { ...workerOptions, maxResidentMb: 200 },
    });
    try {
      const result = await runner.call(
        hostile('hoard_buffers'),
        { count: 3, mb: 100 },
        { timeoutMs: 20_000 },
      );
      expect(result.isError).toBe(true);
      expect(firstText(result)).toMatch(
        /used \d+ MB of resident memory, over its limit of 200 MB/u,
      );
      expect(firstText(result)).toContain('worker.maxResidentMb');
      expect(firstText(await runner.call(workerTool('greet'), { name: 'E' }))).toBe('Hello, E!');
    } finally {
      await runner.close();
    }
  });

  it('refuses 200,000 content items of 1 KB, and 2 MB over a 1 MB cap, as a whole and keeps working', async () => {
    const runner = createToolRunner({
      projectRoot: fixtures,
      worker: workerOptions,
      maxResultBytes: 1024 * 1024,
    });
    try {
      const result = await runner.call(hostile('many_items'), {}, { timeoutMs: 20_000 });
      expect(result.isError).toBe(true);
      expect(firstText(result)).toContain('returned 200000 content items; the limit is 10000');
      const bytes = await runner.call(
        hostile('many_items'),
        { count: 500, size: 4096 },
        { timeoutMs: 20_000 },
      );
      expect(firstText(bytes)).toContain('the limit is 1048576 bytes per result');
      const fine = await runner.call(hostile('many_items'), { count: 3, size: 10 });
      expect(fine.content).toHaveLength(3);
    } finally {
      await runner.close();
    }
  });

  it('holds a result the child answered past its own caps to the result cap in the server', async () => {
    // Small, so the forged frame fits the socket's buffer in one synchronous write.
    const cap = 4096;
    const forged = async (size: number) => {
      // A fresh runner each time: the forged frame answers call 1.
      const runner = createToolRunner({
        projectRoot: fixtures,
        worker: workerOptions,
        maxResultBytes: cap,
      });
      try {
        return await runner.call(hostile('forged_result'), { size }, { timeoutMs: 20_000 });
      } finally {
        await runner.close();
      }
    };
    // A forged small result is taken as the answer: the frame reaches the server unchecked by the child.
    expect(firstText(await forged(10))).toBe('x'.repeat(10));
    // Over the cap by less than the frame's own allowance: the server measures it and refuses it.
    const over = await forged(cap + 1_000);
    expect(over.isError).toBe(true);
    expect(firstText(over)).toContain(`the limit is ${cap} bytes per result`);
  });

  it('refuses a frame over the cap from its header, kills the child, and starts afresh', async () => {
    const runner = createToolRunner({ projectRoot: fixtures, worker: workerOptions });
    try {
      const result = await runner.call(hostile('giant_frame'), {}, { timeoutMs: 20_000 });
      expect(result.isError).toBe(true);
      expect(firstText(result)).toContain('sent a message of 1073741824 bytes');
      expect(firstText(await runner.call(workerTool('greet'), { name: 'F' }))).toBe('Hello, F!');
    } finally {
      await runner.close();
    }
  });

  it('gives the module process the allow-listed environment only, as /proc/self/environ shows it', async () => {
    const marker = `TOOLPACK_TEST_SECRET_${process.pid}`;
    vi.stubEnv(marker, 'server-only');
    const runner = createToolRunner({ projectRoot: fixtures, worker: workerOptions });
    vi.unstubAllEnvs();
    try {
      const result = await runner.call(hostile('environ'), {});
      const { environ, pid } = result.structuredContent as { environ: string[]; pid: number };
      expect(pid).not.toBe(process.pid);
      expect(environ.some((entry) => entry.startsWith('PATH='))).toBe(true);
      expect(environ.some((entry) => entry.startsWith(`${marker}=`))).toBe(false);
    } finally {
      await runner.close();
    }
  });
});

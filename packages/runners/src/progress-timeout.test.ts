import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { createToolRunner } from './index.ts';
import { firstText, makeTool } from './testing/index.ts';

const fixtures = fileURLToPath(new URL('./process/fixtures/', import.meta.url));

function ticker(progressResetsTimeout: boolean) {
  const tool = makeTool({
    name: progressResetsTimeout ? 'ticker_opted_in' : 'ticker',
    invocation: { runner: 'process', scriptPath: 'progress-ticker.mjs', extension: '.mjs' },
    timeoutMs: 1_000,
  });
  return progressResetsTimeout ? { ...tool, progressResetsTimeout } : tool;
}

// The ticker reports every 100 ms; 30 ticks run three times the 1 000 ms timeout.
describe('progress restarts the timeout of a tool that opted in', () => {
  const runner = createToolRunner({ projectRoot: fixtures });
  afterAll(async () => {
    await runner.close();
  });

  it('lets an opted-in tool that keeps reporting run past its timeout', async () => {
    const progress: number[] = [];
    const result = await runner.call(
      ticker(true),
      { ticks: 30 },
      { onProgress: (p) => progress.push(p.progress) },
    );
    expect(result).toEqual({ content: [{ type: 'text', text: 'ticked 30' }] });
    expect(progress.at(-1)).toBe(30);
  });

  it('also without a client listening for progress', async () => {
    const result = await runner.call(ticker(true), { ticks: 30 });
    expect(firstText(result)).toBe('ticked 30');
  });

  it('stops the same tool at its timeout when it did not opt in', async () => {
    const result = await runner.call(ticker(false), { ticks: 30 });
    expect(result.isError).toBe(true);
    expect(firstText(result)).toContain('timed out after 1000 ms');
  });

  it('stops an opted-in tool that goes silent, after its timeout', async () => {
    const progress: number[] = [];
    const result = await runner.call(
      ticker(true),
      { ticks: 3, silenceMs: 60_000 },
      { onProgress: (p) => progress.push(p.progress) },
    );
    expect(result.isError).toBe(true);
    expect(firstText(result)).toContain('reported no progress for 1000 ms');
    expect(progress.at(-1)).toBe(3);
  });
});

describe('an overall cap on calls whose progress restarts their timeout', () => {
  const runner = createToolRunner({ projectRoot: fixtures, progressTimeoutCapMs: 1_500 });
  afterAll(async () => {
    await runner.close();
  });

  it('stops an opted-in tool that keeps reporting once the cap is reached', async () => {
    // The same 30 ticks (3 s) that run to the end under the default cap (above).
    const started = performance.now();
    const progress: number[] = [];
    const result = await runner.call(
      ticker(true),
      { ticks: 30 },
      { onProgress: (p) => progress.push(p.progress) },
    );
    const ms = performance.now() - started;
    expect(result.isError).toBe(true);
    expect(firstText(result)).toContain(
      'ran for 1500 ms, the most any call whose progress restarts its timeout may run',
    );
    expect(ms).toBeGreaterThanOrEqual(1_450);
    expect(ms).toBeLessThan(2_900);
    // It was reporting all along: the cap, not its silence, stopped it.
    expect(progress.length).toBeGreaterThan(5);
    expect(progress.at(-1)).toBeLessThan(30);
  });

  it('never cuts a call shorter than its own timeout, and leaves other tools to their timeout', async () => {
    const patient = { ...ticker(true), timeoutMs: 2_500 };
    const capped = await runner.call(patient, { ticks: 20 });
    expect(firstText(capped)).toBe('ticked 20');
    const plain = await runner.call({ ...ticker(false), timeoutMs: 2_500 }, { ticks: 20 });
    expect(firstText(plain)).toBe('ticked 20');
  });
});

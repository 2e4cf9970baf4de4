// Write-Progress against a real pwsh (tools/pwsh-engine, or a full PowerShell 7.2+): script,
// module and tool-folder tools. The bare engine has no Write-Progress cmdlet; the fixtures
// dot-source progress-shim.ps1, which stands in for it only where it is missing.
import { fileURLToPath } from 'node:url';
import { hasPwsh, PWSH_TEST_TAG } from '@toolpack/pwsh-probe';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createToolRunner, type ToolRunner } from '../index.ts';
import type { ToolProgress } from '../runner-types.ts';
import { firstText, makeTool } from '../testing/index.ts';

const fixtures = fileURLToPath(new URL('./fixtures/', import.meta.url));

function scriptTool(name: string) {
  return makeTool({
    name: name.toLowerCase().replace(/-/gu, '_'),
    invocation: { runner: 'pwsh', mode: 'script', scriptPath: `scripts/${name}.ps1` },
  });
}

function expectIncreasing(progress: readonly ToolProgress[]): void {
  const values = progress.map((p) => p.progress);
  expect(values).toEqual([...new Set(values)].sort((a, b) => a - b));
}

describe('Write-Progress from PowerShell tools', () => {
  let runner: ToolRunner;
  beforeAll(async () => {
    if (!hasPwsh) return;
    runner = createToolRunner({ projectRoot: fixtures });
    await runner.warm();
  }, 60_000);
  afterAll(async () => {
    await runner?.close();
  });

  it.skipIf(!hasPwsh)(
    `${PWSH_TEST_TAG} reports nested activities in order, ends at 100, and keeps them out of the result`,
    async () => {
      const progress: ToolProgress[] = [];
      const result = await runner.call(
        scriptTool('Copy-Folders'),
        {},
        { onProgress: (p) => progress.push(p) },
      );
      expect(result).toEqual({ content: [{ type: 'text', text: 'copied 3 folders' }] });
      expectIncreasing(progress);
      expect(progress.every((p) => p.total === 100)).toBe(true);
      expect(progress.map((p) => p.message)).toContainEqual(
        expect.stringMatching(
          /^Copying folders - folder 2 \/ Copying files - file \d \(f\d\.txt\)$/u,
        ),
      );
      expect(progress.at(-1)).toEqual({
        progress: 100,
        total: 100,
        message: 'Copying folders: done',
      });
    },
  );

  it.skipIf(!hasPwsh)(`${PWSH_TEST_TAG} counts records without a percentage`, async () => {
    const progress: ToolProgress[] = [];
    const result = await runner.call(
      scriptTool('Write-ProgressCounter'),
      {},
      { onProgress: (p) => progress.push(p) },
    );
    expect(firstText(result)).toBe('set up');
    expect(progress.at(-1)).toEqual({ progress: 3, message: 'Setting up - install' });
    expectIncreasing(progress);
  });

  it.skipIf(!hasPwsh)(
    `${PWSH_TEST_TAG} coalesces 10,000 records into a few notifications`,
    async () => {
      const progress: ToolProgress[] = [];
      const result = await runner.call(
        scriptTool('Write-ProgressFlood'),
        {},
        { onProgress: (p) => progress.push(p) },
      );
      expect(firstText(result)).toBe('flooded');
      expect(progress.length).toBeLessThan(1_000);
      expect(progress.at(-1)).toEqual({
        progress: 100,
        total: 100,
        message: 'Flooding - item 10000',
      });
    },
  );

  it.skipIf(!hasPwsh)(`${PWSH_TEST_TAG} reports from a module function`, async () => {
    const tool = makeTool({
      name: 'Invoke-Steps',
      invocation: {
        runner: 'pwsh',
        mode: 'module',
        modulePath: 'modules/Steps/Steps.psm1',
        functionName: 'Invoke-Steps',
      },
      properties: { Steps: { type: 'integer' } },
    });
    const progress: ToolProgress[] = [];
    const result = await runner.call(tool, { Steps: 4 }, { onProgress: (p) => progress.push(p) });
    expect(result.structuredContent).toEqual({ Steps: 4 });
    expect(progress[0]).toEqual({ progress: 25, total: 100, message: 'Stepping - step 1' });
    expect(progress.at(-1)).toEqual({ progress: 100, total: 100, message: 'Stepping - step 4' });
    expectIncreasing(progress);
  });

  it.skipIf(!hasPwsh)(`${PWSH_TEST_TAG} reports from a dotbot tool folder`, async () => {
    const tool = makeTool({
      name: 'count_steps',
      invocation: {
        runner: 'pwsh',
        mode: 'tool-folder',
        scriptPath: 'tools/count-steps/script.ps1',
        functionName: 'Invoke-CountSteps',
      },
    });
    const progress: ToolProgress[] = [];
    const result = await runner.call(tool, {}, { onProgress: (p) => progress.push(p) });
    expect(result.structuredContent).toEqual({ Counted: 3 });
    expect(progress.at(-1)).toEqual({ progress: 99, total: 100, message: 'Counting - 3 of 3' });
    expectIncreasing(progress);
  });

  it.skipIf(!hasPwsh)(
    `${PWSH_TEST_TAG} restarts the timeout of an opted-in script on each report`,
    async () => {
      // Copy-Folders reports every 120 ms at most, for about 0.7 s: longer than its timeout.
      const tool = { ...scriptTool('Copy-Folders'), timeoutMs: 500 };
      const stopped = await runner.call(tool, {});
      expect(firstText(stopped)).toContain('timed out after 500 ms');
      const finished = await runner.call({ ...tool, progressResetsTimeout: true }, {});
      expect(firstText(finished)).toBe('copied 3 folders');
    },
  );
});

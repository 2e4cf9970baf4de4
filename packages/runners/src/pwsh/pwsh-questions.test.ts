// Tools that ask their user, against the real pwsh: ShouldProcess, Read-Host and
// PromptForChoice go through the host's own PSHost to the call's `ask`, secrets never do.
// Read-Host lives in Microsoft.PowerShell.Utility, so these need a full PowerShell 7.
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { hasPwsh, PWSH_TEST_TAG } from '@toolpack/pwsh-probe';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createToolRunner, type ToolRunner } from '../index.ts';
import type { ToolQuestion, ToolQuestionAnswer } from '../runner-types.ts';
import { firstText, makeTool } from '../testing/index.ts';

const fixtures = fileURLToPath(new URL('./fixtures/', import.meta.url));

function scriptTool(name: string, timeoutMs?: number) {
  return makeTool({
    name: name.toLowerCase().replace(/-/gu, '_'),
    invocation: { runner: 'pwsh', mode: 'script', scriptPath: `scripts/${name}.ps1` },
    ...(timeoutMs === undefined ? {} : { timeoutMs }),
  });
}

/** Answers questions in turn from `answers`, recording each question. */
function answering(...answers: ToolQuestionAnswer[]) {
  const questions: ToolQuestion[] = [];
  return {
    questions,
    ask: async (question: ToolQuestion) => {
      questions.push(question);
      const answer = answers.shift();
      if (answer === undefined) throw new Error('the test has no answer left');
      return answer;
    },
  };
}

const allText = (result: { content: unknown[] }) =>
  (result.content as { text?: string }[]).map((block) => block.text ?? '').join('\n');

describe.skipIf(!hasPwsh)('PowerShell tools that ask', () => {
  let runner: ToolRunner;
  let folder: string;

  beforeAll(async () => {
    runner = createToolRunner({ projectRoot: fixtures, stopGraceMs: 1_000 });
    await runner.warm();
    folder = mkdtempSync(join(tmpdir(), 'toolpack-questions-'));
  }, 60_000);
  afterAll(async () => {
    await runner?.close();
    rmSync(folder, { recursive: true, force: true });
  });

  it(`${PWSH_TEST_TAG} asks to confirm a High-impact ShouldProcess and acts only on accept`, async () => {
    const tool = makeTool({
      name: 'remove_marker',
      invocation: { runner: 'pwsh', mode: 'script', scriptPath: 'scripts/Remove-Marker.ps1' },
      properties: { Path: { type: 'string' } },
    });
    const declined = join(folder, 'declined.txt');
    const no = answering({ action: 'decline' });
    const refused = await runner.call(tool, { Path: declined }, { ask: no.ask });
    expect(firstText(refused)).toBe('skipped');
    expect(existsSync(declined)).toBe(false);
    expect(no.questions).toHaveLength(1);
    expect(no.questions[0]?.fields).toEqual([]);
    expect(no.questions[0]?.message).toContain(
      `Performing the operation "Write the marker" on target "${declined}"`,
    );

    const cancelled = join(folder, 'cancelled.txt');
    const cancel = answering({ action: 'cancel' });
    expect(firstText(await runner.call(tool, { Path: cancelled }, { ask: cancel.ask }))).toBe(
      'skipped',
    );
    expect(existsSync(cancelled)).toBe(false);

    const accepted = join(folder, 'accepted.txt');
    const yes = answering({ action: 'accept', values: {} });
    expect(firstText(await runner.call(tool, { Path: accepted }, { ask: yes.ask }))).toBe(
      'written',
    );
    expect(existsSync(accepted)).toBe(true);
  });

  it(`${PWSH_TEST_TAG} does not ask below the threshold ($ConfirmPreference High)`, async () => {
    const quiet = answering();
    expect(firstText(await runner.call(scriptTool('Set-LowImpact'), {}, { ask: quiet.ask }))).toBe(
      'done',
    );
    expect(quiet.questions).toEqual([]);
  });

  it(`${PWSH_TEST_TAG} asks below the threshold when the call passes Confirm: true (-Confirm)`, async () => {
    // Without it the Low-impact command runs unasked (above); with it PowerShell asks.
    const declined = answering({ action: 'decline' });
    const low = scriptTool('Set-LowImpact');
    expect(firstText(await runner.call(low, { Confirm: true }, { ask: declined.ask }))).toBe(
      'skipped',
    );
    expect(declined.questions).toHaveLength(1);
    expect(declined.questions[0]?.message).toContain(
      'Performing the operation "Touch" on target "the thing"',
    );
    const accepted = answering({ action: 'accept', values: {} });
    expect(firstText(await runner.call(low, { Confirm: true }, { ask: accepted.ask }))).toBe(
      'done',
    );
  });

  it(`${PWSH_TEST_TAG} refuses Confirm: false, which would switch a High-impact confirmation off`, async () => {
    const tool = makeTool({
      name: 'remove_marker',
      invocation: { runner: 'pwsh', mode: 'script', scriptPath: 'scripts/Remove-Marker.ps1' },
      properties: { Path: { type: 'string' } },
    });
    const target = join(folder, 'unconfirmed.txt');
    const asked = answering();
    const result = await runner.call(tool, { Path: target, Confirm: false }, { ask: asked.ask });
    expect(result.isError).toBe(true);
    expect(allText(result)).toContain('"Confirm" can only be true');
    expect(asked.questions).toEqual([]);
    expect(existsSync(target)).toBe(false);
  });

  it(`${PWSH_TEST_TAG} fails a Confirm request on a command without SupportsShouldProcess`, async () => {
    const tool = makeTool({
      name: 'get_greeting',
      invocation: { runner: 'pwsh', mode: 'script', scriptPath: 'scripts/Get-Greeting.ps1' },
      properties: { Name: { type: 'string' } },
    });
    const result = await runner.call(tool, { Name: 'Ada', Confirm: true });
    expect(result.isError).toBe(true);
    expect(allText(result)).toContain("parameter name 'Confirm'");
  });

  it(`${PWSH_TEST_TAG} refuses a High-impact ShouldProcess at once when nobody can answer`, async () => {
    const tool = makeTool({
      name: 'remove_marker',
      invocation: { runner: 'pwsh', mode: 'script', scriptPath: 'scripts/Remove-Marker.ps1' },
      properties: { Path: { type: 'string' } },
    });
    const target = join(folder, 'unasked.txt');
    const started = performance.now();
    const result = await runner.call(tool, { Path: target });
    expect(performance.now() - started).toBeLessThan(5_000);
    expect(result.isError).toBe(true);
    expect(allText(result)).toContain('E_ELICITATION_UNAVAILABLE');
    expect(existsSync(target)).toBe(false);
  });

  it(`${PWSH_TEST_TAG} turns Read-Host into a text question, with and without a prompt`, async () => {
    const asked = answering(
      { action: 'accept', values: { 'Your name': 'Ada' } },
      { action: 'accept', values: { value: 'London' } },
    );
    expect(firstText(await runner.call(scriptTool('Read-Name'), {}, { ask: asked.ask }))).toBe(
      'Ada from London',
    );
    expect(asked.questions[0]?.fields).toEqual([{ name: 'Your name', title: 'Your name' }]);
    expect(asked.questions[1]?.fields).toEqual([{ name: 'value', title: 'Answer' }]);
  });

  it(`${PWSH_TEST_TAG} fails a Read-Host the user declined`, async () => {
    const asked = answering({ action: 'decline' });
    const result = await runner.call(scriptTool('Read-Name'), {}, { ask: asked.ask });
    expect(result.isError).toBe(true);
    expect(allText(result)).toContain('The user declined the question');
  });

  it(`${PWSH_TEST_TAG} turns PromptForChoice into a choice with each option's help`, async () => {
    const asked = answering({ action: 'accept', values: { choice: 'Red' } });
    expect(firstText(await runner.call(scriptTool('Select-Colour'), {}, { ask: asked.ask }))).toBe(
      'picked 0',
    );
    expect(asked.questions[0]).toEqual({
      message: 'select_colour asks: Colour\nWhich colour?',
      fields: [
        {
          name: 'choice',
          title: 'Choice',
          default: 'Blue',
          choices: [
            { value: 'Red', description: 'Warm and loud' },
            { value: 'Blue', description: 'Calm and deep' },
          ],
        },
      ],
    });
  });

  it(`${PWSH_TEST_TAG} never asks for a secure string or a credential`, async () => {
    const tool = makeTool({
      name: 'read_secret',
      invocation: { runner: 'pwsh', mode: 'script', scriptPath: 'scripts/Read-Secret.ps1' },
      properties: { Kind: { type: 'string' } },
    });
    for (const kind of ['secure', 'credential']) {
      const asked = answering({ action: 'accept', values: { Password: 'hunter2' } });
      const result = await runner.call(tool, { Kind: kind }, { ask: asked.ask });
      expect(result.isError).toBe(true);
      expect(allText(result)).toContain('E_ELICITATION_SECRET');
      expect(allText(result)).toContain('credentials:');
      expect(asked.questions).toEqual([]);
    }
    // The same prompt unmarked (no -AsSecureString) does reach the client: only the marking
    // keeps the secret from it.
    const plain = answering({ action: 'accept', values: { Password: 'hunter2' } });
    expect(firstText(await runner.call(tool, { Kind: 'plain' }, { ask: plain.ask }))).toBe('read');
    expect(plain.questions).toHaveLength(1);
  });

  it(`${PWSH_TEST_TAG} does not count the time spent waiting for the user against the timeout`, async () => {
    const tool = makeTool({
      name: 'remove_marker',
      invocation: { runner: 'pwsh', mode: 'script', scriptPath: 'scripts/Remove-Marker.ps1' },
      properties: { Path: { type: 'string' } },
      timeoutMs: 1_500,
    });
    const target = join(folder, 'slow-user.txt');
    const result = await runner.call(
      tool,
      { Path: target },
      {
        ask: async () => {
          await new Promise((resolve) => setTimeout(resolve, 2_500));
          return { action: 'accept', values: {} };
        },
      },
    );
    expect(firstText(result)).toBe('written');
    expect(existsSync(target)).toBe(true);
  });

  it(`${PWSH_TEST_TAG} stops a call cancelled while its question waits, and serves the next`, async () => {
    const tool = makeTool({
      name: 'remove_marker',
      invocation: { runner: 'pwsh', mode: 'script', scriptPath: 'scripts/Remove-Marker.ps1' },
      properties: { Path: { type: 'string' } },
    });
    const controller = new AbortController();
    const target = join(folder, 'cancelled-while-asking.txt');
    const result = await runner.call(
      tool,
      { Path: target },
      {
        signal: controller.signal,
        ask: () => {
          setTimeout(() => controller.abort(), 50);
          return new Promise<ToolQuestionAnswer>(() => {});
        },
      },
    );
    expect(firstText(result)).toContain('was cancelled');
    expect(existsSync(target)).toBe(false);
    const after = answering({ action: 'accept', values: {} });
    expect(
      firstText(await runner.call(tool, { Path: join(folder, 'next.txt') }, { ask: after.ask })),
    ).toBe('written');
  });

  it(`${PWSH_TEST_TAG} asks for a mandatory parameter a script left out of a call`, async () => {
    const asked = answering({ action: 'accept', values: { Label: 'blue' } });
    expect(firstText(await runner.call(scriptTool('Set-InnerLabel'), {}, { ask: asked.ask }))).toBe(
      'label=blue',
    );
    expect(asked.questions[0]?.fields).toEqual([
      { name: 'Label', title: 'Label', description: 'The label to set' },
    ]);
    expect(asked.questions[0]?.message).toContain('Set-Label');
  });
});

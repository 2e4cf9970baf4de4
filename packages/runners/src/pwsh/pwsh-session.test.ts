// A tool-folder source's session (preload:, dotbot's server session) against a real pwsh:
// loaded once into a runspace that then serves only that session, variables and environment
// set for every call, and a tool without the session never sees it. The fixtures use .NET
// APIs only, so these run on the bare engine too.
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { PwshSession } from '@toolpack/core';
import { hasPwsh, PWSH_TEST_TAG } from '@toolpack/pwsh-probe';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createToolRunner, type ToolRunner } from '../index.ts';
import { firstText, makeTool, waitFor } from '../testing/index.ts';

const fixtures = fileURLToPath(new URL('./fixtures/session/', import.meta.url));

const greeterSession: PwshSession = {
  origin: 'preload',
  imports: ['Greeter/Greeter.psm1', 'greeting-helpers.ps1'],
  variables: { SessionRoot: 'the project', ErrorActionPreference: 'Stop' },
  environment: { GREETER_SESSION: '20260101000000-abcdef12' },
};

function folderTool(name: string, functionName: string, session?: PwshSession) {
  return makeTool({
    name,
    invocation: {
      runner: 'pwsh',
      mode: 'tool-folder',
      scriptPath: `tools/${name}/script.ps1`,
      functionName,
      ...(session === undefined ? {} : { session }),
    },
    properties: { name: { type: 'string' } },
  });
}

async function checkOneRunspace(single: ToolRunner): Promise<void> {
  const greet = folderTool('greet', 'Invoke-Greet', greeterSession);
  const first = await single.call(greet, { name: 'Ada' });
  expect(first.isError, firstText(first)).toBeFalsy();
  expect(first.structuredContent).toMatchObject({
    Text: 'Hello, Ada',
    Calls: 1,
    Root: 'the project',
    Session: '20260101000000-abcdef12',
    Preference: 'Stop',
  });
  const second = await single.call(greet, { name: 'Grace' });
  // The same import (module state kept, as in dotbot's one long-lived session), and the
  // variables back although the runspace was reset between the calls.
  expect(second.structuredContent).toMatchObject({
    Text: 'Hello, Grace',
    ImportId: (first.structuredContent as { ImportId: string }).ImportId,
    Calls: 2,
    Root: 'the project',
    Preference: 'Stop',
  });
}

describe('PowerShell runner: tool-folder sessions', () => {
  let runner: ToolRunner;

  beforeAll(async () => {
    if (!hasPwsh) return;
    runner = createToolRunner({ projectRoot: fixtures, concurrency: { pwsh: 2 } });
    await runner.warm();
  }, 60_000);
  afterAll(async () => {
    await runner?.close();
  });

  it.skipIf(!hasPwsh)(
    `${PWSH_TEST_TAG} loads the preload list once per runspace and sets the variables and environment for every call`,
    async () => {
      // One runspace, so the second call cannot be given a fresh one while the first's is
      // being reset: "once per runspace" is then "once".
      const single = createToolRunner({ projectRoot: fixtures, concurrency: { pwsh: 1 } });
      try {
        await checkOneRunspace(single);
      } finally {
        await single.close();
      }
    },
    60_000,
  );

  it.skipIf(!hasPwsh)(
    `${PWSH_TEST_TAG} warm() loads a session before any call, and the first call uses it`,
    async () => {
      const dir = mkdtempSync(path.join(os.tmpdir(), 'toolpack-session-'));
      const log = path.join(dir, 'imports.log');
      const record = folderTool('record', 'Invoke-Record', {
        origin: 'preload',
        imports: ['Recorder/Recorder.psm1'],
        environment: { RECORDER_LOG: log },
      });
      const warmed = createToolRunner({ projectRoot: fixtures, concurrency: { pwsh: 2 } });
      try {
        await warmed.warm([record]);
        // Imported with no call made.
        expect(await waitFor(() => existsSync(log), 30_000)).toBe(true);
        const result = await warmed.call(record, {});
        expect(result.structuredContent).toEqual({ Imports: 1 });
      } finally {
        await warmed.close();
        rmSync(dir, { recursive: true, force: true });
      }
    },
    60_000,
  );

  it.skipIf(!hasPwsh)(
    `${PWSH_TEST_TAG} never gives a runspace holding a session to a tool without it`,
    async () => {
      const greet = folderTool('greet', 'Invoke-Greet', greeterSession);
      const plain = folderTool('plain', 'Invoke-Plain');
      // Both runspaces of the pool hold the session first, so the plain call has to wait
      // for a fresh one rather than take one of them.
      await Promise.all([runner.call(greet, { name: 'A' }), runner.call(greet, { name: 'B' })]);
      const result = await runner.call(plain, {});
      expect(result.structuredContent).toEqual({
        SeesGreeting: false,
        SeesGreeter: false,
        Root: null,
      });
      // The session tool still works after that, in a runspace of its own.
      const again = await runner.call(greet, { name: 'Ada' });
      expect(again.structuredContent).toMatchObject({ Text: 'Hello, Ada' });
    },
  );

  it.skipIf(!hasPwsh)(
    `${PWSH_TEST_TAG} fails the call with the file and the reason when a preload cannot be loaded`,
    async () => {
      const broken = folderTool('greet', 'Invoke-Greet', {
        origin: 'preload',
        imports: ['Broken.psm1'],
      });
      const result = await runner.call(broken, { name: 'Ada' });
      expect(result.isError).toBe(true);
      expect(firstText(result)).toMatch(
        /session \(preload\) could not load .*Broken\.psm1: Broken\.psm1 refuses to load\./,
      );
      // Without the session the tool cannot even find its helpers: the session is what
      // made the first test pass.
      const bare = await runner.call(folderTool('greet', 'Invoke-Greet'), { name: 'Ada' });
      expect(bare.isError).toBe(true);
      expect(firstText(bare)).toContain('Get-GreeterImport');
    },
  );
});

// Server-bound credentials (toolpack.yaml `credentials:`) through a real pwsh: the host builds
// the PSCredential or SecureString in the tool's runspace from secrets the server reads, and
// no secret reaches an error or a log line. Skipped without pwsh.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { BoundCredential, DiscoveredTool } from '@toolpack/core';
import { hasPwsh, PWSH_TEST_TAG } from '@toolpack/pwsh-probe';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createToolRunner, type ToolRunner } from '../index.ts';
import { firstText, makeTool } from '../testing/index.ts';
import { redactSecrets, resolveCredentials } from './resolve-credentials.ts';

const fixtures = fileURLToPath(new URL('./fixtures/', import.meta.url));
const PASSWORD = 'correct horse battery staple';
const AD: BoundCredential = {
  parameter: 'Credential',
  type: 'pscredential',
  username: { env: 'AD_USER' },
  password: { env: 'AD_PASSWORD' },
};

function credentialTool(credentials: BoundCredential[]): DiscoveredTool {
  return makeTool({
    name: 'Get_CredentialUser',
    invocation: {
      runner: 'pwsh',
      mode: 'script',
      scriptPath: 'scripts/Get-CredentialUser.ps1',
      credentials,
    },
    properties: { Fail: { type: 'boolean' } },
  });
}

const findAccount: DiscoveredTool = {
  ...makeTool({
    name: 'Find_Account',
    invocation: {
      runner: 'pwsh',
      mode: 'script',
      scriptPath: 'scripts/Find-Account.ps1',
      credentials: [{ ...AD, sets: ['Remote'] }],
    },
    properties: { Name: { type: 'string' }, ComputerName: { type: 'string' } },
  }),
  parameterSets: [
    { name: 'Local', isDefault: true, parameters: ['Name'], required: ['Name'] },
    {
      name: 'Remote',
      isDefault: false,
      parameters: ['Name', 'ComputerName'],
      required: ['Name', 'ComputerName'],
    },
  ],
};

const tokenLength = makeTool({
  name: 'Get_TokenLength',
  invocation: {
    runner: 'pwsh',
    mode: 'module',
    modulePath: 'modules/Vault/Vault.psm1',
    functionName: 'Get-TokenLength',
    credentials: [{ parameter: 'Token', type: 'securestring', password: { env: 'VAULT_TOKEN' } }],
  },
});

describe('resolveCredentials', () => {
  it('reads env and file secrets at call time, and names what is missing, never a value', () => {
    const folder = mkdtempSync(path.join(tmpdir(), 'toolpack-secrets-'));
    try {
      writeFileSync(path.join(folder, 'token.txt'), 's3cr3t-token\n');
      const read = resolveCredentials({
        tool: tokenLength,
        args: {},
        credentials: [
          { ...AD, username: 'svc-reports' },
          {
            parameter: 'Token',
            type: 'securestring',
            password: { file: '~/token.txt' },
          },
        ],
        environment: { AD_PASSWORD: PASSWORD },
        home: folder,
      });
      expect(read).toEqual({
        ok: true,
        credentials: [
          {
            parameter: 'Credential',
            type: 'pscredential',
            username: 'svc-reports',
            password: PASSWORD,
          },
          { parameter: 'Token', type: 'securestring', username: null, password: 's3cr3t-token' },
        ],
        secrets: [PASSWORD, 's3cr3t-token'],
      });
      const missingFile = resolveCredentials({
        tool: tokenLength,
        args: {},
        credentials: [
          { parameter: 'Token', type: 'securestring', password: { file: '~/none.txt' } },
        ],
        environment: {},
        home: folder,
      });
      expect(missingFile).toEqual({
        ok: false,
        message: expect.stringContaining(
          'and the file ~/none.txt cannot be read (it does not exist)',
        ),
      });
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });

  it("refuses Toolpack's own secrets, which a tool never gets", () => {
    const read = resolveCredentials({
      tool: tokenLength,
      args: {},
      credentials: [
        { parameter: 'Token', type: 'securestring', password: { env: 'TOOLPACK_TOKEN' } },
      ],
      environment: { TOOLPACK_TOKEN: 'bearer-for-the-server' },
    });
    expect(read.ok).toBe(false);
    expect(JSON.stringify(read)).not.toContain('bearer-for-the-server');
    expect(JSON.stringify(read)).toContain("TOOLPACK_TOKEN is Toolpack's own secret");
  });

  it('passes a credential only in the parameter sets that take it', () => {
    const environment = { AD_USER: 'ada', AD_PASSWORD: PASSWORD };
    const local = resolveCredentials({
      tool: findAccount,
      args: { Name: 'x' },
      credentials: [{ ...AD, sets: ['Remote'] }],
      environment,
    });
    expect(local).toMatchObject({ ok: true, credentials: [] });
    const remote = resolveCredentials({
      tool: findAccount,
      args: { Name: 'x', ComputerName: 'dc1' },
      credentials: [{ ...AD, sets: ['Remote'] }],
      environment,
    });
    expect(remote).toMatchObject({ ok: true, credentials: [{ parameter: 'Credential' }] });
  });

  it('redacts every secret of four characters or more', () => {
    expect(redactSecrets(`a ${PASSWORD} b ${PASSWORD}`, [PASSWORD, 'abc'])).toBe(
      'a [secret] b [secret]',
    );
    expect(redactSecrets('abc', ['abc'])).toBe('abc');
  });
});

describe('server-bound credentials through pwsh', () => {
  let runner: ToolRunner;

  beforeAll(async () => {
    if (!hasPwsh) return;
    runner = createToolRunner({
      projectRoot: fixtures,
      concurrency: { pwsh: 2 },
      secretEnvironment: {
        AD_USER: 'CONTOSO\\ada',
        AD_PASSWORD: PASSWORD,
        VAULT_TOKEN: 'v-123456',
      },
    });
    await runner.warm();
  }, 60_000);
  afterAll(async () => {
    await runner?.close();
  });

  it.skipIf(!hasPwsh)(
    `${PWSH_TEST_TAG} builds a real PSCredential from the server's environment, which the tool's environment lacks`,
    async () => {
      const result = await runner.call(credentialTool([AD]), {});
      expect(result.isError).toBeUndefined();
      expect(result.structuredContent).toEqual({
        UserName: 'CONTOSO\\ada',
        PasswordLength: PASSWORD.length,
        SecretInEnvironment: false,
      });
      expect(JSON.stringify(result)).not.toContain(PASSWORD);
    },
  );

  it.skipIf(!hasPwsh)(
    `${PWSH_TEST_TAG} the environment check can see a secret that is in the tool's environment`,
    async () => {
      // The same tool with the password also given to every tool's environment, as a project
      // that allow-lists the variable does: the tool then sees it, so the check above is real.
      const leaky = createToolRunner({
        projectRoot: fixtures,
        concurrency: { pwsh: 1 },
        env: { AD_PASSWORD: PASSWORD },
        secretEnvironment: { AD_USER: 'ada', AD_PASSWORD: PASSWORD },
      });
      try {
        const result = await leaky.call(credentialTool([AD]), {});
        expect(result.structuredContent).toMatchObject({ SecretInEnvironment: true });
      } finally {
        await leaky.close();
      }
    },
    60_000,
  );

  it.skipIf(!hasPwsh)(
    `${PWSH_TEST_TAG} an unset variable fails the call naming the variable; pwsh is not asked`,
    async () => {
      const result = await runner.call(
        credentialTool([{ ...AD, password: { env: 'AD_PASSWORD_UNSET' } }]),
        {},
      );
      expect(result.isError).toBe(true);
      expect(firstText(result)).toBe(
        'E_CREDENTIAL_UNSET Tool "Get_CredentialUser" was not run: the server binds its -Credential [pscredential] from the environment variables AD_USER and AD_PASSWORD_UNSET (toolpack.yaml credentials:), and the environment variable AD_PASSWORD_UNSET is not set for the server. Set it where the server starts (or fix the file), then call the tool again; the model cannot supply it.',
      );
    },
  );

  it.skipIf(!hasPwsh)(
    `${PWSH_TEST_TAG} a secret the tool puts in its errors, logs or progress is redacted`,
    async () => {
      const logs: string[] = [];
      const progress: string[] = [];
      const result = await runner.call(
        credentialTool([AD]),
        { Fail: true },
        {
          onLog: (_level, message) => logs.push(message),
          onProgress: (report) => progress.push(report.message ?? ''),
        },
      );
      expect(result.isError).toBe(true);
      const text = JSON.stringify(result);
      // Reachable without the redaction: the tool really wrote it.
      expect(text).toContain('login failed for CONTOSO\\\\ada with password [secret]');
      expect(text).not.toContain(PASSWORD);
      expect(logs.join('\n')).toContain('could not log in as CONTOSO\\ada with [secret]');
      expect(logs.join('\n')).not.toContain(PASSWORD);
      expect(progress.join('\n')).toContain('Logging in as CONTOSO\\ada with [secret]');
      expect(progress.join('\n')).not.toContain(PASSWORD);
    },
  );

  it.skipIf(!hasPwsh)(
    `${PWSH_TEST_TAG} passes the credential only when the call binds the set that takes it`,
    async () => {
      const local = await runner.call(findAccount, { Name: 'ada' });
      expect(local.structuredContent).toEqual({ Set: 'Local', Name: 'ada', As: null });
      const remote = await runner.call(findAccount, { Name: 'ada', ComputerName: 'dc1' });
      expect(remote.structuredContent).toEqual({ Set: 'Remote', Name: 'ada', As: 'CONTOSO\\ada' });
    },
  );

  it.skipIf(!hasPwsh)(
    `${PWSH_TEST_TAG} builds a SecureString for a module function, call after call`,
    async () => {
      const first = await runner.call(tokenLength, {});
      expect(first.structuredContent).toEqual({
        Type: 'System.Security.SecureString',
        Length: 8,
        Calls: 1,
      });
      expect((await runner.call(tokenLength, {})).structuredContent).toMatchObject({ Calls: 2 });
    },
  );
});

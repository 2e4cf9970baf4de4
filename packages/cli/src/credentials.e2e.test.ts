// Credentials bound on the server (toolpack.yaml credentials:), end to end through the real
// `mcp` and pwsh: the parameter is not in the schema, the host builds a PSCredential from the
// server's environment, and the secret reaches no error, log or audit line. Skipped without pwsh.
import { cpSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { hasPwsh, PWSH_TEST_TAG } from '@toolpack/pwsh-probe';
import { startStdioSession } from '@toolpack/server/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runMcp } from './testing/run-mcp.ts';

const PASSWORD = 'correct horse battery staple';
const SECRETS = { AD_USER: 'CONTOSO\\ada', AD_PASSWORD: PASSWORD };
const fixture = path.join(import.meta.dirname, 'fixtures', 'credentials-project');

describe('server-bound credentials through mcp', () => {
  let project: string;
  const mcp = (args: string[], env: NodeJS.ProcessEnv = {}) => {
    const base = { ...process.env };
    delete base.AD_USER;
    delete base.AD_PASSWORD;
    return runMcp(['-C', project, ...args], { cwd: project, env: { ...base, ...env } });
  };

  beforeAll(() => {
    project = mkdtempSync(path.join(os.tmpdir(), 'toolpack-credentials-'));
    cpSync(fixture, project, { recursive: true });
  });
  afterAll(() => {
    rmSync(project, { recursive: true, force: true });
  });

  it('lists the tool without the credential parameter, and refuses the one no entry binds', () => {
    const { code, stdout } = mcp(['list', '--json', '--no-cache']);
    expect(code).toBe(0);
    const report = JSON.parse(stdout) as {
      tools: { name: string; inputSchema: { properties: object; required?: string[] } }[];
      diagnostics: { code: string; path: string; line: number; hint?: string }[];
    };
    const tool = report.tools.find((t) => t.name === 'Get_CredentialUser');
    expect(tool?.inputSchema.properties).toEqual({
      Fail: {
        type: 'boolean',
        description: 'Fail, naming the password in the error (a tool that leaks it).',
        default: false,
      },
    });
    expect(tool?.inputSchema.required).toBeUndefined();
    expect(report.tools.map((t) => t.name)).not.toContain('Set_Unbound');
    const refusal = report.diagnostics.find((d) => d.code === 'E_PARAMETER_TYPE');
    expect(refusal).toMatchObject({ line: 9 });
    expect(refusal?.hint).toContain(
      "credentials: [{ parameters: [Credential], tools: ['Set-Unbound']",
    );
  });

  it('mcp inspect shows where the server takes the credential from, never a value', () => {
    const json = mcp(['inspect', 'Get_CredentialUser', '--json'], SECRETS);
    expect(json.code).toBe(0);
    expect(JSON.parse(json.stdout).tool.credentials).toEqual([
      {
        parameter: 'Credential',
        type: 'pscredential',
        username: { env: 'AD_USER' },
        password: { env: 'AD_PASSWORD' },
        origin: 'toolpack.yaml:4',
      },
    ]);
    const text = mcp(['inspect', 'Get_CredentialUser'], SECRETS);
    expect(text.stdout).toMatch(
      /Bound by the server .*\n\s+PARAMETER\s+TYPE\s+FROM\n\s+Credential\s+pscredential\s+env AD_USER, env AD_PASSWORD\n/,
    );
    expect(text.stdout + json.stdout).not.toContain(PASSWORD);
  });

  it.skipIf(!hasPwsh)(
    `${PWSH_TEST_TAG} mcp call: the host builds the PSCredential from the server's environment; the tool's environment lacks it`,
    () => {
      const { code, stdout, stderr } = mcp(['call', 'Get_CredentialUser', '--json'], SECRETS);
      expect(stderr).toBe('');
      expect(code).toBe(0);
      expect(JSON.parse(stdout).structuredContent).toEqual({
        UserName: 'CONTOSO\\ada',
        PasswordLength: PASSWORD.length,
        SecretInEnvironment: false,
      });
    },
  );

  it.skipIf(!hasPwsh)(
    `${PWSH_TEST_TAG} mcp call: a bound token moves PowerShell off a default set that needs an unbound credential`,
    () => {
      // Connect-Service's default set needs -Credential, which only Get-* tools get; its other
      // set takes -Token, which the server binds: {} is bound to ByToken, as pwsh binds it.
      const { code, stdout, stderr } = mcp(['call', 'Connect_Service', '--json'], {
        SERVICE_TOKEN: 'token-123456',
      });
      expect(stderr).toBe('');
      expect(code).toBe(0);
      expect(JSON.parse(stdout).structuredContent).toEqual({ Set: 'ByToken', TokenLength: 12 });
    },
  );

  it.skipIf(!hasPwsh)(
    `${PWSH_TEST_TAG} mcp call: an unset variable is an error naming it, and a client cannot send the parameter`,
    () => {
      const unset = mcp(['call', 'Get_CredentialUser'], { AD_USER: 'ada' });
      expect(unset.code).toBe(1);
      expect(unset.stdout + unset.stderr).toContain(
        'E_CREDENTIAL_UNSET Tool "Get_CredentialUser" was not run',
      );
      expect(unset.stdout + unset.stderr).toContain(
        'the environment variable AD_PASSWORD is not set for the server',
      );
      const sent = mcp(
        ['call', 'Get_CredentialUser', '--args', '{"Credential": "ada:hunter2"}'],
        SECRETS,
      );
      expect(sent.code).toBe(1);
      expect(sent.stdout + sent.stderr).toMatch(/Credential/);
      expect(sent.stdout + sent.stderr).not.toContain(PASSWORD);
    },
  );

  it.skipIf(!hasPwsh)(
    `${PWSH_TEST_TAG} mcp serve --audit: the secret is in neither the tool's error nor the audit log`,
    async () => {
      const audit = path.join(project, 'audit.jsonl');
      const session = await startStdioSession(['--no-cache', '--no-watch', '--audit', audit], {
        cwd: project,
        env: SECRETS,
      });
      try {
        const failed = await session.client.callTool({
          name: 'Get_CredentialUser',
          arguments: { Fail: true },
        });
        expect(failed.isError).toBe(true);
        const text = JSON.stringify(failed);
        // The tool did put it there: the redaction is what keeps it out.
        expect(text).toContain('login failed for CONTOSO\\\\ada with password [secret]');
        expect(text).not.toContain(PASSWORD);
        const ok = await session.client.callTool({ name: 'Get_CredentialUser', arguments: {} });
        expect(ok.structuredContent).toMatchObject({ PasswordLength: PASSWORD.length });
        expect(session.stderr()).not.toContain(PASSWORD);
      } finally {
        await session.close();
      }
      const lines = readFileSync(audit, 'utf8').trim().split('\n');
      expect(lines).toHaveLength(2);
      expect(lines.map((line) => (JSON.parse(line) as { outcome: string }).outcome)).toEqual([
        'error',
        'ok',
      ]);
      expect(lines.join('\n')).not.toContain(PASSWORD);
      // The server added the credential after the check: the audit records what the client sent.
      expect(
        lines.map((line) => (JSON.parse(line) as { argumentKeys: string[] }).argumentKeys),
      ).toEqual([['Fail'], []]);
    },
  );
});

import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { CredentialBinding, DiscoveredTool } from '@toolpack/core';
import { describe, expect, it } from 'vitest';
import { discoverTools } from './discover-tools.ts';
import { describePowerShellScript } from './powershell-reader/index.ts';

const FIXTURES = path.join(import.meta.dirname, 'fixtures');
const SCRIPTS = path.join(FIXTURES, 'credentials');

const AD: CredentialBinding = {
  parameters: ['Credential'],
  username: { env: 'AD_USER' },
  password: { env: 'AD_PASSWORD' },
  origin: 'toolpack.yaml:4',
};
const TOKEN: CredentialBinding = {
  parameters: ['Tok*'],
  tools: ['Get-TokenLength'],
  password: { file: '/etc/toolpack/token.txt' },
  origin: 'toolpack.yaml:8',
};

async function discover(credentials?: CredentialBinding[]) {
  const result = await discoverTools({
    cwd: FIXTURES,
    cache: false,
    sources: [{ scripts: 'credentials', ...(credentials === undefined ? {} : { credentials }) }],
  });
  const tool = (name: string) => result.tools.find((t) => t.name === name);
  const problems = result.diagnostics
    .filter((d) => /^[EW]_PARAMETER_(TYPE|SET_DROPPED)$/.test(d.code))
    .map((d) => `${d.code} ${path.basename(d.path ?? '')}:${d.line}`);
  return { result, tool, problems };
}

const invocationOf = (tool: DiscoveredTool | undefined) =>
  tool?.invocation as { credentials?: unknown } | undefined;

describe('credential parameters as the reader finds them', () => {
  it('keeps a [pscredential] out of the schema and records it, mandatory, without asking for a description', async () => {
    const file = path.join(SCRIPTS, 'Get-CredentialUser.ps1');
    const { tools, diagnostics } = await describePowerShellScript({
      path: file,
      content: readFileSync(file, 'utf8'),
    });
    expect(diagnostics.filter((d) => d.severity !== 'info')).toEqual([]);
    expect(tools[0]?.inputSchema.properties).not.toHaveProperty('Credential');
    expect(tools[0]?.credentialParameters).toEqual([
      { name: 'Credential', type: 'pscredential', line: 9, required: true },
    ]);
  });

  it('records the sets that take a credential and need it', async () => {
    const file = path.join(SCRIPTS, 'Find-Account.ps1');
    const { tools } = await describePowerShellScript({
      path: file,
      content: readFileSync(file, 'utf8'),
    });
    expect(tools[0]?.credentialParameters).toEqual([
      {
        name: 'Credential',
        type: 'pscredential',
        line: 18,
        required: false,
        sets: ['Remote'],
        requiredIn: ['Remote'],
      },
    ]);
  });
});

describe('bindCredentials through discoverTools', () => {
  it('binds each credential parameter to the first entry naming it: out of the schema, into the invocation', async () => {
    const { tool, problems } = await discover([AD, TOKEN]);
    expect(problems).toEqual([]);
    const user = tool('Get_CredentialUser');
    expect(user?.inputSchema).toEqual({
      type: 'object',
      properties: {
        Greeting: {
          type: 'string',
          description: 'A word to put before the user name.',
          default: 'Hello',
        },
      },
      additionalProperties: false,
    });
    expect(invocationOf(user)?.credentials).toEqual([
      {
        parameter: 'Credential',
        type: 'pscredential',
        username: { env: 'AD_USER' },
        password: { env: 'AD_PASSWORD' },
        origin: 'toolpack.yaml:4',
      },
    ]);
    expect(invocationOf(tool('Get_TokenLength'))?.credentials).toEqual([
      {
        parameter: 'Token',
        type: 'securestring',
        password: { file: '/etc/toolpack/token.txt' },
        origin: 'toolpack.yaml:8',
      },
    ]);
    // Bound in the one set that takes it; that set is served like any other.
    const account = tool('Find_Account');
    expect(invocationOf(account)?.credentials).toEqual([
      {
        parameter: 'Credential',
        type: 'pscredential',
        username: { env: 'AD_USER' },
        password: { env: 'AD_PASSWORD' },
        sets: ['Remote'],
        origin: 'toolpack.yaml:4',
      },
    ]);
    expect(account?.parameterSets?.find((set) => set.name === 'Remote')?.required).toEqual([
      'Name',
      'ComputerName',
    ]);
  });

  it('without an entry: refuses a mandatory credential, leaves out an optional one, and a set that needs one can never be bound', async () => {
    const { tool, problems, result } = await discover();
    expect(tool('Get_CredentialUser')).toBeUndefined();
    expect(problems).toEqual([
      'W_PARAMETER_TYPE Find-Account.ps1:18',
      'W_PARAMETER_SET_DROPPED Find-Account.ps1:18',
      'E_PARAMETER_TYPE Get-CredentialUser.ps1:9',
      'W_PARAMETER_TYPE Get-TokenLength.ps1:8',
    ]);
    expect(result.diagnostics.find((d) => d.code === 'W_PARAMETER_SET_DROPPED')?.message).toBe(
      'The parameter set Remote of the script Find-Account.ps1 needs $Credential ([pscredential]), which no JSON value can stand for and no credentials: entry binds: the tool is served without that set (Local remain).',
    );
    const refusal = result.diagnostics.find((d) => d.code === 'E_PARAMETER_TYPE');
    expect(refusal?.hint).toContain(
      "credentials: [{ parameters: [Credential], tools: ['Get-CredentialUser'], username:",
    );
    expect(invocationOf(tool('Get_TokenLength'))?.credentials).toBeUndefined();
    const account = tool('Find_Account');
    expect(account?.parameterSets?.find((set) => set.name === 'Remote')?.required).toEqual([
      'Name',
      'ComputerName',
      'Credential',
    ]);
    const branches = account?.inputSchema.oneOf as { title: string; required?: string[] }[];
    expect(branches.find((branch) => branch.title === 'Remote')?.required).toContain('Credential');
  });

  it('follows tools: wildcards, and a [pscredential] needs a username:', async () => {
    const elsewhere = await discover([{ ...AD, tools: ['Set-*'] }]);
    expect(elsewhere.tool('Get_CredentialUser')).toBeUndefined();
    const nameless = await discover([
      { password: { env: 'AD_PASSWORD' }, origin: 'toolpack.yaml:3' },
    ]);
    expect(nameless.tool('Get_CredentialUser')).toBeUndefined();
    expect(nameless.result.diagnostics.find((d) => d.code === 'E_PARAMETER_TYPE')?.hint).toBe(
      'The credentials: entry at toolpack.yaml:3 names it but has no username:, which a [pscredential] needs: add username: { env: VARIABLE } (or a plain name).',
    );
    // The same entry binds a [securestring], which has no user.
    expect(invocationOf(nameless.tool('Get_TokenLength'))?.credentials).toEqual([
      {
        parameter: 'Token',
        type: 'securestring',
        password: { env: 'AD_PASSWORD' },
        origin: 'toolpack.yaml:3',
      },
    ]);
  });
});

describe('findUnusedCredentialBindings through discoverTools', () => {
  it('warns at its line about an entry that binds nothing, once, and not about one that binds', async () => {
    const typo: CredentialBinding = {
      ...AD,
      parameters: ['Credentail'],
      origin: 'toolpack.yaml:9',
    };
    const { result } = await discover([AD, typo]);
    expect(
      result.diagnostics
        .filter((d) => d.code === 'W_CREDENTIAL_UNUSED')
        .map((d) => [path.relative(FIXTURES, d.path ?? ''), d.line, d.message]),
    ).toEqual([
      [
        'toolpack.yaml',
        9,
        'The credentials: entry at toolpack.yaml:9 (parameters Credentail) binds no parameter of any tool served from its sources.',
      ],
    ]);
  });
});

describe('a command whose every set needs a credential', () => {
  const discoverSets = (credentials: CredentialBinding[]) =>
    discoverTools({
      cwd: FIXTURES,
      cache: false,
      sources: [{ scripts: 'credentials-sets', credentials }],
    });

  it('is refused when no set is left, and served with the sets whose credential is bound', async () => {
    const none = await discoverSets([]);
    expect(none.tools.find((tool) => tool.name === 'Connect_Service')).toBeUndefined();
    expect(none.diagnostics.find((d) => d.code === 'E_PARAMETER_TYPE')?.message).toBe(
      'Every parameter set of the script Connect-Service.ps1 needs a credential parameter ($Credential, $Token) that no credentials: entry binds, so the tool could never be called.',
    );
    const token = await discoverSets([
      { parameters: ['Token'], password: { env: 'SERVICE_TOKEN' } },
    ]);
    const tool = token.tools.find((candidate) => candidate.name === 'Connect_Service');
    // ByCredential can never be bound, and the server passes the token, which moves PowerShell
    // off that default: so it no longer takes the calls that fit it, and {} binds ByToken.
    expect(tool?.parameterSets?.map((set) => [set.name, set.isDefault, set.required])).toEqual([
      ['ByCredential', false, ['Credential']],
      ['ByToken', false, []],
    ]);
    const branches = tool?.inputSchema.oneOf as { title: string; not?: unknown }[];
    expect(branches.map((branch) => [branch.title, branch.not])).toEqual([
      ['ByCredential', undefined],
      ['ByToken', undefined],
    ]);
  });
});

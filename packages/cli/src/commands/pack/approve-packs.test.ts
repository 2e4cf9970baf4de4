import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { LEAST_PERMISSIONS } from '@toolpack/core';
import type { ApprovalRequest } from '@toolpack/packs';
import {
  askYesNo,
  createApprover,
  findBeyondGrant,
  parseAllowGrants,
  renderApprovalRequest,
} from './approve-packs.ts';

const jira: ApprovalRequest = {
  alias: 'jira',
  name: 'jira',
  version: '1.1.0',
  permissions: {
    filesystem: { read: [], write: [] },
    network: { access: 'any', hosts: ['*.atlassian.net'] },
    env: ['JIRA_API_TOKEN'],
    subprocess: false,
  },
  widening: [
    'network access (any host)',
    'reach *.atlassian.net',
    'read the environment variable JIRA_API_TOKEN',
  ],
  interpreters: {},
  interpreterWidening: [],
  tools: { added: ['jira_get_issue'], removed: [], changed: [] },
  pinned: false,
  unread: [],
};
const on = () => ({ available: true, reason: 'bwrap works' });
const off = () => ({ available: false, reason: 'no bwrap' });

function collect() {
  let text = '';
  return { write: (chunk: string) => (text += chunk), text: () => text };
}

describe('--allow grants', () => {
  it('reads every kind of grant into permissions', () => {
    expect(
      parseAllowGrants('read:project,write:temp,network,env:JIRA_API_TOKEN,subprocess'),
    ).toEqual({
      filesystem: { read: ['project', 'temp'], write: ['temp'] },
      network: { access: 'any', hosts: [] },
      env: ['JIRA_API_TOKEN'],
      subprocess: true,
    });
    expect(parseAllowGrants('host:api.example.com').network).toEqual({
      access: 'any',
      hosts: ['api.example.com'],
    });
  });

  it('refuses what is not a grant, saying which', () => {
    expect(() => parseAllowGrants('network,everything')).toThrow(/"everything" is not a grant/);
    expect(() => parseAllowGrants('read:/etc')).toThrow(/"\/etc" is not a filesystem root/);
    expect(() => parseAllowGrants('env:1BAD')).toThrow(/not an environment variable name/);
  });

  it('covers a pack only when it asks for nothing beyond the grants; network covers any host', () => {
    expect(findBeyondGrant(parseAllowGrants('network,env:JIRA_API_TOKEN'), jira)).toEqual([]);
    expect(
      findBeyondGrant(parseAllowGrants('host:*.atlassian.net,env:JIRA_API_TOKEN'), jira),
    ).toEqual([]);
    expect(
      findBeyondGrant(parseAllowGrants('host:api.example.com,env:JIRA_API_TOKEN'), jira),
    ).toEqual(['reach *.atlassian.net']);
    expect(findBeyondGrant(parseAllowGrants('env:JIRA_API_TOKEN'), jira)).toEqual([
      'network access (any host)',
      'reach *.atlassian.net',
    ]);
  });
});

describe('the approval text', () => {
  it('lists the permissions, what widened, the tool changes and the sandbox', () => {
    const text = renderApprovalRequest(
      {
        ...jira,
        previousVersion: '1.0.0',
        approved: LEAST_PERMISSIONS,
        tools: { added: ['jira_new'], removed: ['jira_old'], changed: ['jira_get_issue'] },
        pinned: true,
        unread: ['scripts/a.ps1: cannot be parsed'],
      },
      on(),
    );
    expect(text).toBe(
      [
        'jira@1.1.0 (from 1.0.0) asks that its tools may:',
        '  files: read its own folder; write nothing',
        '  network: any host (says it reaches *.atlassian.net)',
        '  environment: JIRA_API_TOKEN',
        '  programs: starts none',
        'More than you approved before:',
        '  + network access (any host)',
        '  + reach *.atlassian.net',
        '  + read the environment variable JIRA_API_TOKEN',
        'New tools: jira_new',
        'Changed tools (description, parameters or hints): jira_get_issue',
        'Removed tools: jira_old',
        'Some tools could not be read, so they are not compared (their pins are kept):',
        '  scripts/a.ps1: cannot be parsed',
        'Its tools run in the sandbox, confined to these permissions (bwrap works).',
        '',
      ].join('\n'),
    );
  });

  it('says plainly when the sandbox cannot be had', () => {
    expect(renderApprovalRequest(jira, off())).toContain(
      'The sandbox cannot be had on this machine (no bwrap): its tools will run with your full rights, whatever they declare.',
    );
  });
});

describe('asking', () => {
  it('approves only on y or yes; an empty answer or closed input is no', async () => {
    for (const [answer, expected] of [
      ['y\n', true],
      ['YES\n', true],
      ['\n', false],
      ['n\n', false],
      ['sure\n', false],
      ['', false],
    ] as const) {
      const input = new PassThrough();
      const output = collect();
      const asked = askYesNo({ input, output, question: 'Approve? [y/N] ' });
      input.end(answer);
      expect(await asked).toBe(expected);
      expect(output.text()).toBe('Approve? [y/N] ');
    }
  });

  it('on a terminal prints the request, then asks', async () => {
    const input = Object.assign(new PassThrough(), { isTTY: true });
    const output = collect();
    const approve = createApprover({ flags: {}, input, output, sandbox: on });
    const answer = approve!(jira);
    input.end('n\n');
    expect(await answer).toBe(false);
    expect(output.text()).toMatch(
      /^jira@1\.1\.0 asks that its tools may:\n[\s\S]*Approve\? \[y\/N\] $/,
    );
  });

  it('without a terminal, --yes or --allow there is no one to ask', () => {
    const input = new PassThrough();
    expect(createApprover({ flags: {}, input, output: collect(), sandbox: on })).toBeUndefined();
  });

  it('--yes approves and prints what it approved; --allow refuses what is beyond it', async () => {
    const input = new PassThrough();
    const output = collect();
    expect(await createApprover({ flags: { yes: true }, input, output, sandbox: off })!(jira)).toBe(
      true,
    );
    expect(output.text()).toMatch(/full rights, whatever they declare\.\nApproved \(--yes\)\.\n$/);
    const within = createApprover({
      flags: { allow: 'network,env:JIRA_API_TOKEN' },
      input,
      output,
      sandbox: on,
    });
    expect(await within!(jira)).toBe(true);
    const narrow = createApprover({
      flags: { allow: 'env:JIRA_API_TOKEN' },
      input,
      output,
      sandbox: on,
    });
    await expect(narrow!(jira)).rejects.toMatchObject({
      code: 'E_APPROVAL_DECLINED',
      message: expect.stringContaining(
        'asks for more than --allow grants (network access (any host), reach *.atlassian.net)',
      ),
    });
    expect(() =>
      createApprover({ flags: { yes: true, allow: 'network' }, input, output, sandbox: on }),
    ).toThrow(/--yes and --allow cannot be used together/);
  });
});

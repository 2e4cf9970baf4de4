import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { DiscoveredTool, ToolInvocation } from '@toolpack/core';
import { afterAll, describe, expect, it } from 'vitest';
import { findUnrunnableTools, groupUnrunnableTools } from './find-unrunnable-tools.ts';
import { findOnPath } from './find-on-path.ts';

const temp = mkdtempSync(path.join(os.tmpdir(), 'toolpack-unrunnable-'));
afterAll(() => rmSync(temp, { recursive: true, force: true }));

/** A folder holding only executables named `commands` (each exits 0), for a PATH of exactly them. */
function makeBin(name: string, commands: string[]): string {
  const dir = mkdtempSync(path.join(temp, `${name}-`));
  for (const command of commands) {
    const file = path.join(dir, process.platform === 'win32' ? `${command}.cmd` : command);
    writeFileSync(file, process.platform === 'win32' ? '@exit /b 0\r\n' : '#!/bin/sh\nexit 0\n');
    chmodSync(file, 0o755);
  }
  return dir;
}

function tool(name: string, invocation: ToolInvocation, pack?: string): DiscoveredTool {
  return {
    name,
    description: `${name} does something.`,
    inputSchema: { type: 'object', properties: {} },
    source: { kind: 'script', path: `/project/${name}`, line: 3, ...(pack ? { pack } : {}) },
    invocation,
    originalName: name,
  };
}

const pwshTool = tool('Get_Thing', { runner: 'pwsh', mode: 'script', scriptPath: 'Get-Thing.ps1' });
const basTool = tool('book_meeting', {
  runner: 'process',
  scriptPath: 'book-meeting.bas',
  extension: '.bas',
});
const pyTool = tool('convert', { runner: 'process', scriptPath: 'convert.py', extension: '.py' });
const workflow = tool('release', {
  runner: 'workflow',
  workflow: {
    name: 'release',
    description: 'd',
    enabled: true,
    path: 'release.yaml',
    steps: [{ id: 'a', tool: 'Get_Thing', with: {} }],
  },
});

describe('findUnrunnableTools', () => {
  it('names each tool this machine cannot run, why, and how to fix it', () => {
    const env = { PATH: makeBin('no-pwsh', ['bash']) };
    // The premise: neither pwsh nor python3 is on this PATH.
    expect(findOnPath('pwsh', env)).toBeUndefined();
    expect(findOnPath('python3', env)).toBeUndefined();
    const found = findUnrunnableTools({
      tools: [workflow, pwshTool, basTool, pyTool],
      env,
      cwd: temp,
    });
    expect(found.map((f) => [f.tool, f.reason])).toEqual([
      ['release', 'its steps call tools that cannot run here (Get_Thing)'],
      ['Get_Thing', 'PowerShell 7 (pwsh) is not on PATH'],
      ['book_meeting', 'no interpreter is configured for .bas files'],
      [
        'convert',
        `${process.platform === 'win32' ? 'python' : 'python3'}, the interpreter for .py files, is not on PATH`,
      ],
    ]);
    expect(found[1]).toMatchObject({ path: '/project/Get_Thing', line: 3 });
    expect(found[1]?.fix).toContain('dotnet tool install --global PowerShell');
    expect(found[2]?.fix).toContain('interpreters: { ".bas"');
  });

  it('finds nothing to say when pwsh and the interpreters are there', () => {
    const env = { PATH: makeBin('all', ['pwsh', 'python3', 'python', 'my-basic']) };
    expect(
      findUnrunnableTools({
        tools: [workflow, pwshTool, basTool, pyTool],
        env,
        cwd: temp,
        interpreters: { '.bas': ['my-basic', '--run'] },
      }),
    ).toEqual([]);
  });

  it('a configured interpreter missing from PATH is named, by its command', () => {
    const env = { PATH: makeBin('empty', []) };
    const [found] = findUnrunnableTools({
      tools: [basTool],
      env,
      cwd: temp,
      interpreters: { '.bas': ['no-such-basic'] },
    });
    expect(found?.reason).toBe('no-such-basic, the interpreter for .bas files, is not on PATH');
  });

  it("judges a pack's tool by its own interpreters, the project's tools by the project's", () => {
    const env = { PATH: makeBin('basic', ['my-basic']) };
    const packBas: DiscoveredTool = {
      ...tool(
        'acme_book',
        { runner: 'process', scriptPath: 'book.bas', extension: '.bas' },
        'acme',
      ),
    };
    const found = findUnrunnableTools({
      tools: [
        basTool,
        packBas,
        {
          ...packBas,
          name: 'acme_own',
          source: { ...packBas.source, interpreters: { '.bas': ['my-basic'] } },
        },
      ],
      env,
      cwd: temp,
      interpreters: { '.bas': ['my-basic', '--run'] },
    });
    expect(found.map((f) => [f.tool, f.reason])).toEqual([
      ['acme_book', 'no interpreter is configured for .bas files'],
    ]);
  });

  it("a pack's tool cannot run while a variable the pack requires is unset or empty", () => {
    const env = { PATH: makeBin('pack', ['pwsh']), JIRA_URL: 'https://jira.example' };
    const packs = [
      {
        alias: 'jira',
        name: 'jira',
        env: [
          { name: 'JIRA_URL', required: true, secret: false },
          { name: 'JIRA_TOKEN', required: true, secret: true },
          { name: 'JIRA_PROJECT', required: false, secret: false },
        ],
      },
    ];
    const packTool = tool(
      'jira_search',
      { runner: 'node-worker', modulePath: 'x.ts', exportName: 'search' },
      'jira',
    );
    const found = findUnrunnableTools({ tools: [packTool, pwshTool], env, cwd: temp, packs });
    expect(found).toEqual([
      expect.objectContaining({
        tool: 'jira_search',
        reason: 'the pack jira (jira) requires JIRA_TOKEN, which is not set',
      }),
    ]);
    expect(
      findUnrunnableTools({
        tools: [packTool],
        env: { ...env, JIRA_TOKEN: 't' },
        cwd: temp,
        packs,
      }),
    ).toEqual([]);
  });

  it('groups tools by what they lack, so one fix is printed once', () => {
    const env = { PATH: makeBin('group', []) };
    const second = tool('Set_Thing', {
      runner: 'pwsh',
      mode: 'script',
      scriptPath: 'Set-Thing.ps1',
    });
    const groups = groupUnrunnableTools(
      findUnrunnableTools({ tools: [pwshTool, basTool, second], env, cwd: temp }),
    );
    expect(groups.map((g) => g.tools)).toEqual([['Get_Thing', 'Set_Thing'], ['book_meeting']]);
  });
});

describe('findUnrunnableTools: server-bound credentials', () => {
  it("names the unset variables and missing files a tool's credentials read", () => {
    const secretFile = path.join(temp, 'token.txt');
    writeFileSync(secretFile, 'token\n');
    const bound = tool('Get_User', {
      runner: 'pwsh',
      mode: 'script',
      scriptPath: 'Get-User.ps1',
      credentials: [
        {
          parameter: 'Credential',
          type: 'pscredential',
          username: 'svc',
          password: { env: 'AD_PASSWORD' },
        },
        { parameter: 'Token', type: 'securestring', password: { file: secretFile } },
        {
          parameter: 'Key',
          type: 'securestring',
          password: { file: path.join(temp, 'none.txt') },
        },
      ],
    });
    const pwshOnPath = { PATH: makeBin('pwsh-for-secrets', ['pwsh']) };
    const [entry] = findUnrunnableTools({ tools: [bound], env: pwshOnPath, cwd: temp });
    expect(entry?.reason).toBe(
      `the credentials the server binds for it come from AD_PASSWORD, the file ${path.join(temp, 'none.txt')}, which are missing`,
    );
    writeFileSync(path.join(temp, 'none.txt'), 'key\n');
    expect(
      findUnrunnableTools({
        tools: [bound],
        env: { ...pwshOnPath, AD_PASSWORD: 'pw' },
        cwd: temp,
      }),
    ).toEqual([]);
  });
});

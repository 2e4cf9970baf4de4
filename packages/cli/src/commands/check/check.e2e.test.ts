// Checks that passed when they should not, tools that cannot run here, and did-you-mean
// (issue 15): each case first shows the situation is real, then what mcp says about it.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runMcp } from '../../testing/run-mcp.ts';
import { withoutPwsh } from '../../testing/without-pwsh.ts';
import { findOnPath } from '../../find-on-path.ts';

const repo = path.resolve(import.meta.dirname, '..', '..', '..', '..', '..');
const examples = path.join(repo, 'examples');
const officialPacks = path.join(repo, 'registry', 'packs');
const temp = mkdtempSync(path.join(os.tmpdir(), 'toolpack-check-'));
afterAll(() => rmSync(temp, { recursive: true, force: true }));

const mcp = (args: string[], cwd: string, env: NodeJS.ProcessEnv = {}) =>
  runMcp(args, { cwd, env: { ...process.env, ...env } });

/** A fresh project folder holding `files` (path -> text). */
function project(name: string, files: Record<string, string>): string {
  const dir = path.join(temp, name);
  for (const [file, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
    writeFileSync(path.join(dir, file), text);
  }
  mkdirSync(dir, { recursive: true });
  return dir;
}

const HELLO_SH = '#!/usr/bin/env bash\n# DESCRIPTION "Says hello."\necho hello\n';

describe('mcp check fails where it used to pass', () => {
  it('with no toolpack.yaml and no source flags: exit 1, saying what to do', () => {
    const dir = project('nothing', {});
    // The situation: there is nothing to serve but the built-ins.
    const list = mcp(['list', '--json'], dir);
    expect(list.code).toBe(0);
    expect(list.stderr).toContain('No sources');
    const { code, stdout } = mcp(['check'], dir);
    expect(stdout).toMatch(/error E_NO_SOURCES: Nothing to check: no toolpack\.yaml here/);
    expect(stdout).toMatch(/fix: Create toolpack\.yaml with your sources/);
    expect(code).toBe(1);
  });

  it('with a soruces: typo that drops every tool: exit 1, file:line and did-you-mean', () => {
    const dir = project('typo', {
      'toolpack.yaml': '# my tools\nsoruces:\n  - scripts: scripts\n',
      'scripts/hello.sh': HELLO_SH,
    });
    // The tool is real: with the key spelt right it is found.
    const flagged = mcp(['check', '--script-root', 'scripts', '--json'], dir);
    expect((JSON.parse(flagged.stdout) as { tools: { name: string }[] }).tools).toContainEqual(
      expect.objectContaining({ name: 'hello' }),
    );
    const { code, stdout } = mcp(['check'], dir);
    expect(stdout).toContain(
      'toolpack.yaml:2: error E_MANIFEST_UNKNOWN_KEY: soruces: unknown key.',
    );
    expect(stdout).toContain('fix: Did you mean sources?');
    expect(code).toBe(1);
    // Serving it is refused too, with the same pointer.
    const served = mcp(['list'], dir);
    expect(served.code).toBe(2);
    expect(served.stderr).toMatch(/toolpack\.yaml:2: error E_MANIFEST_UNKNOWN_KEY/);
  });

  it('with zero tools: exit 1; scaffolded tools outside every source get a hint', () => {
    const dir = project('empty', {
      'toolpack.yaml': 'sources: []\n',
      'scripts/hello.sh': HELLO_SH,
      'scripts/hello.test.sh': HELLO_SH,
    });
    const { code, stdout } = mcp(['check'], dir);
    expect(stdout).toMatch(/error E_NO_TOOLS: toolpack\.yaml has no sources and no packs/);
    expect(stdout).toMatch(
      /warning W_TOOLS_OUTSIDE_SOURCES: scripts\/ holds tool files that no source covers, so they are not served: scripts\/hello\.sh\./,
    );
    expect(stdout).toContain(
      'fix: Add `- scripts: scripts` under sources: in toolpack.yaml, or pass --script-root scripts.',
    );
    expect(code).toBe(1);

    const emptySource = project('empty-source', {
      'toolpack.yaml': 'sources:\n  - scripts: scripts\n',
      'scripts/README.md': 'nothing here\n',
    });
    const none = mcp(['check', '--json'], emptySource);
    expect(none.code).toBe(1);
    expect(
      (JSON.parse(none.stdout) as { diagnostics: { code: string }[] }).diagnostics.map(
        (d) => d.code,
      ),
    ).toContain('E_NO_TOOLS');
  });

  it('a project whose tools all come from a source passes with no hint', () => {
    const dir = project('fine', {
      'toolpack.yaml': 'sources:\n  - scripts: scripts\n',
      'scripts/hello.sh': HELLO_SH,
    });
    const { code, stdout } = mcp(['check'], dir);
    expect(stdout).toContain('3 tools checked: 0 errors, 0 warnings\n');
    expect(code).toBe(0);
  });

  it('a policy typo gets the hint about policies, not about sources', () => {
    const dir = project('policy-typo', {
      'toolpack.yaml': 'sources: []\npolicy:\n  alow: ["*"]\n',
    });
    const checked = mcp(['check'], dir);
    expect(checked.code).toBe(1);
    expect(checked.stdout).toMatch(
      /toolpack\.yaml:3: error E_MANIFEST_FIELD: policy: unknown key "alow"/,
    );
    const served = mcp(['serve', '--no-watch'], dir);
    expect(served.code).toBe(2);
    expect(served.stderr).toMatch(/hint: A policy is \{ allow: \[wildcards\]/);
    expect(served.stderr).not.toMatch(/hint: Each source is one of/);
  });
});

describe('tools that cannot run on this machine (examples/, PATH without pwsh)', () => {
  const env = withoutPwsh();
  const PWSH_TOOLS =
    'send_notification, bump_version, Get_DiskUsage, New_Greeting, Remove_TempFiles, Widgets_Get_Widget, Widgets_Add_Widget, Widgets_Clear_Widget';

  it('the premise: no pwsh on that PATH, and no .bas interpreter configured', () => {
    expect(findOnPath('pwsh', env)).toBeUndefined();
    expect(findOnPath('pwsh.exe', env)).toBeUndefined();
  });

  it('mcp check names each one with why and the fix, and still exits 0', () => {
    const { code, stdout } = mcp(['check', '--no-cache'], examples, env);
    expect(stdout).toContain(
      '10 of 19 tools cannot run on this machine (the project is fine; the machine lacks something):',
    );
    expect(stdout).toContain(`  PowerShell 7 (pwsh) is not on PATH: ${PWSH_TOOLS}\n`);
    expect(stdout).toContain('dotnet tool install --global PowerShell');
    expect(stdout).toContain('  no interpreter is configured for .bas files: book_meeting\n');
    expect(stdout).toContain(
      '  its steps call tools that cannot run here (bump_version, send_notification): workflow_prepare_release\n',
    );
    expect(stdout).toContain(
      '19 tools checked: 0 errors, 0 warnings; 10 cannot run on this machine',
    );
    expect(code).toBe(0);

    const json = mcp(['check', '--json'], examples, env);
    const report = JSON.parse(json.stdout) as {
      cannotRunHere: { tool: string; path: string; line?: number }[];
    };
    expect(report.cannotRunHere).toHaveLength(10);
    expect(report.cannotRunHere).toContainEqual(
      expect.objectContaining({
        tool: 'New_Greeting',
        path: 'powershell-scripts/New-Greeting.ps1',
        line: 7,
      }),
    );
  });

  it('mcp list names them after the table, and --json as cannotRunHere, as check --json does', () => {
    const { code, stdout } = mcp(['list'], examples, env);
    expect(code).toBe(0);
    expect(stdout).toContain(`PowerShell 7 (pwsh) is not on PATH: ${PWSH_TOOLS}`);
    type ListJson = { tools: unknown[]; diagnostics: unknown[]; cannotRunHere: unknown[] };
    const here = JSON.parse(mcp(['list', '--json'], examples, env).stdout) as ListJson;
    expect(Object.keys(here)).toEqual(['tools', 'diagnostics', 'cannotRunHere']);
    const checked = JSON.parse(mcp(['check', '--json'], examples, env).stdout) as ListJson;
    expect(here.cannotRunHere).toEqual(checked.cannotRunHere);
    expect(here.cannotRunHere).toHaveLength(10);
  });

  it('mcp serve says so on stderr at start and still serves all 19', () => {
    const { code, stdout, stderr } = mcp(['serve', '--no-watch'], examples, env);
    expect(code).toBe(0);
    expect(stdout).toBe('');
    expect(stderr).toContain(
      'toolpack: 10 of 19 tools cannot run on this machine (the project is fine; the machine lacks something):',
    );
    expect(stderr).toContain(`toolpack:   PowerShell 7 (pwsh) is not on PATH: ${PWSH_TOOLS}`);
    expect(stderr).toContain('toolpack: serving 19 tools from toolpack.yaml over stdio');
  });

  it('mcp doctor lists them per missing thing', () => {
    const { stdout } = mcp(['doctor', '--json'], examples, {
      ...env,
      TOOLPACK_REGISTRY: 'http://127.0.0.1:9',
    });
    const { checks } = JSON.parse(stdout) as {
      checks: { name: string; status: string; detail: string }[];
    };
    expect(checks.filter((c) => c.name === 'tools').map((c) => c.detail)).toEqual([
      `8 cannot run (PowerShell 7 (pwsh) is not on PATH): ${PWSH_TOOLS}`,
      '1 cannot run (no interpreter is configured for .bas files): book_meeting',
      '1 cannot run (its steps call tools that cannot run here (bump_version, send_notification)): workflow_prepare_release',
    ]);
  });

  it('with a pwsh on PATH only the .bas tool is named (a stand-in pwsh: nothing is started)', () => {
    const bin = path.join(temp, 'fake-pwsh');
    mkdirSync(bin, { recursive: true });
    writeFileSync(path.join(bin, 'pwsh'), '#!/bin/sh\nexit 1\n', { mode: 0o755 });
    const { code, stdout } = mcp(['check', '--json'], examples, {
      ...env,
      PATH: `${bin}${path.delimiter}${env.PATH ?? ''}`,
    });
    expect(code).toBe(0);
    expect(
      (JSON.parse(stdout) as { cannotRunHere: { tool: string }[] }).cannotRunHere.map(
        (t) => t.tool,
      ),
    ).toEqual(['book_meeting']);
  });
});

describe('an installed pack whose required env is unset', () => {
  it('mcp list and check name its tools and the variables to set', () => {
    const dir = project('with-jira', {});
    const unset = { JIRA_BASE_URL: '', JIRA_EMAIL: '', JIRA_API_TOKEN: '' };
    const added = mcp(['pack', 'add', 'jira', '--yes', '--registry', officialPacks], dir, unset);
    expect(added.code).toBe(0);
    const checked = mcp(['check'], dir, unset);
    expect(checked.code).toBe(0);
    expect(checked.stdout).toMatch(
      /the pack jira \(jira\) requires JIRA_BASE_URL, JIRA_EMAIL, JIRA_API_TOKEN, which are not set: jira_\w+/,
    );
    const set = mcp(['check', '--json'], dir, {
      JIRA_BASE_URL: 'https://jira.invalid',
      JIRA_EMAIL: 'me@example.invalid',
      JIRA_API_TOKEN: 'token',
    });
    expect((JSON.parse(set.stdout) as { cannotRunHere: unknown[] }).cannotRunHere).toEqual([]);
  });
});

describe('did you mean', () => {
  it('mcp pack add jiraa suggests the registry name jira', () => {
    const dir = project('typo-pack', {});
    const { code, stderr } = mcp(['pack', 'add', 'jiraa', '--registry', officialPacks], dir);
    expect(stderr).toContain('No pack named jiraa');
    expect(stderr).toContain('hint: Did you mean jira? mcp pack add jira');
    expect(code).toBe(1);
  });

  it('mcp call and mcp inspect suggest the tool a squashed or misspelt name meant', () => {
    const dir = path.join(examples, 'powershell-scripts');
    for (const command of ['call', 'inspect']) {
      const { code, stderr } = mcp([command, 'NewGreeting', '--no-cache'], dir);
      expect(stderr).toContain('No tool is named NewGreeting.');
      expect(stderr).toContain('hint: Did you mean New_Greeting?');
      expect(code).toBe(2);
    }
  });

  it('mcp call suggests the argument a near miss meant (maxlength -> max_length)', () => {
    const { code, stderr } = mcp(
      ['call', 'slugify', '--args', '{"title": "Hello World", "maxlength": 3}'],
      path.join(examples, 'scripts'),
    );
    expect(stderr).toContain('/maxlength is not an accepted argument (did you mean max_length?)');
    expect(code).toBe(1);
  });
});

describe('mcp check and what mcp new left to write', () => {
  it('fails a tool still described by the placeholder of mcp new, and passes once it is written', () => {
    const dir = project('placeholder', {});
    const created = mcp(['new', 'tool', 'word-count', '--kind', 'script', '--lang', 'sh'], dir);
    expect(created.code).toBe(0);
    // The situation: the scaffold lists and describes the tool by its placeholder.
    const list = mcp(['list', '--script-root', '.', '--json', '--no-cache'], dir);
    const listed = (JSON.parse(list.stdout) as { tools: { name: string; description: string }[] })
      .tools;
    expect(listed.find((tool) => tool.name === 'word_count')?.description).toMatch(
      /say here in one sentence what word_count does\.$/,
    );
    const { code, stdout } = mcp(['check', '--script-root', '.', '--no-cache'], dir);
    expect(stdout).toMatch(
      /word[-_]count\.sh:\d+: error E_PLACEHOLDER_DESCRIPTION: The tool word_count still has the description mcp new wrote as a placeholder/,
    );
    expect(stdout).toContain('fix: Replace it with one sentence saying what the tool does');
    expect(code).toBe(1);

    const file = path.join(dir, 'word_count.sh');
    const text = readFileSync(file, 'utf8').replace(
      /DESCRIPTION "[^"]*"/,
      'DESCRIPTION "Counts the words of a text."',
    );
    writeFileSync(file, text);
    const fixed = mcp(['check', '--script-root', '.', '--no-cache'], dir);
    expect(fixed.stdout).not.toContain('E_PLACEHOLDER_DESCRIPTION');
    expect(fixed.code).toBe(0);
  });
});

import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { JsonSchema } from '@toolpack/core';
import { findRuleViolations } from '@toolpack/server';
import { describe, expect, it } from 'vitest';
import { runCli } from '../../main.ts';
import { listTools } from './index.ts';

const examples = path.resolve(import.meta.dirname, '..', '..', '..', '..', '..', 'examples');

describe('listTools', () => {
  it('returns what mcp list --json prints, without a subprocess', async () => {
    const dir = path.join(examples, 'powershell-scripts');
    const report = await listTools({
      cwd: dir,
      env: process.env,
      sources: [],
      flags: { cache: false },
    });
    const expected = JSON.parse(readFileSync(path.join(dir, 'expected-list.json'), 'utf8')) as {
      tools: unknown[];
      diagnostics: unknown[];
    };
    expect({ tools: report.tools, diagnostics: report.diagnostics }).toEqual(expected);
  });

  it('--json --schema-dialect prints the input schemas tools/list sends in that dialect', async () => {
    const list = async (dialect: string) => {
      let stdout = '';
      const code = await runCli(['list', '--json', '--no-cache', '--schema-dialect', dialect], {
        stdout: { write: (text: string) => (stdout += text) },
        stderr: { write: () => undefined },
        cwd: path.join(examples, 'powershell-scripts'),
        env: { ...process.env, NO_COLOR: '1' },
      });
      expect(code).toBe(0);
      return (JSON.parse(stdout) as { tools: Array<{ name: string; inputSchema: JsonSchema }> })
        .tools;
    };
    const strict = await list('openai-strict');
    expect(strict.length).toBeGreaterThan(2);
    for (const tool of strict)
      expect(findRuleViolations(tool.inputSchema, 'openai-strict'), tool.name).toEqual([]);
    // The exact ones, as without the flag, are not strict-mode schemas.
    const exact = await list('exact');
    expect(
      exact.filter((tool) => findRuleViolations(tool.inputSchema, 'openai-strict').length > 0),
    ).not.toEqual([]);
  });

  it('reports that there are no sources through onNoSources, and lists only the built-ins', async () => {
    let noSources = 0;
    const report = await listTools({
      cwd: path.join(examples, 'powershell-scripts', 'no-such-folder'),
      env: process.env,
      sources: [],
      flags: {},
      onNoSources: () => noSources++,
    });
    expect(noSources).toBe(1);
    expect(report.tools.length).toBeGreaterThan(0);
    expect(report.tools.every((tool) => tool.source.kind === 'builtin')).toBe(true);
  });

  it('takes source flags in order and names the tools this machine cannot run', async () => {
    const report = await listTools({
      cwd: examples,
      env: { ...process.env, PATH: '' },
      sources: [{ scripts: 'powershell-scripts' }],
      flags: { include: ['New_*'], cache: false },
    });
    expect(report.tools.map((tool) => tool.name)).toEqual(['New_Greeting']);
    expect(report.cannotRunHere.map((entry) => entry.tool)).toEqual(['New_Greeting']);
  });

  it('--json carries the tools this machine cannot run as cannotRunHere, beside the same tools', async () => {
    const list = async (env: NodeJS.ProcessEnv) => {
      let stdout = '';
      const code = await runCli(
        [
          'list',
          '--json',
          '--no-cache',
          '--script-root',
          'powershell-scripts',
          '--include',
          'New_*',
        ],
        {
          stdout: { write: (text: string) => (stdout += text) },
          stderr: { write: () => undefined },
          cwd: examples,
          env: { ...env, NO_COLOR: '1' },
        },
      );
      expect(code).toBe(0);
      return JSON.parse(stdout) as { tools: unknown[]; cannotRunHere: unknown[] };
    };
    const withoutPwsh = await list({ ...process.env, PATH: '' });
    expect(withoutPwsh.cannotRunHere).toEqual([
      {
        tool: 'New_Greeting',
        path: 'powershell-scripts/New-Greeting.ps1',
        line: 7,
        reason: 'PowerShell 7 (pwsh) is not on PATH',
        fix: expect.stringMatching(/^Install PowerShell 7\.2\+ .* and put pwsh on PATH\.$/),
      },
    ]);
    // A PATH with a pwsh on it (a stand-in file is enough to be found) runs it: nothing to say.
    const bin = mkdtempSync(path.join(os.tmpdir(), 'toolpack-list-pwsh-'));
    try {
      writeFileSync(path.join(bin, 'pwsh'), '#!/bin/sh\n', { mode: 0o755 });
      const withPwsh = await list({ ...process.env, PATH: bin });
      expect(withPwsh.cannotRunHere).toEqual([]);
      expect(withPwsh.tools).toEqual(withoutPwsh.tools);
    } finally {
      rmSync(bin, { recursive: true, force: true });
    }
  });

  it('exits 1 when a module exports functions but none becomes a tool, and 0 once one does', async () => {
    const project = mkdtempSync(path.join(os.tmpdir(), 'toolpack-list-empty-'));
    try {
      mkdirSync(path.join(project, 'Quiet'));
      const psm1 = path.join(project, 'Quiet', 'Quiet.psm1');
      // No comment-based help: the one export is refused, so the module yields nothing.
      writeFileSync(psm1, 'function Get-Quiet {\n  param()\n}\n');
      const list = async () => {
        let stdout = '';
        const code = await runCli(['list', '--module', psm1, '--no-cache'], {
          stdout: { write: (text: string) => (stdout += text) },
          stderr: { write: () => undefined },
          cwd: project,
          env: { ...process.env, NO_COLOR: '1' },
        });
        return { code, stdout };
      };
      const empty = await list();
      expect(empty.stdout).toContain('E_MODULE_NO_TOOLS');
      expect(empty.code).toBe(1);
      writeFileSync(psm1, '<#\n.SYNOPSIS\nSays nothing.\n#>\nfunction Get-Quiet {\n  param()\n}\n');
      const served = await list();
      expect(served.stdout).not.toContain('E_MODULE_NO_TOOLS');
      expect(served.code).toBe(0);
    } finally {
      rmSync(project, { recursive: true, force: true });
    }
  });

  it('exits 1 when a module decides its exports at run time and there is no pwsh to ask', async () => {
    const project = mkdtempSync(path.join(os.tmpdir(), 'toolpack-list-needs-pwsh-'));
    const savedPath = process.env.PATH;
    try {
      mkdirSync(path.join(project, 'Listed'));
      const psm1 = path.join(project, 'Listed', 'Listed.psm1');
      writeFileSync(
        psm1,
        '<#\n.SYNOPSIS\nSays hello.\n#>\nfunction Get-Hello {\n  param()\n}\nExport-ModuleMember -Function Get-Hello\nExport-ModuleMember -Function ([System.IO.File]::ReadAllLines("$PSScriptRoot/more.txt"))\n',
      );
      // Discovery finds pwsh on this process's PATH, as the runners do.
      process.env.PATH = path.join(project, 'no-bin');
      let stdout = '';
      const code = await runCli(['list', '--module', psm1, '--no-cache'], {
        stdout: { write: (text: string) => (stdout += text) },
        stderr: { write: () => undefined },
        cwd: project,
        env: { ...process.env, NO_COLOR: '1' },
      });
      expect(stdout).toContain('Get_Hello');
      expect(stdout).toMatch(/Listed\.psm1:9: error E_MODULE_NEEDS_PWSH/);
      expect(code).toBe(1);
    } finally {
      process.env.PATH = savedPath;
      rmSync(project, { recursive: true, force: true });
    }
  });
});

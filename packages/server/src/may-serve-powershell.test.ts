import { mkdtempSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { mayServePowerShell } from './may-serve-powershell.ts';

let cwd: string;
beforeEach(() => {
  cwd = mkdtempSync(path.join(os.tmpdir(), 'toolpack-may-serve-'));
  mkdirSync(path.join(cwd, 'ps'));
  writeFileSync(path.join(cwd, 'ps', 'Get-Thing.PS1'), 'param()\n');
  mkdirSync(path.join(cwd, 'sh'));
  writeFileSync(path.join(cwd, 'sh', 'thing.sh'), 'echo\n');
});
afterEach(() => rmSync(cwd, { recursive: true, force: true }));

describe('mayServePowerShell', () => {
  it('says yes for tool folders, PowerShell modules and a scripts folder holding a .ps1', () => {
    expect(mayServePowerShell([{ tools: 'tools' }], cwd)).toBe(true);
    expect(mayServePowerShell([{ module: 'Mod/Mod.psd1' }], cwd)).toBe(true);
    expect(mayServePowerShell([{ module: 'PowerShellForGitHub' }], cwd)).toBe(true);
    expect(mayServePowerShell([{ scripts: 'sh' }, { scripts: 'ps' }], cwd)).toBe(true);
  });

  it('says no for JS modules, workflows, scripts folders without .ps1, missing folders and sandboxed sources', () => {
    expect(mayServePowerShell([{ module: 'add.mjs' }, { module: 'tools.ts' }], cwd)).toBe(false);
    expect(mayServePowerShell([{ workflows: 'flows' }], cwd)).toBe(false);
    expect(mayServePowerShell([{ scripts: 'sh' }, { scripts: 'absent' }], cwd)).toBe(false);
    expect(mayServePowerShell([{ tools: 'tools', sandbox: true }], cwd)).toBe(false);
    expect(mayServePowerShell([{ scripts: 'ps', pack: 'acme' }], cwd)).toBe(false);
  });
});

import { describe, expect, it } from 'vitest';
import { describePwsh } from './check-pwsh.ts';

describe("the doctor's pwsh line", () => {
  it('names a full PowerShell by its version', () => {
    expect(describePwsh({ version: '7.4.6', engineNote: '' })).toEqual({
      name: 'pwsh',
      status: 'ok',
      detail: 'PowerShell 7.4.6',
    });
  });

  it('says when pwsh is the engine without the built-in modules, and what tools need', () => {
    const check = describePwsh({
      version: '7.6.9',
      engineNote: 'PowerShell engine without the built-in modules (tools/pwsh-engine)',
    });
    expect(check.status).toBe('warn');
    expect(check.detail).toMatch(/^PowerShell engine without the built-in modules \(7\.6\.9\)/);
    expect(check.detail).toContain('module cmdlets');
    expect(check.hint).toMatch(/^Tools that use module cmdlets need a full PowerShell 7\.2\+/);
  });

  it('warns about a missing or too old pwsh with how to install one', () => {
    expect(describePwsh(undefined)).toMatchObject({
      status: 'warn',
      detail: expect.stringMatching(/not on PATH/),
      hint: expect.stringContaining('dotnet tool install --global PowerShell'),
    });
    expect(describePwsh({ version: '7.1.3', engineNote: '' })).toMatchObject({
      status: 'warn',
      detail: 'PowerShell 7.1.3 is older than 7.2, which the host needs',
    });
  });
});

import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { toInvokeFunctionName } from '@toolpack/core';
import { describe, expect, it } from 'vitest';
import { findPowerShellFunctions } from './find-functions.ts';

const functions = new URL('./fixtures/functions/', import.meta.url);

async function read(name: string): Promise<string> {
  return readFile(fileURLToPath(new URL(name, functions)), 'utf8');
}

describe('findPowerShellFunctions', () => {
  it('lists top-level functions with their lines, case preserved', async () => {
    expect(await findPowerShellFunctions(await read('send-notification.ps1'))).toEqual([
      { name: 'Invoke-SendNotification', line: 2 },
      { name: 'Invoke-WindowsOnly', line: 12 },
      { name: 'invoke-lowercase', line: 15 },
      { name: 'Invoke-Scoped', line: 16 },
      { name: 'Select-Even', line: 17 },
    ]);
  });

  it('lets a tool-folder check find Invoke-<PascalCase name>', async () => {
    const found = await findPowerShellFunctions(await read('send-notification.ps1'));
    expect(found.some((fn) => fn.name === toInvokeFunctionName('send_notification'))).toBe(true);
  });

  it('still lists what it can read from a file with a syntax error', async () => {
    const found = await findPowerShellFunctions(await read('broken.ps1'));
    expect(found.map((fn) => fn.name)).toContain('Invoke-First');
  });

  it('returns nothing for an empty file', async () => {
    expect(await findPowerShellFunctions('')).toEqual([]);
  });
});

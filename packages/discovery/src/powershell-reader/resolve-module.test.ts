import { delimiter, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { isToolpackError } from '@toolpack/core';
import { describe, expect, it } from 'vitest';
import { resolvePowerShellModule } from './resolve-module.ts';

const root = fileURLToPath(new URL('./fixtures/psmodulepath/', import.meta.url));
const psModulePath = ['first', 'second'].join(delimiter);

describe('resolvePowerShellModule', () => {
  it('picks the highest version folder of the first PSModulePath entry that has the module', async () => {
    expect(await resolvePowerShellModule('Versioned', { psModulePath, cwd: root })).toBe(
      join(root, 'first/Versioned/1.10.0/Versioned.psd1'),
    );
  });

  it('finds a module without version folders', async () => {
    expect(await resolvePowerShellModule('Flat', { psModulePath, cwd: root })).toBe(
      join(root, 'first/Flat/Flat.psm1'),
    );
  });

  it('searches later entries and matches names without regard to case', async () => {
    expect(await resolvePowerShellModule('onlyhere', { psModulePath, cwd: root })).toBe(
      join(root, 'second/OnlyHere/OnlyHere.psd1'),
    );
    expect(await resolvePowerShellModule('CASEMODULE', { psModulePath, cwd: root })).toBe(
      join(root, 'first/CaseModule/casemodule.psd1'),
    );
  });

  it('returns undefined when no entry has the module', async () => {
    expect(await resolvePowerShellModule('Missing', { psModulePath, cwd: root })).toBeUndefined();
    expect(await resolvePowerShellModule('Empty', { psModulePath, cwd: root })).toBeUndefined();
    expect(
      await resolvePowerShellModule('Versioned', { psModulePath: '', cwd: root }),
    ).toBeUndefined();
  });

  it('uses PSModulePath from the environment by default', async () => {
    const saved = process.env.PSModulePath;
    process.env.PSModulePath = join(root, 'second');
    try {
      expect(await resolvePowerShellModule('Versioned', { cwd: root })).toBe(
        join(root, 'second/Versioned/9.0.0/Versioned.psd1'),
      );
    } finally {
      if (saved === undefined) delete process.env.PSModulePath;
      else process.env.PSModulePath = saved;
    }
  });

  it('checks paths instead of searching', async () => {
    expect(await resolvePowerShellModule('./first/Flat/Flat.psm1', { cwd: root })).toBe(
      join(root, 'first/Flat/Flat.psm1'),
    );
    expect(await resolvePowerShellModule('first/Versioned', { cwd: root })).toBe(
      join(root, 'first/Versioned/1.10.0/Versioned.psd1'),
    );
    expect(await resolvePowerShellModule('./first/Flat/Nope.psm1', { cwd: root })).toBeUndefined();
  });

  it('throws for an empty name', async () => {
    const error = await resolvePowerShellModule(' ', { cwd: root }).catch((e: unknown) => e);
    expect(isToolpackError(error) && error.code).toBe('E_MODULE_NAME');
  });
});

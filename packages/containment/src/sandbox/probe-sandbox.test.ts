import type * as childProcess from 'node:child_process';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { describeSandbox, readSandboxRequest } from './probe-sandbox.ts';

describe('readSandboxRequest', () => {
  it('reads auto (also when unset) and off, and refuses anything else', () => {
    expect(readSandboxRequest({})).toBe('auto');
    expect(readSandboxRequest({ TOOLPACK_SANDBOX: ' Off ' })).toBe('off');
    expect(readSandboxRequest({ TOOLPACK_SANDBOX: 'auto' })).toBe('auto');
    expect(() => readSandboxRequest({ TOOLPACK_SANDBOX: 'on' })).toThrow(
      expect.objectContaining({
        code: 'E_CONTAINMENT_MODE',
        message: expect.stringContaining('TOOLPACK_SANDBOX=on'),
      }),
    );
  });
});

describe('describeSandbox', () => {
  it('says plainly that TOOLPACK_SANDBOX=off turns it off', () => {
    expect(describeSandbox({ TOOLPACK_SANDBOX: 'off' })).toEqual({
      available: false,
      reason: expect.stringMatching(/^TOOLPACK_SANDBOX=off turns the sandbox off/u),
    });
  });

  it('describes a wrong TOOLPACK_SANDBOX without throwing', () => {
    expect(describeSandbox({ TOOLPACK_SANDBOX: 'yes' })).toEqual({
      available: false,
      reason: expect.stringContaining('TOOLPACK_SANDBOX=yes is not a sandbox setting'),
    });
  });

  it.skipIf(process.platform !== 'linux')('names the bwrap it found when it works', () => {
    const description = describeSandbox({});
    if (description.available) expect(description.reason).toMatch(/bwrap confines/u);
    else expect(description.reason).toMatch(/bwrap|bubblewrap|namespaces/u);
  });
});

/** The probe with its surroundings replaced: a fresh module, so nothing cached leaks in. */
async function probeWith(mocks: {
  platform?: NodeJS.Platform;
  bwrap?: string | undefined;
  probeResult?: { status: number; stderr: string };
}) {
  vi.resetModules();
  vi.doMock('../find-system-tool.ts', () => ({
    findSystemTool: (name: string) =>
      name === 'bwrap' ? mocks.bwrap : name === 'true' ? '/usr/bin/true' : undefined,
  }));
  if (mocks.probeResult !== undefined) {
    const result = mocks.probeResult;
    vi.doMock('node:child_process', async (original) => ({
      ...(await original<typeof childProcess>()),
      spawnSync: () => ({ ...result, error: undefined, signal: null }),
    }));
  }
  const platform = Object.getOwnPropertyDescriptor(process, 'platform');
  if (mocks.platform !== undefined)
    Object.defineProperty(process, 'platform', { value: mocks.platform });
  try {
    const probe = await import('./probe-sandbox.ts');
    return probe.describeSandbox({});
  } finally {
    if (platform !== undefined) Object.defineProperty(process, 'platform', platform);
  }
}

describe('describeSandbox reasons where the sandbox cannot be had', () => {
  afterEach(() => {
    vi.doUnmock('../find-system-tool.ts');
    vi.doUnmock('node:child_process');
    vi.resetModules();
  });

  it('not Linux', async () => {
    expect(await probeWith({ platform: 'darwin', bwrap: '/usr/bin/bwrap' })).toEqual({
      available: false,
      reason: 'the sandbox (bubblewrap) is Linux-only; this is darwin',
    });
  });

  it('bwrap not installed', async () => {
    const description = await probeWith({ platform: 'linux', bwrap: undefined });
    expect(description.available).toBe(false);
    expect(description.reason).toMatch(/bwrap was not found .*install the bubblewrap package/u);
  });

  it('user namespaces refused', async () => {
    const description = await probeWith({
      platform: 'linux',
      bwrap: '/usr/bin/bwrap',
      probeResult: { status: 1, stderr: 'bwrap: setting up uid map: Permission denied\n' },
    });
    expect(description.available).toBe(false);
    expect(description.reason).toMatch(
      /cannot create its namespaces here \(bwrap: setting up uid map: Permission denied\).*user namespaces/u,
    );
  });
});

import { describe, expect, it } from 'vitest';
import { LEAST_PERMISSIONS, type PackPermissions } from '@toolpack/core';
import type { LockEntry } from '../lock/lockfile.ts';
import { hashToolDefinition } from '../pins/tool-hash.ts';
import { describeDrift, reviewPack } from './review-pack.ts';

const tool = (name: string, description = 'Does it.') => ({
  name,
  description,
  inputSchema: { type: 'object' },
});
const network: PackPermissions = {
  ...LEAST_PERMISSIONS,
  network: { access: 'any', hosts: [] },
};
const locked: LockEntry = {
  name: 'p',
  version: '1.0.0',
  resolved: 'file:p',
  integrity: 'sha512-x',
  permissions: LEAST_PERMISSIONS,
  tools: { p_a: hashToolDefinition(tool('p_a')) },
};
const check = (...tools: ReturnType<typeof tool>[]) => ({ tools: { p: tools }, collisions: [] });
const base = { alias: 'p', name: 'p', version: '1.1.0' };

describe('reviewPack', () => {
  it('asks nothing when the pack asks for what was approved and its tools are as pinned', () => {
    for (const mode of ['add', 'update', 'install', 'frozen'] as const) {
      const review = reviewPack({
        ...base,
        permissions: LEAST_PERMISSIONS,
        locked,
        check: check(tool('p_a')),
        mode,
      });
      expect([mode, review.drifted, review.needsApproval]).toEqual([mode, false, false]);
    }
  });

  it('reads a lock entry of another pack under the alias as nothing approved', () => {
    const review = reviewPack({
      ...base,
      permissions: LEAST_PERMISSIONS,
      locked: { ...locked, name: 'other' },
      check: check(tool('p_a')),
      mode: 'update',
    });
    expect(review.request).toMatchObject({ pinned: false, tools: { added: ['p_a'] } });
    expect(review.request.approved).toBeUndefined();
    expect(review.request.previousVersion).toBeUndefined();
    expect(review.needsApproval).toBe(true);
  });

  it('asks on update for a widening, not for a narrowing; frozen only reports drift', () => {
    const wider = reviewPack({ ...base, permissions: network, locked, mode: 'update' });
    expect(wider.needsApproval).toBe(true);
    expect(describeDrift(wider.request)).toBe(
      'p: p@1.1.0 (from 1.0.0): asks for more: network access (any host)',
    );
    const narrower = reviewPack({
      ...base,
      permissions: LEAST_PERMISSIONS,
      locked: { ...locked, permissions: network },
      mode: 'update',
    });
    expect([narrower.drifted, narrower.needsApproval]).toEqual([true, false]);
    expect(describeDrift(narrower.request)).toBe('p: p@1.1.0 (from 1.0.0): asks for less');
    expect(narrower.grant.permissions).toEqual(LEAST_PERMISSIONS);
    const frozen = reviewPack({ ...base, permissions: network, locked, mode: 'frozen' });
    expect([frozen.drifted, frozen.needsApproval]).toEqual([true, false]);
  });

  it('without a tool check keeps no pins and compares permissions only', () => {
    const review = reviewPack({ ...base, permissions: LEAST_PERMISSIONS, locked, mode: 'install' });
    expect(review.grant).toEqual({ permissions: LEAST_PERMISSIONS });
    expect(review.drifted).toBe(false);
  });
});

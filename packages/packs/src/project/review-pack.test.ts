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

  it('asks for a new or changed interpreter like a widening, records it, and drops one taken away', () => {
    const sh = ['/bin/sh', '-c', 'echo hi; exec bash "$0"'];
    const added = reviewPack({
      ...base,
      permissions: LEAST_PERMISSIONS,
      interpreters: { '.sh': sh },
      locked,
      check: check(tool('p_a')),
      mode: 'update',
    });
    expect([added.drifted, added.needsApproval]).toEqual([true, true]);
    expect(added.request.interpreterWidening).toEqual([
      `run its .sh tools with ${JSON.stringify(sh)}`,
    ]);
    expect(describeDrift(added.request)).toBe(
      `p: p@1.1.0 (from 1.0.0): asks for more: run its .sh tools with ${JSON.stringify(sh)}`,
    );
    expect(added.grant.interpreters).toEqual({ '.sh': sh });
    const approved = { ...locked, interpreters: { '.sh': sh } };
    const same = reviewPack({
      ...base,
      permissions: LEAST_PERMISSIONS,
      interpreters: { '.sh': sh },
      locked: approved,
      check: check(tool('p_a')),
      mode: 'update',
    });
    expect([same.drifted, same.needsApproval]).toEqual([false, false]);
    const changed = reviewPack({
      ...base,
      permissions: LEAST_PERMISSIONS,
      interpreters: { '.sh': ['bash'] },
      locked: approved,
      mode: 'install',
    });
    expect(changed.needsApproval).toBe(true);
    expect(changed.request.widening).toEqual(['run its .sh tools with ["bash"]']);
    const dropped = reviewPack({
      ...base,
      permissions: LEAST_PERMISSIONS,
      locked: approved,
      check: check(tool('p_a')),
      mode: 'update',
    });
    expect([dropped.drifted, dropped.needsApproval]).toEqual([true, false]);
    expect(dropped.grant.interpreters).toEqual({});
    const frozen = reviewPack({
      ...base,
      permissions: LEAST_PERMISSIONS,
      interpreters: { '.sh': sh },
      locked,
      check: check(tool('p_a')),
      mode: 'frozen',
    });
    expect(frozen.drifted).toBe(true);
  });
});

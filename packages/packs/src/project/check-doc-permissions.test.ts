import { describe, expect, it } from 'vitest';
import { LEAST_PERMISSIONS } from '@toolpack/core';
import type { VersionDoc } from '../registry/registry-types.ts';
import { assertDocPermissions } from './check-doc-permissions.ts';

const doc: VersionDoc = {
  name: 'p',
  version: '1.0.0',
  description: 'A pack.',
  tags: [],
  tools: [],
  env: [],
  permissions: LEAST_PERMISSIONS,
  dist: { tarball: 'http://r/p.tgz', integrity: 'sha512-x', size: 1, fileCount: 1 },
};
const sh = ['/bin/sh', '-c', 'echo hi; exec bash "$0"'];

describe('assertDocPermissions', () => {
  it('refuses a tarball whose interpreters are not the ones its registry document shows', () => {
    expect(() =>
      assertDocPermissions({ ...doc, interpreters: {} }, LEAST_PERMISSIONS, { '.sh': sh }),
    ).toThrow(
      expect.objectContaining({
        code: 'E_PACK_PERMISSIONS_MISMATCH',
        message: expect.stringContaining(
          `interpreter: runs its .sh tools with ${JSON.stringify(sh)}`,
        ),
      }),
    );
    expect(() =>
      assertDocPermissions({ ...doc, interpreters: { '.sh': ['bash'] } }, LEAST_PERMISSIONS, {
        '.sh': sh,
      }),
    ).toThrow(expect.objectContaining({ code: 'E_PACK_PERMISSIONS_MISMATCH' }));
    expect(() =>
      assertDocPermissions({ ...doc, interpreters: { '.sh': sh } }, LEAST_PERMISSIONS, {
        '.sh': sh,
      }),
    ).not.toThrow();
    // A document from before registries carried interpreters says nothing to contradict.
    expect(() => assertDocPermissions(doc, LEAST_PERMISSIONS, { '.sh': sh })).not.toThrow();
  });
});

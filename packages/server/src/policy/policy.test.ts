import { describe, expect, it } from 'vitest';
import type { DiscoveredTool } from '@toolpack/core';
import { createPolicyFilter, isRestrictive } from './policy.ts';

function tool(
  name: string,
  options: { originalName?: string; readOnly?: boolean } = {},
): DiscoveredTool {
  return {
    name,
    originalName: options.originalName ?? name,
    description: `${name} does things.`,
    inputSchema: { type: 'object', properties: {}, additionalProperties: false },
    ...(options.readOnly === undefined ? {} : { annotations: { readOnlyHint: options.readOnly } }),
    source: { kind: 'script', path: `/p/${name}.sh` },
    invocation: { runner: 'process', scriptPath: `/p/${name}.sh`, extension: '.sh' },
  };
}

describe('createPolicyFilter', () => {
  it('allows everything without a policy', () => {
    expect(isRestrictive(undefined)).toBe(false);
    expect(createPolicyFilter(undefined)(tool('anything'))).toEqual({ allowed: true });
    expect(createPolicyFilter({ allow: [], deny: [] })(tool('anything'))).toEqual({
      allowed: true,
    });
  });

  it('denies matching names case-insensitively, also by the source’s own name, and says by which rule', () => {
    const filter = createPolicyFilter({
      deny: ['*_DELETE*', 'Remove-*'],
      origin: 'toolpack.yaml:7',
    });
    expect(filter(tool('note_delete'))).toEqual({
      allowed: false,
      reason: 'Tool note_delete is denied by the policy in toolpack.yaml:7 (deny: "*_DELETE*").',
    });
    expect(filter(tool('Remove_TempFiles', { originalName: 'Remove-TempFiles' }))).toMatchObject({
      allowed: false,
    });
    expect(filter(tool('note_read'))).toEqual({ allowed: true });
  });

  it('keeps only allowed names when allow is given, and deny beats allow', () => {
    const filter = createPolicyFilter({ allow: ['note_*'], deny: ['note_delete'] });
    expect(filter(tool('note_read')).allowed).toBe(true);
    expect(filter(tool('note_delete')).allowed).toBe(false);
    const other = filter(tool('jira_create'));
    expect(other).toEqual({
      allowed: false,
      reason: 'Tool jira_create is not allowed by the policy (it matches none of allow: "note_*").',
    });
  });

  it('in readOnly mode keeps only tools that declare readOnlyHint: true', () => {
    const filter = createPolicyFilter({ readOnly: true, origin: 'policy.yaml' });
    expect(filter(tool('read', { readOnly: true })).allowed).toBe(true);
    expect(filter(tool('write', { readOnly: false }))).toMatchObject({
      allowed: false,
      reason: expect.stringMatching(/policy in policy\.yaml: readOnly is on/),
    });
    expect(filter(tool('unknown')).allowed).toBe(false);
  });
});

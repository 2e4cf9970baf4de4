import { describe, expect, it } from 'vitest';
import { LEAST_PERMISSIONS, type DiscoveredTool } from '@toolpack/core';
import { describeSandbox } from '@toolpack/runners';
import { describeConfinement, renderConfinement } from './describe-confinement.ts';

function makeTool(name: string, pack?: string): DiscoveredTool {
  return {
    name,
    originalName: name,
    description: name,
    inputSchema: { type: 'object' },
    source: {
      kind: 'script',
      path: `${name}.sh`,
      ...(pack === undefined
        ? {}
        : {
            pack,
            sandbox: { root: `.toolpack/packs/${pack}`, permissions: LEAST_PERMISSIONS },
          }),
    },
    invocation: { runner: 'process', command: 'bash', args: [] },
  } as unknown as DiscoveredTool;
}

const tools = [makeTool('own'), makeTool('jira_search', 'jira'), makeTool('git_log', 'git')];
const off = { TOOLPACK_SANDBOX: 'off' };

describe('describeConfinement', () => {
  it('is none when no tool asks to be confined', () => {
    const confinement = describeConfinement({
      tools: [makeTool('own')],
      requireSandbox: true,
      env: off,
    });
    expect(confinement.status).toBe('none');
    expect(renderConfinement(confinement)).toBeUndefined();
  });

  it('warns that pack tools run with full rights where the sandbox is off, and refuses them when required', () => {
    const unconfined = describeConfinement({ tools, requireSandbox: false, env: off });
    expect(unconfined).toMatchObject({ status: 'unconfined', count: 2, packs: ['git', 'jira'] });
    expect(renderConfinement(unconfined)).toMatch(
      /^W_SANDBOX_UNAVAILABLE 2 tools of git, jira run with your full rights here: .*TOOLPACK_SANDBOX=off.*--require-sandbox/,
    );
    const refused = describeConfinement({ tools, requireSandbox: true, env: off });
    expect(refused.status).toBe('refused');
    expect(renderConfinement(refused)).toContain('E_SANDBOX_REQUIRED');
  });

  it.skipIf(!describeSandbox({}).available)(
    'says the tools run in the sandbox where it works [needs bubblewrap]',
    () => {
      const confined = describeConfinement({ tools, requireSandbox: true, env: {} });
      expect(confined.status).toBe('confined');
      expect(renderConfinement(confined)).toMatch(/^2 tools of git, jira run in the sandbox/);
    },
  );
});

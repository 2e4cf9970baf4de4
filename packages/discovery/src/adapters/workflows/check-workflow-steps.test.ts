import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { DiscoveredTool } from '@toolpack/core';
import { checkWorkflowSteps } from './check-workflow-steps.ts';
import { discoverWorkflows } from './discover-workflows.ts';

const CYCLE = join(import.meta.dirname, 'fixtures', 'cycle');

describe('checkWorkflowSteps', async () => {
  const { tools } = await discoverWorkflows({ dir: CYCLE, cwd: '/' });
  const known = new Set([...tools.map((t) => t.name), 'local_tool']);

  it('reads the cycle fixtures', () => {
    expect(tools.map((t) => t.name)).toEqual([
      'workflow_a',
      'workflow_b',
      'workflow_c',
      'workflow_d',
    ]);
  });

  it('reports steps calling tools that are not served, at the step line, suggesting a close name', () => {
    const unknown = checkWorkflowSteps(tools, known).filter(
      (d) => d.code === 'E_WORKFLOW_UNKNOWN_TOOL',
    );
    expect(unknown).toEqual([
      {
        severity: 'error',
        code: 'E_WORKFLOW_UNKNOWN_TOOL',
        message: 'Step "typo" of workflow_d calls "locl_tool", which is not a served tool.',
        path: join(CYCLE, 'd.yaml'),
        line: 5,
        hint: 'Did you mean local_tool?',
      },
      expect.objectContaining({
        path: join(CYCLE, 'd.yaml'),
        line: 7,
        hint: expect.stringContaining('mcp list'),
      }),
    ]);
  });

  it('reports each workflow of a circle at the step that closes it', () => {
    const cycles = checkWorkflowSteps(tools, known).filter((d) => d.code === 'E_WORKFLOW_CYCLE');
    expect(cycles.map((d) => [d.path.split('/').pop(), d.line, d.message])).toEqual([
      [
        'a.yaml',
        5,
        'Step "call-b" of workflow_a makes workflows call each other in a circle: workflow_a -> workflow_b -> workflow_a.',
      ],
      [
        'b.yaml',
        3,
        'Step "call-a" of workflow_b makes workflows call each other in a circle: workflow_b -> workflow_a -> workflow_b.',
      ],
      ['c.yaml', 3, 'Step "again" of workflow_c calls workflow_c itself, which would never end.'],
    ]);
  });

  it('does not flag a workflow that only calls into a circle', () => {
    const diagnostics = checkWorkflowSteps(tools, known);
    expect(diagnostics.filter((d) => d.path.endsWith('d.yaml')).map((d) => d.code)).toEqual([
      'E_WORKFLOW_UNKNOWN_TOOL',
      'E_WORKFLOW_UNKNOWN_TOOL',
    ]);
  });

  it('ignores tools that are not workflows and is quiet when all is well', () => {
    const plain: DiscoveredTool = {
      name: 'local_tool',
      description: 'x',
      inputSchema: { type: 'object' },
      source: { kind: 'script', path: '/x.sh' },
      invocation: { runner: 'process', scriptPath: '/x.sh', extension: '.sh' },
      originalName: 'local_tool',
    };
    const a = tools.find((t) => t.name === 'workflow_a');
    expect(checkWorkflowSteps([plain], new Set(['local_tool']))).toEqual([]);
    const b = tools.find((t) => t.name === 'workflow_b');
    expect(a && b ? checkWorkflowSteps([a, b, plain], known).length : -1).toBe(2);
  });

  it('handles long chains without recursion limits', () => {
    const chain: DiscoveredTool[] = Array.from({ length: 2000 }, (_, i) => ({
      name: `workflow_${i}`,
      description: 'x',
      inputSchema: { type: 'object' },
      source: { kind: 'workflow', path: `/w/${i}.yaml` },
      invocation: {
        runner: 'workflow',
        workflow: {
          name: `${i}`,
          description: 'x',
          enabled: true,
          path: `/w/${i}.yaml`,
          steps: [{ id: 's', tool: `workflow_${(i + 1) % 2000}`, with: {}, line: 3 }],
        },
      },
      originalName: `${i}`,
    }));
    const names = new Set(chain.map((t) => t.name));
    const started = Date.now();
    const diagnostics = checkWorkflowSteps(chain, names);
    expect(diagnostics).toHaveLength(2000);
    expect(Date.now() - started).toBeLessThan(3000);
  });
});

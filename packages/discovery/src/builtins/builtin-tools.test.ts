import { describe, expect, it } from 'vitest';
import { buildInputSchema, type ToolDefinition } from '@toolpack/core';
import { createBuiltinTools, describeTool, findTools } from './builtin-tools.ts';

const tool = (name: string, description: string): ToolDefinition => ({
  name,
  description,
  inputSchema: buildInputSchema([]),
  source: { kind: 'script', path: `/p/${name}.ps1`, line: 3 },
});

const catalogue = [
  tool('send_notification', 'Sends a notification to the team channel.'),
  tool('list_tasks', 'Lists open tasks; notification settings are not touched.'),
  tool('jira_create_issue', 'Creates a Jira issue.'),
];

describe('built-in tools', () => {
  it('are find_tools and describe_tool, read-only, with valid schemas', () => {
    const builtins = createBuiltinTools();
    expect(builtins.map((t) => t.name)).toEqual(['find_tools', 'describe_tool']);
    for (const b of builtins) {
      expect(b.annotations?.readOnlyHint).toBe(true);
      expect(b.source.kind).toBe('builtin');
    }
    expect(builtins[0]?.inputSchema.required).toEqual(['query']);
  });

  it('find_tools ranks name matches above description matches, by word prefix', () => {
    expect(findTools(catalogue, 'notif').map((m) => m.name)).toEqual([
      'send_notification',
      'list_tasks',
    ]);
    expect(findTools(catalogue, 'create JIRA issue')[0]).toMatchObject({
      name: 'jira_create_issue',
      score: 12,
    });
    expect(findTools(catalogue, 'notif', 1)).toHaveLength(1);
    expect(findTools(catalogue, '  ,; ')).toEqual([]);
    expect(findTools(catalogue, 'zebra')).toEqual([]);
  });

  it('describe_tool returns the client-facing definition or nothing', () => {
    expect(describeTool(catalogue, 'list_tasks')).toEqual(catalogue[1]);
    expect(describeTool(catalogue, 'nope')).toBeUndefined();
  });
});

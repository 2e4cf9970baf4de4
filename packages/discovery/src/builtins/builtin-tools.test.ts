import { describe, expect, it } from 'vitest';
import { buildInputSchema, type ToolDefinition } from '@toolpack/core';
import {
  createBuiltinTools,
  createCallToolBuiltin,
  describeTool,
  findTools,
} from './builtin-tools.ts';

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
    expect(findTools(catalogue, 'create JIRA issues')[0]?.name).toBe('jira_create_issue');
    expect(findTools(catalogue, 'notif', 1)).toHaveLength(1);
    expect(findTools(catalogue, '  ,; ')).toEqual([]);
    expect(findTools(catalogue, 'zebra')).toEqual([]);
  });

  it('describe_tool returns the client-facing definition or nothing', () => {
    expect(describeTool(catalogue, 'list_tasks')).toEqual(catalogue[1]);
    expect(describeTool(catalogue, 'nope')).toBeUndefined();
  });

  it('describe_tool returns the input examples and parameter sets, not the invocation', () => {
    const withExamples = {
      ...tool('get_widget', 'Gets a widget.'),
      inputExamples: [{ arguments: { name: 'a' }, description: 'The widget named a.' }],
      parameterSets: [
        { name: 'ByName', isDefault: true, parameters: ['name'], required: ['name'] },
        { name: 'ById', isDefault: false, parameters: ['id'], required: ['id'] },
      ],
      invocation: { runner: 'process' as const, scriptPath: '/p/w.sh', extension: 'sh' },
    };
    const described = describeTool([withExamples], 'get_widget');
    expect(described?.inputExamples).toEqual(withExamples.inputExamples);
    expect(described?.parameterSets).toEqual(withExamples.parameterSets);
    expect(described).not.toHaveProperty('invocation');
  });

  it('call_tool takes a name and an arguments object, and is not served by default', () => {
    const callTool = createCallToolBuiltin();
    expect(callTool.inputSchema.required).toEqual(['name']);
    expect(Object.keys(callTool.inputSchema.properties ?? {})).toEqual(['name', 'arguments']);
    expect(createBuiltinTools().map((t) => t.name)).not.toContain('call_tool');
  });
});

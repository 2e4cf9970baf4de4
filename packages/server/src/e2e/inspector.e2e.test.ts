import { readFileSync } from 'node:fs';
import path from 'node:path';
import { PWSH_TEST_TAG, hasPwsh } from '@toolpack/pwsh-probe';
import { describe, expect, it } from 'vitest';
import { examples, hasInspector, runInspectorCli } from '../testing/index.ts';

// The official MCP Inspector's CLI mode, driving `mcp serve` over stdio as a third-party
// client would. It is a devDependency, so it runs offline.
// Exact schemas: tools/list is compared with `mcp list --json`, which shows each tool's own.
const runInspector = (example: string, method: string[]) =>
  runInspectorCli({
    cwd: path.join(examples, example),
    method,
    serveArgs: ['--schema-dialect', 'exact'],
  });

/** A result's text blocks and structured content, as one searchable string. */
function contentOf(json: Record<string, unknown>): string {
  const texts = ((json.content ?? []) as { text?: string }[]).map((block) => block.text ?? '');
  return [...texts, JSON.stringify(json.structuredContent ?? {})].join('\n');
}

// The Inspector's exit code for a tool result with isError: true.
const TOOL_IS_ERROR = 5;

interface ExampleCall {
  example: string;
  tool: string;
  args: string[];
  needsPwsh: boolean;
  /** What the result must contain when the tool can run here. */
  expected?: RegExp;
  /** The message when it cannot (no PowerShell, no .bas interpreter). */
  unavailable?: RegExp;
}

const calls: ExampleCall[] = [
  {
    example: 'js-tools',
    tool: 'add_numbers',
    args: ['numbers=[1,2,39]'],
    needsPwsh: false,
    expected: /"sum":\s*42/,
  },
  {
    example: 'scripts',
    tool: 'word_count',
    args: ['text=one two three'],
    needsPwsh: false,
    expected: /"words":\s*3/,
  },
  {
    example: 'dotbot-tools',
    tool: 'list_tasks',
    args: ['limit=2'],
    needsPwsh: false,
    expected: /Write the release notes/,
  },
  {
    example: 'basic',
    tool: 'book_meeting',
    args: ['room=Atlas', 'day=2026-12-01', 'attendees=4'],
    needsPwsh: false,
    unavailable: /No interpreter is configured for "\.bas"/,
  },
  {
    example: 'powershell-scripts',
    tool: 'New_Greeting',
    args: ['Name=Ada'],
    needsPwsh: true,
    expected: /Ada/,
  },
  {
    example: 'powershell-module',
    tool: 'Widgets_Get_Widget',
    args: [],
    needsPwsh: true,
    expected: /./,
  },
  {
    example: 'workflows',
    tool: 'workflow_prepare_release',
    args: ['current=1.4.2'],
    needsPwsh: true,
    expected: /1\.4\.3/,
  },
];

const missingPwsh = /PowerShell 7 \(pwsh\) is not installed/;

describe.skipIf(!hasInspector)('Inspector CLI against mcp serve (stdio) [needs Inspector]', () => {
  it.each(calls.map((c) => c.example))('%s: tools/list matches mcp list', (example) => {
    const { code, json, stderr } = runInspector(example, ['--method', 'tools/list']);
    expect(code, stderr).toBe(0);
    const expected = JSON.parse(
      readFileSync(path.join(examples, example, 'expected-list.json'), 'utf8'),
    ) as {
      tools: { name: string; inputSchema: unknown; annotations?: unknown }[];
    };
    const tools = json.tools as { name: string; inputSchema: unknown; annotations?: unknown }[];
    expect(tools.map((t) => t.name)).toEqual(expected.tools.map((t) => t.name));
    for (const [i, tool] of tools.entries()) {
      expect(tool.inputSchema).toEqual(expected.tools[i]?.inputSchema);
      expect(tool.annotations).toEqual(expected.tools[i]?.annotations);
    }
  });

  const callArgs = (call: ExampleCall) => [
    '--method',
    'tools/call',
    '--tool-name',
    call.tool,
    ...call.args.flatMap((a) => ['--tool-arg', a]),
  ];

  for (const call of calls.filter((c) => c.expected !== undefined)) {
    it.skipIf(call.needsPwsh && !hasPwsh)(
      `${call.needsPwsh ? `${PWSH_TEST_TAG} ` : ''}${call.example}: tools/call ${call.tool} succeeds`,
      () => {
        const { code, json, stderr } = runInspector(call.example, callArgs(call));
        expect(code, stderr).toBe(0);
        expect(json.isError, JSON.stringify(json)).toBeFalsy();
        expect(contentOf(json)).toMatch(call.expected ?? /./);
      },
    );
  }

  for (const call of calls.filter((c) => c.unavailable !== undefined || c.needsPwsh)) {
    it.skipIf(call.unavailable === undefined && hasPwsh)(
      `${call.example}: tools/call ${call.tool} answers isError saying how to make it run${
        call.unavailable === undefined ? ' [needs no pwsh on PATH]' : ''
      }`,
      () => {
        const { code, json, stderr } = runInspector(call.example, callArgs(call));
        expect(code, stderr).toBe(TOOL_IS_ERROR);
        expect(json.isError).toBe(true);
        expect(contentOf(json)).toMatch(call.unavailable ?? missingPwsh);
      },
    );
  }
});

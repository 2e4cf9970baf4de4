import { spawnSync } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { PWSH_TEST_TAG, hasPwsh } from '@toolpack/pwsh-probe';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  childEnv,
  cliBin,
  startHttpServe,
  startStdioSession,
  type StdioSession,
} from '../testing/index.ts';

// One failing tool per runner kind, each failing on a file of the project: what reaches the
// client names it relative to the project, and names no folder of this machine.
const project = path.join(import.meta.dirname, 'fixtures', 'failing-project');
const MACHINE_PATHS = [project, os.tmpdir(), os.homedir(), 'file://'];

const FAILURES: { tool: string; args?: Record<string, unknown>; cause: RegExp; pwsh?: boolean }[] =
  [
    {
      tool: 'fail_bash',
      cause: /scripts\/fail_bash\.sh: line 2: no-such-archiver: command not found/,
    },
    {
      tool: 'fail_python',
      cause: /File "scripts\/fail_python\.py", line 5[\s\S]*'scripts\/missing\.json'/,
    },
    {
      tool: 'fail_node',
      cause: /open 'scripts\/missing\.json'[\s\S]*at scripts\/fail_node\.mjs:4/,
    },
    {
      tool: 'greet',
      args: { name: 'Ada' },
      cause: /scripts\/greet\.bas: line 1: this interpreter runs no BASIC/,
    },
    { tool: 'read_module_settings', cause: /open 'settings\.json' \(settings\.mjs:\d+:\d+\)/ },
    {
      tool: 'workflow_archive_then_greet',
      cause: /\(fail_bash, workflows\/archive-then-greet\.yaml:5\)[\s\S]*command not found/,
    },
    {
      tool: 'Read_Settings',
      cause:
        /Cannot find path 'scripts\/settings\.json' because it does not exist\. \(at scripts\/Read-Settings\.ps1:6\)/,
      pwsh: true,
    },
  ];

function textOf(result: { content?: unknown }): string {
  return ((result.content ?? []) as { type: string; text?: string }[])
    .filter((block) => block.type === 'text')
    .map((block) => block.text)
    .join('\n');
}

function findMachinePaths(text: string): string[] {
  return MACHINE_PATHS.filter((found) => text.includes(found));
}

describe('what a client sees names no path of the server machine', () => {
  let session: StdioSession;
  const logs: string[] = [];

  beforeAll(async () => {
    session = await startStdioSession(['--no-cache', '--no-watch'], { cwd: project });
    session.client.setNotificationHandler('notifications/message', (notification) => {
      logs.push(JSON.stringify(notification.params.data));
    });
    await session.client.setLoggingLevel('debug');
  });

  afterAll(async () => {
    await session?.close();
  });

  for (const { tool, args, cause, pwsh } of FAILURES) {
    it.skipIf(pwsh === true && !hasPwsh)(
      `${pwsh === true ? `${PWSH_TEST_TAG} ` : ''}${tool}: the failure names project files relative to the project`,
      async () => {
        const result = await session.client.callTool({ name: tool, arguments: args ?? {} });
        expect(result.isError).toBe(true);
        const text = textOf(result);
        expect(text).toMatch(cause);
        expect(findMachinePaths(text), text).toEqual([]);
      },
    );
  }

  it('the log messages of those calls, tools/list and describe_tool name none either', async () => {
    const { tools } = await session.client.listTools();
    expect(findMachinePaths(JSON.stringify(tools))).toEqual([]);
    const described = await session.client.callTool({
      name: 'describe_tool',
      arguments: { name: 'fail_bash' },
    });
    expect(described.structuredContent).toMatchObject({
      source: { path: 'scripts/fail_bash.sh', line: 1 },
    });
    expect(findMachinePaths(JSON.stringify(described))).toEqual([]);
    // The calls above logged their stderr (a traceback, bash's complaint).
    expect(logs.join('\n')).toContain('command not found');
    expect(findMachinePaths(logs.join('\n'))).toEqual([]);
  });

  it('without the boundary (mcp call prints for the local user) the same failure carries the path', () => {
    const called = spawnSync(process.execPath, [cliBin, 'call', 'fail_bash'], {
      cwd: project,
      env: childEnv(),
      encoding: 'utf8',
    });
    expect(`${called.stdout}${called.stderr}`).toContain(
      `${project}/scripts/fail_bash.sh: line 2: no-such-archiver`,
    );
  });
});

describe('over Streamable HTTP the same boundary applies', () => {
  it('a failing tool names its script relative to the project', async () => {
    const server = await startHttpServe(['--no-cache', '--no-watch'], { cwd: project });
    const client = new Client({ name: 'toolpack-paths-http', version: '1.0.0' });
    try {
      await client.connect(new StreamableHTTPClientTransport(server.url));
      const result = await client.callTool({ name: 'fail_python', arguments: {} });
      expect(result.isError).toBe(true);
      const text = textOf(result);
      expect(text).toMatch(/File "scripts\/fail_python\.py", line 5/);
      expect(findMachinePaths(text)).toEqual([]);
    } finally {
      await client.close().catch(() => undefined);
      server.kill();
    }
  });
});

// dotbot's tool folders, served as they are written: metadata.yaml + script.ps1 (+ test.ps1)
// under systems/mcp/tools and .bot/workflows/*/tools, called as Invoke-X -Arguments @{...}.
import { realpathSync } from 'node:fs';
import path from 'node:path';
import { PWSH_TEST_TAG, hasPwsh } from '@toolpack/pwsh-probe';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  copySeedFixture,
  listToolsByName,
  readStructured,
  runMcp,
  startSeedServer,
  type ListedTool,
  type StdioSession,
} from './seed-helpers.ts';

const sources = ['--tools-dir', 'systems/mcp/tools', '--tools-dir', '.bot/workflows/*/tools'];

let project: ReturnType<typeof copySeedFixture>;
let session: StdioSession;
let tools: Map<string, ListedTool>;

beforeAll(async () => {
  project = copySeedFixture('dotbot');
  session = await startSeedServer(sources, { cwd: project.dir });
  tools = await listToolsByName(session);
}, 60_000);

afterAll(async () => {
  await session?.close();
  project?.remove();
});

describe('dotbot tool folders: listing (no PowerShell needed)', () => {
  it('serves every folder of both locations, workflow-scoped ones included', () => {
    expect(
      [...tools.keys()].filter((name) => !['find_tools', 'describe_tool'].includes(name)),
    ).toEqual(['plan_task', 'summarize_tasks', 'repo_clone', 'jira_repo_clone']);
  });

  it('keeps the metadata schema as written: additionalProperties true, enum, range, arrays, required', () => {
    const schema = tools.get('plan_task')?.inputSchema;
    expect(schema).toMatchObject({
      type: 'object',
      additionalProperties: true,
      required: ['title', 'summary'],
      properties: {
        weight: { type: 'integer', minimum: 1, maximum: 100 },
        size: { type: 'string', enum: ['XS', 'S', 'M', 'L', 'XL'] },
        blocked_by: { type: 'array', items: { type: 'string' } },
        done_when: { type: 'array', items: { type: 'string' } },
      },
    });
    expect(tools.get('summarize_tasks')?.inputSchema).toMatchObject({
      properties: {},
      additionalProperties: false,
    });
  });

  it('warns about a name two workflows define and serves the one loaded last', async () => {
    expect(tools.get('repo_clone')?.description).toMatch(/beta-stack copy/);
    expect(session.stderr()).toMatch(
      /W_COLLISION[^\n]*repo_clone[^\n]*beta-stack[^\n]*last one wins/,
    );
    const listed = await runMcp(['list', '--no-cache', '--json', ...sources], {
      cwd: project.dir,
    });
    const { diagnostics } = JSON.parse(listed.stdout) as {
      diagnostics: { severity: string; code: string; path: string }[];
    };
    expect(diagnostics.filter((d) => d.code === 'W_COLLISION')).toEqual([
      expect.objectContaining({
        severity: 'warning',
        path: '.bot/workflows/beta-stack/tools/repo-clone/metadata.yaml',
      }),
    ]);
  });

  it('refuses arguments outside the metadata schema before any script runs', async () => {
    const result = await session.client.callTool({
      name: 'plan_task',
      arguments: { title: 'x', summary: 'y', weight: 101, size: 'XXL' },
    });
    expect(result.isError).toBe(true);
  });
});

describe.skipIf(!hasPwsh)('dotbot tool folders: calls', () => {
  it(`${PWSH_TEST_TAG} calls Invoke-PlanTask with the -Arguments hashtable, arrays and extra keys included`, async () => {
    const result = await session.client.callTool({
      name: 'plan_task',
      arguments: {
        title: 'ship it',
        summary: 'Cut the release.',
        weight: 5,
        size: 'M',
        blocked_by: ['t-1', 't-2', 't-3'],
        done_when: ['tagged', 'announced'],
        reviewer: 'grace',
      },
    });
    expect(readStructured(result)).toEqual({
      planned: 'planned ship it',
      weight: 5,
      size: 'M',
      blockers: 3,
      checks: ['tagged', 'announced'],
      extra_keys: ['reviewer'],
    });
  });

  it(`${PWSH_TEST_TAG} runs a tool with only its required arguments`, async () => {
    const result = await session.client.callTool({
      name: 'plan_task',
      arguments: { title: 'small', summary: 'Only what is required.' },
    });
    expect(readStructured(result)).toMatchObject({
      planned: 'planned small',
      weight: 50,
      blockers: 0,
    });
  });

  it(`${PWSH_TEST_TAG} gives the script $global:DotbotProjectRoot: the tool reads the project copy it was started in`, async () => {
    const result = readStructured<{ root: string; files: number; counts: Record<string, number> }>(
      await session.client.callTool({ name: 'summarize_tasks', arguments: {} }),
    );
    expect(realpathSync(result.root)).toBe(realpathSync(project.dir));
    expect(result).toMatchObject({ files: 4, counts: { todo: 2, 'in-progress': 1, done: 1 } });
  });

  it(`${PWSH_TEST_TAG} calls workflow-scoped tools, and the last-loaded repo_clone answers`, async () => {
    expect(
      readStructured(
        await session.client.callTool({
          name: 'repo_clone',
          arguments: { url: 'git@example.test:a.git' },
        }),
      ),
    ).toEqual({ stack: 'beta-stack', url: 'git@example.test:a.git' });
    const clone = readStructured<{ workflow: string; target: string }>(
      await session.client.callTool({ name: 'jira_repo_clone', arguments: { key: 'OPS' } }),
    );
    expect(clone.workflow).toBe('jira-sync');
    expect(path.relative(realpathSync(project.dir), clone.target)).toBe(
      path.join('.bot', 'workspace', 'repos', 'OPS'),
    );
  });

  it(
    `${PWSH_TEST_TAG} runs test.ps1 against a running server it gets as -Process, as mcp test does`,
    { timeout: 90_000 },
    async () => {
      const run = await runMcp(
        ['test', '--no-cache', '--json', ...sources, '--include', 'plan_task'],
        {
          cwd: project.dir,
        },
      );
      const report = JSON.parse(run.stdout) as {
        results: {
          name: string;
          kind: string;
          status: string;
          files?: string[];
          output?: string;
        }[];
        summary: { passed: number; failed: number; skipped: number };
      };
      expect(report.results, run.stdout).toEqual([
        expect.objectContaining({
          name: 'plan_task',
          kind: 'test',
          status: 'passed',
          files: ['systems/mcp/tools/plan-task/test.ps1'],
        }),
      ]);
      expect(run.code).toBe(0);
    },
  );
});

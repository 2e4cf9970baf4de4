import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ParseCache, SourceResult } from '../../types.ts';
import { describeWorkflow } from './describe-workflow.ts';
import { WORKFLOW_PARSER, discoverWorkflows } from './discover-workflows.ts';

const FIXTURES = join(import.meta.dirname, 'fixtures');

function describeFixture(name: string): SourceResult {
  const path = join(FIXTURES, name);
  return describeWorkflow({ path, content: readFileSync(path, 'utf8') });
}

function codesAndLines(result: SourceResult): [string, number | undefined][] {
  return result.diagnostics.map((d) => [d.code, d.line]);
}

describe('describeWorkflow: good workflows', () => {
  it('serves a workflow as workflow_<name> with its inputs as the schema', () => {
    const path = join(FIXTURES, 'good/triage-issue.yaml');
    const result = describeFixture('good/triage-issue.yaml');
    expect(result.tools).toHaveLength(1);
    expect(result.tools[0]).toEqual({
      name: 'workflow_triage_issue',
      originalName: 'triage-issue',
      description: 'Fetches an issue and summarizes it',
      inputSchema: {
        type: 'object',
        properties: {
          issue_key: { type: 'string', pattern: '^[A-Z]+-\\d+$', description: 'The Jira key' },
          max_words: { type: 'integer', minimum: 10, description: 'Longest summary', default: 100 },
        },
        required: ['issue_key'],
        additionalProperties: false,
      },
      source: { kind: 'workflow', path, line: 1 },
      invocation: {
        runner: 'workflow',
        workflow: {
          name: 'triage-issue',
          description: 'Fetches an issue and summarizes it',
          enabled: true,
          path,
          steps: [
            { id: 'fetch', tool: 'jira_get_issue', with: { key: '${input.issue_key}' }, line: 15 },
            {
              id: 'summarize',
              tool: 'summarize_text',
              with: {
                text: 'Issue ${input.issue_key}: ${steps.fetch.result.fields.description}',
                max: '${input.max_words}',
              },
              line: 19,
            },
          ],
          output: '${steps.summarize.result}',
        },
      },
    });
    expect(result.diagnostics).toEqual([
      expect.objectContaining({ severity: 'info', code: 'I_RENAMED', line: 1 }),
    ]);
  });

  it('names a workflow after its file, reads type shorthands, nested references, $${ escapes, title, annotations, timeout and longRunning', () => {
    const result = describeFixture('good/daily-report.yml');
    expect(result.diagnostics.map((d) => d.code)).toEqual(['I_RENAMED']);
    expect(result.tools[0]).toMatchObject({
      name: 'workflow_daily_report',
      originalName: 'daily-report',
      title: 'Daily report',
      annotations: { openWorldHint: true },
      timeoutMs: 90_000,
      longRunning: true,
      inputSchema: {
        properties: {
          team: { type: 'string' },
          channels: { type: 'array', items: { type: 'string', enum: ['email', 'slack'] } },
          verbose: { type: 'boolean' },
        },
        required: ['team', 'verbose'],
      },
    });
  });

  it('serves an outputSchema, and refuses one that is not an object schema at its line', () => {
    const content = (schema: string) =>
      [
        'description: Echoes.',
        'steps:',
        '  - id: one',
        '    tool: echo',
        'outputSchema:',
        schema,
      ].join('\n');
    const good = describeWorkflow({
      path: '/w/echo.yaml',
      content: content('  type: object\n  properties: { text: { type: string } }'),
    });
    expect(good.diagnostics).toEqual([]);
    expect(good.tools[0]?.outputSchema).toEqual({
      type: 'object',
      properties: { text: { type: 'string' } },
    });
    const bad = describeWorkflow({
      path: '/w/echo.yaml',
      content: content('  type: array\n  items: { type: strin }'),
    });
    expect(bad.tools).toEqual([]);
    expect(codesAndLines(bad)).toEqual([
      ['E_OUTPUT_SCHEMA', 6],
      ['E_OUTPUT_SCHEMA', 7],
    ]);
  });

  it('does not prefix a name that already starts with workflow_', () => {
    const result = describeFixture('good/cleanup.yaml');
    expect(result.diagnostics).toEqual([]);
    expect(result.tools[0]).toMatchObject({
      name: 'workflow_cleanup',
      annotations: { destructiveHint: true },
    });
    expect(result.tools[0]?.inputSchema).toEqual({
      type: 'object',
      properties: {},
      additionalProperties: false,
    });
  });

  it('gives plain JSON', () => {
    const result = describeFixture('good/daily-report.yml');
    expect(JSON.parse(JSON.stringify(result))).toEqual(result);
  });
});

describe('describeWorkflow: refused workflows', () => {
  it('leaves a disabled workflow out with an info diagnostic', () => {
    expect(describeFixture('bad/disabled.yaml')).toEqual({
      tools: [],
      diagnostics: [
        expect.objectContaining({ severity: 'info', code: 'I_WORKFLOW_DISABLED', line: 3 }),
      ],
    });
  });

  it('refuses a workflow without a description, steps, or that is not a mapping', () => {
    expect(codesAndLines(describeFixture('bad/missing-description.yaml'))).toEqual([
      ['E_WORKFLOW_SCHEMA', 1],
    ]);
    expect(describeFixture('bad/missing-description.yaml').diagnostics[0]?.message).toBe(
      'description is missing.',
    );
    expect(codesAndLines(describeFixture('bad/no-steps.yaml'))).toEqual([['E_WORKFLOW_SCHEMA', 2]]);
    expect(codesAndLines(describeFixture('bad/not-a-mapping.yaml'))).toEqual([
      ['E_WORKFLOW_SCHEMA', 1],
    ]);
  });

  it('says which key was misspelt', () => {
    const result = describeFixture('bad/unknown-key.yaml');
    expect(result.diagnostics).toContainEqual(
      expect.objectContaining({
        code: 'E_WORKFLOW_SCHEMA',
        line: 2,
        message: 'The workflow has the unknown key "stesp".',
        hint: 'Did you mean steps?',
      }),
    );
  });

  it('refuses steps without a valid id or a tool, with their lines', () => {
    const result = describeFixture('bad/bad-step.yaml');
    expect(codesAndLines(result)).toEqual([
      ['E_WORKFLOW_SCHEMA', 3],
      ['E_WORKFLOW_SCHEMA', 5],
      ['E_WORKFLOW_SCHEMA', 7],
    ]);
    expect(result.diagnostics.map((d) => d.message)).toEqual([
      'steps[0].id: a step id starts with a letter or _ and uses letters, digits, _ and -.',
      'steps[1].tool is missing.',
      'steps[2] must be a mapping, not "just a string".',
    ]);
  });

  it('refuses a step id used twice', () => {
    expect(codesAndLines(describeFixture('bad/duplicate-step-id.yaml'))).toEqual([
      ['E_WORKFLOW_STEP_ID', 5],
    ]);
  });

  it('refuses references to inputs it does not declare, suggesting the close one', () => {
    const result = describeFixture('bad/undeclared-input.yaml');
    expect(codesAndLines(result)).toEqual([
      ['E_WORKFLOW_REFERENCE', 8],
      ['E_WORKFLOW_REFERENCE', 9],
    ]);
    expect(result.diagnostics[0]?.hint).toBe('Did you mean ${input.issue_key}?');
  });

  it('refuses references to later, own, unknown steps and to a step without .result', () => {
    const result = describeFixture('bad/step-order.yaml');
    expect(codesAndLines(result)).toEqual([
      ['E_WORKFLOW_REFERENCE', 6],
      ['E_WORKFLOW_REFERENCE', 7],
      ['E_WORKFLOW_REFERENCE', 11],
      ['E_WORKFLOW_REFERENCE', 12],
      ['E_WORKFLOW_REFERENCE', 13],
    ]);
    expect(result.diagnostics[0]?.message).toContain('which runs later');
    expect(result.diagnostics[1]?.message).toContain('own result');
    expect(result.diagnostics[3]?.message).toContain('${steps.first.result}');
  });

  it('refuses references it cannot read', () => {
    const result = describeFixture('bad/bad-reference.yaml');
    expect(codesAndLines(result)).toEqual([
      ['E_WORKFLOW_REFERENCE', 8],
      ['E_WORKFLOW_REFERENCE', 9],
      ['E_WORKFLOW_REFERENCE', 10],
    ]);
    expect(result.diagnostics[1]?.message).toContain('not closed');
  });

  it('checks every input on its own line: types, keys, defaults and ranges', () => {
    const result = describeFixture('bad/bad-input.yaml');
    expect(codesAndLines(result)).toEqual([
      ['E_WORKFLOW_SCHEMA', 4],
      ['E_WORKFLOW_SCHEMA', 7],
      ['E_WORKFLOW_INPUT', 8],
      ['E_WORKFLOW_INPUT', 12],
    ]);
    expect(result.diagnostics[1]?.hint).toBe('Did you mean required?');
    expect(result.diagnostics[2]?.message).toBe(
      'Input level: the default "medium" is not one of "low", "high".',
    );
  });

  it('reports YAML syntax errors with their line', () => {
    expect(codesAndLines(describeFixture('bad/syntax-error.yaml'))).toEqual([['E_YAML_SYNTAX', 5]]);
  });
});

describe('discoverWorkflows', () => {
  it('reads every .yaml and .yml in the folder, in name order', async () => {
    const result = await discoverWorkflows({ dir: 'fixtures/good', cwd: import.meta.dirname });
    expect(result.tools.map((t) => t.name)).toEqual([
      'workflow_cleanup',
      'workflow_daily_report',
      'workflow_triage_issue',
    ]);
  });

  it('keeps loading the good workflows next to bad ones', async () => {
    const result = await discoverWorkflows({ dir: join(FIXTURES, 'bad'), cwd: '/' });
    expect(result.tools).toEqual([]);
    expect(new Set(result.diagnostics.map((d) => d.path.split('/').pop())).size).toBe(12);
  });

  it('throws E_SOURCE_MISSING for a folder that does not exist', async () => {
    await expect(discoverWorkflows({ dir: 'nope', cwd: FIXTURES })).rejects.toMatchObject({
      code: 'E_SOURCE_MISSING',
    });
    await expect(
      discoverWorkflows({ dir: 'good/cleanup.yaml', cwd: FIXTURES }),
    ).rejects.toMatchObject({ code: 'E_SOURCE_MISSING' });
  });

  it('reads each file through the cache', async () => {
    const calls: string[][] = [];
    const cache: ParseCache = {
      async read(kind, files, parse) {
        expect(kind).toBe(WORKFLOW_PARSER);
        calls.push([...files]);
        return parse(files.map((file) => readFileSync(file, 'utf8')));
      },
    };
    const result = await discoverWorkflows({ dir: 'good', cwd: FIXTURES, cache });
    expect(result).toEqual(await discoverWorkflows({ dir: 'good', cwd: FIXTURES }));
    expect(calls).toEqual([
      [join(FIXTURES, 'good/cleanup.yaml')],
      [join(FIXTURES, 'good/daily-report.yml')],
      [join(FIXTURES, 'good/triage-issue.yaml')],
    ]);
  });
});

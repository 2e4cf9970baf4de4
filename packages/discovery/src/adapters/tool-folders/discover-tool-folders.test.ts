import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Diagnostic } from '@toolpack/core';
import type { ParseCache, SourceResult } from '../../types.ts';
import { TOOL_FOLDER_PARSER, discoverToolFolders } from './discover-tool-folders.ts';

const FIXTURES = join(import.meta.dirname, 'fixtures');

function byFolder(result: SourceResult, folder: string): Diagnostic[] {
  return result.diagnostics.filter(
    (d) => d.path.includes(`/${folder}/`) || d.path.endsWith(`/${folder}`),
  );
}

describe('discoverToolFolders: a plain folder of tool folders', () => {
  it('finds each tool folder, in name order, and leaves other folders alone', async () => {
    const result = await discoverToolFolders({ root: 'tools', cwd: FIXTURES });
    expect(result.tools.map((t) => t.name)).toEqual([
      'list_files',
      'send_notification',
      'word_count',
    ]);
    expect(result.diagnostics.map((d) => d.code)).toEqual(['I_NAME_FROM_FOLDER']);
  });

  it('runs a .ps1 tool as dotbot does: dot-sourced, Invoke-<PascalCase> with -Arguments', async () => {
    const result = await discoverToolFolders({ root: 'tools', cwd: FIXTURES });
    const tool = result.tools.find((t) => t.name === 'send_notification');
    expect(tool).toEqual({
      name: 'send_notification',
      title: 'Send notification',
      description: 'Sends a notification to a channel',
      inputSchema: {
        type: 'object',
        properties: {
          channel: { type: 'string', description: 'Where to send it', enum: ['email', 'slack'] },
          message: { type: 'string', description: 'What to say' },
        },
        required: ['channel', 'message'],
        additionalProperties: false,
      },
      annotations: { readOnlyHint: false, destructiveHint: false, openWorldHint: true },
      timeoutMs: 45_000,
      source: {
        kind: 'tool-folder',
        path: join(FIXTURES, 'tools/send-notification/metadata.yaml'),
        line: 1,
      },
      invocation: {
        runner: 'pwsh',
        mode: 'tool-folder',
        scriptPath: join(FIXTURES, 'tools/send-notification/script.ps1'),
        functionName: 'Invoke-SendNotification',
      },
      originalName: 'send_notification',
    });
  });

  it('runs other scripts as processes and reads input_schema, output_schema, annotations.title and timeoutMs', async () => {
    const result = await discoverToolFolders({ root: join(FIXTURES, 'tools'), cwd: '/' });
    const tool = result.tools.find((t) => t.name === 'list_files');
    expect(tool).toMatchObject({
      inputSchema: { required: ['folder'], additionalProperties: true },
      outputSchema: {
        type: 'object',
        properties: { files: { type: 'array', items: { type: 'string' } } },
      },
      annotations: { title: 'List files', readOnlyHint: true },
      timeoutMs: 1500,
      invocation: {
        runner: 'process',
        scriptPath: join(FIXTURES, 'tools/list-files/script.sh'),
        extension: '.sh',
      },
    });
  });

  it('names a tool after its folder when the metadata has no name, and reads timeouts like 2m', async () => {
    const result = await discoverToolFolders({ root: 'tools', cwd: FIXTURES });
    expect(result.tools.find((t) => t.name === 'word_count')).toMatchObject({
      originalName: 'word_count',
      timeoutMs: 120_000,
      inputSchema: {
        type: 'object',
        properties: { text: { type: 'string' } },
        additionalProperties: false,
      },
    });
  });

  it('gives plain JSON', async () => {
    const result = await discoverToolFolders({ root: 'tools', cwd: FIXTURES });
    expect(JSON.parse(JSON.stringify(result))).toEqual(result);
  });
});

describe("discoverToolFolders: dotbot's workflow-scoped .bot/workflows/*/tools", () => {
  it('expands the glob and reads metadata.yaml, metadata.yml and metadata.json', async () => {
    const result = await discoverToolFolders({
      root: '.bot/workflows/*/tools',
      cwd: join(FIXTURES, 'project'),
    });
    expect(result.diagnostics).toEqual([]);
    expect(result.tools.map((t) => [t.name, t.source.path.split('/.bot/')[1]])).toEqual([
      ['get_current_datetime', 'workflows/default/tools/get-current-datetime/metadata.yaml'],
      ['task_create', 'workflows/default/tools/task-create/metadata.yaml'],
      ['jira_fetch', 'workflows/start-from-jira/tools/jira-fetch/metadata.json'],
      ['research_status', 'workflows/start-from-jira/tools/research-status/metadata.yml'],
    ]);
  });

  it('matches the Invoke- function ignoring case, as PowerShell does, and calls it by its own spelling', async () => {
    const result = await discoverToolFolders({
      root: '.bot/workflows/*/tools',
      cwd: join(FIXTURES, 'project'),
    });
    expect(result.tools[0]?.invocation).toMatchObject({
      functionName: 'Invoke-GetCurrentDateTime',
    });
  });

  it("accepts dotbot's lone `required:` and ignores version, category and examples", async () => {
    const result = await discoverToolFolders({
      root: '.bot/workflows/*/tools',
      cwd: join(FIXTURES, 'project'),
    });
    expect(result.tools[0]?.inputSchema).toEqual({
      type: 'object',
      properties: { timezone: { type: 'string', description: 'IANA timezone name' } },
      required: [],
      additionalProperties: false,
    });
    expect(result.tools[1]?.inputSchema.properties?.priority).toEqual({
      type: 'integer',
      description: 'Priority from 1 (highest) to 100 (lowest)',
      minimum: 1,
      maximum: 100,
    });
  });

  it('warns when the glob matches nothing', async () => {
    const result = await discoverToolFolders({
      root: '.bot/nothing/*/tools',
      cwd: join(FIXTURES, 'project'),
    });
    expect(result).toEqual({
      tools: [],
      diagnostics: [
        expect.objectContaining({
          severity: 'warning',
          code: 'W_SOURCE_EMPTY',
          path: join(FIXTURES, 'project/.bot/nothing/*/tools'),
        }),
      ],
    });
  });
});

describe('discoverToolFolders: load-time checks', async () => {
  const result = await discoverToolFolders({ root: 'bad-tools', cwd: FIXTURES });
  const codes = (folder: string) => byFolder(result, folder).map((d) => [d.code, d.line]);

  it('still serves the folders that are fine, with warnings', () => {
    expect(result.tools.map((t) => t.name)).toEqual([
      'other_name',
      'renamed_tool',
      'several_metadata',
      'typo_key',
      'yaml_and_yml',
    ]);
  });

  it('warns when the folder is not the name with _ -> -', () => {
    expect(byFolder(result, 'misnamed-folder')).toEqual([
      expect.objectContaining({
        severity: 'warning',
        code: 'W_FOLDER_NAME',
        line: 1,
        message: expect.stringContaining('"other-name"'),
      }),
    ]);
  });

  it('says which function a .ps1 must define, and which ones it found', () => {
    const [diagnostic] = byFolder(result, 'wrong-function');
    expect(diagnostic).toEqual({
      severity: 'error',
      code: 'E_FUNCTION_NAME',
      message:
        'script.ps1 does not define Invoke-WrongFunction, the function called for the tool wrong_function; it defines Get-Helper (line 1), Invoke-WrongFunc (line 3).',
      path: join(FIXTURES, 'bad-tools/wrong-function/script.ps1'),
      line: 3,
      hint: 'Rename the function Invoke-WrongFunc to Invoke-WrongFunction.',
    });
    expect(byFolder(result, 'no-functions')).toEqual([
      expect.objectContaining({
        code: 'E_FUNCTION_NAME',
        message: expect.stringContaining('defines no functions'),
        hint: expect.stringContaining('Invoke-NoFunctions'),
      }),
    ]);
  });

  it('refuses a folder with no script or several', () => {
    expect(codes('no-script')).toEqual([['E_NO_SCRIPT', undefined]]);
    expect(byFolder(result, 'two-scripts')[0]?.message).toContain('script.py, script.sh');
  });

  it('refuses metadata without a description, or that is not a mapping', () => {
    expect(codes('no-description')).toEqual([['E_NO_DESCRIPTION', 1]]);
    expect(codes('not-a-mapping')).toEqual([['E_METADATA_SHAPE', 1]]);
  });

  it('reports YAML syntax errors with their line', () => {
    expect(codes('bad-yaml')).toContainEqual(['E_YAML_SYNTAX', 4]);
  });

  it('reports invalid JSON Schema at the line of the offending keyword', () => {
    expect(codes('bad-schema')).toEqual([
      ['E_INPUT_SCHEMA', 7],
      ['E_INPUT_SCHEMA', 10],
    ]);
    expect(codes('array-schema')).toEqual([['E_INPUT_SCHEMA', 4]]);
    // A pattern the linear-time engine cannot run is refused where it stands.
    expect(byFolder(result, 'unrunnable-pattern')).toEqual([
      expect.objectContaining({
        code: 'E_INPUT_SCHEMA',
        line: 8,
        message:
          'inputSchema is not valid JSON Schema: /properties/user/pattern the pattern "^(?!root$)[a-z]+$" uses a lookahead ((?!…), which the linear-time engine (RE2) cannot run.',
        hint: expect.stringContaining('docs/json-schema-patterns.md'),
      }),
      expect.objectContaining({ code: 'E_OUTPUT_SCHEMA', line: 12 }),
    ]);
    expect(byFolder(result, 'required-undeclared')).toEqual([
      expect.objectContaining({
        code: 'E_INPUT_SCHEMA',
        line: 7,
        message: expect.stringContaining('"mode"'),
      }),
    ]);
  });

  it('checks annotations like .NOTES hints', () => {
    expect(codes('bad-annotations')).toEqual([
      ['W_UNKNOWN_HINT', 6],
      ['E_HINT_VALUE', 7],
      ['E_CONFLICTING_HINTS', 5],
    ]);
  });

  it('refuses a timeout it cannot read', () => {
    expect(codes('bad-timeout')).toEqual([['E_METADATA_FIELD', 3]]);
  });

  it('warns about a near-miss key and notes other unknown keys', () => {
    expect(byFolder(result, 'typo-key')).toEqual([
      expect.objectContaining({
        severity: 'warning',
        code: 'W_UNKNOWN_KEY',
        line: 3,
        hint: 'Did you mean inputSchema?',
      }),
      expect.objectContaining({ severity: 'info', code: 'I_UNKNOWN_KEY', line: 5 }),
    ]);
  });

  it('warns about a script without metadata, and reads metadata.json over a metadata.yaml that disagrees, as dotbot does', () => {
    expect(codes('script-only')).toEqual([['W_NO_METADATA', undefined]]);
    expect(result.diagnostics.filter((d) => d.path.includes('several-metadata'))).toEqual([
      expect.objectContaining({
        severity: 'warning',
        code: 'W_METADATA_DISAGREE',
        path: expect.stringMatching(/several-metadata[\\/]metadata\.yaml$/),
        line: 2,
        message: expect.stringContaining('disagree at description; metadata.json is read'),
      }),
    ]);
    expect(result.tools.find((t) => t.name === 'several_metadata')?.description).toBe('From JSON');
    // Two YAML files: the first is read, the other only named.
    expect(codes('yaml-and-yml')).toEqual([['W_SEVERAL_METADATA', undefined]]);
    expect(result.tools.find((t) => t.name === 'yaml_and_yml')?.description).toBe(
      'From metadata.yaml',
    );
  });

  it('reports a name it had to change', () => {
    expect(codes('renamed')).toEqual([
      ['W_FOLDER_NAME', 1],
      ['I_RENAMED', 1],
    ]);
  });
});

describe('discoverToolFolders: sources and caching', () => {
  it('throws E_SOURCE_MISSING for a folder that does not exist, or is a file', async () => {
    await expect(
      discoverToolFolders({ root: 'no-such-folder', cwd: FIXTURES }),
    ).rejects.toMatchObject({
      code: 'E_SOURCE_MISSING',
      message: expect.stringContaining('no-such-folder'),
    });
    await expect(
      discoverToolFolders({ root: 'tools/list-files/script.sh', cwd: FIXTURES }),
    ).rejects.toMatchObject({
      code: 'E_SOURCE_MISSING',
    });
  });

  it('reads each folder through the cache, metadata first, then the script', async () => {
    const calls: { kind: string; files: readonly string[] }[] = [];
    const cache: ParseCache = {
      async read(kind, files, parse) {
        calls.push({ kind, files });
        return parse(files.map((file) => readFileSync(file, 'utf8')));
      },
    };
    const direct = await discoverToolFolders({ root: 'tools', cwd: FIXTURES });
    const cached = await discoverToolFolders({ root: 'tools', cwd: FIXTURES, cache });
    expect(cached).toEqual(direct);
    // Folders are read concurrently, so the calls may come in any order.
    calls.sort((a, b) => (a.files[0] ?? '').localeCompare(b.files[0] ?? ''));
    expect(calls).toEqual([
      {
        kind: TOOL_FOLDER_PARSER,
        files: [
          join(FIXTURES, 'tools/list-files/metadata.yaml'),
          join(FIXTURES, 'tools/list-files/script.sh'),
        ],
      },
      {
        kind: TOOL_FOLDER_PARSER,
        files: [
          join(FIXTURES, 'tools/send-notification/metadata.yaml'),
          join(FIXTURES, 'tools/send-notification/script.ps1'),
        ],
      },
      {
        kind: TOOL_FOLDER_PARSER,
        files: [
          join(FIXTURES, 'tools/word-count/metadata.yaml'),
          join(FIXTURES, 'tools/word-count/script.mjs'),
        ],
      },
    ]);
  });

  it('turns a cache failure into a diagnostic for that folder only', async () => {
    const cache: ParseCache = {
      async read(_kind, files, parse) {
        if (files[0]?.includes('list-files'))
          throw Object.assign(new Error('EACCES: permission denied'), { code: 'EACCES' });
        return parse(files.map((file) => readFileSync(file, 'utf8')));
      },
    };
    const result = await discoverToolFolders({ root: 'tools', cwd: FIXTURES, cache });
    expect(result.tools.map((t) => t.name)).toEqual(['send_notification', 'word_count']);
    expect(result.diagnostics).toContainEqual(
      expect.objectContaining({
        code: 'E_READ',
        path: join(FIXTURES, 'tools/list-files/metadata.yaml'),
      }),
    );
  });
});

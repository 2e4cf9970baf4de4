import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PWSH_TEST_TAG, hasPwsh } from '@toolpack/pwsh-probe';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  hasInspector,
  runInspectorCli,
  startStdioSession,
  type StdioSession,
} from '../testing/index.ts';

// PowerShell scripts with several parameter sets over `mcp serve`: the client sees every
// parameter and a oneOf branch per set; a call binds the set PowerShell binds (each script
// returns $PSCmdlet.ParameterSetName), and one that fits none or several is refused with
// E_PARAMETER_SET_MATCH before PowerShell starts.
const project = path.join(import.meta.dirname, 'fixtures', 'parameter-sets-project');
const scripts = path.join(project, 'scripts');
const work = mkdtempSync(path.join(os.tmpdir(), 'toolpack-sets-e2e-'));

afterAll(() => rmSync(work, { recursive: true, force: true }));

function textOf(result: { content?: unknown }): string {
  return ((result.content ?? []) as { type: string; text?: string }[])
    .filter((block) => block.type === 'text')
    .map((block) => block.text)
    .join('\n');
}

/** What a call gives: the set the script reports, or the refusal. */
function outcomeOf(result: { content?: unknown; isError?: unknown }): string {
  const text = textOf(result);
  if (result.isError === true) return text.startsWith('E_PARAMETER_SET_MATCH') ? 'refused' : text;
  return `bound ${(JSON.parse(text) as { ParameterSet: string }).ParameterSet}`;
}

/** The same calls made by PowerShell itself, in one process: what the engine binds. */
function callInPwsh(calls: Array<{ script: string; args: Record<string, unknown> }>): string[] {
  const literal = (value: unknown): string =>
    typeof value === 'string'
      ? `'${value.replace(/'/g, "''")}'`
      : typeof value === 'boolean'
        ? `$${String(value)}`
        : String(value);
  const lines = [
    '$ErrorActionPreference = "Stop"',
    'function Test-Call([string]$Path, [hashtable]$Arguments) {',
    '  try { $r = & $Path @Arguments; [Console]::Out.WriteLine("bound $($r.ParameterSet)") }',
    '  catch { [Console]::Out.WriteLine("refused") }',
    '}',
    ...calls.map(
      ({ script, args }) =>
        `Test-Call '${path.join(scripts, script)}' @{ ${Object.entries(args)
          .map(([name, value]) => `${name} = ${literal(value)}`)
          .join('; ')} }`,
    ),
  ];
  const file = path.join(work, 'calls.ps1');
  writeFileSync(file, lines.join('\n'));
  return execFileSync('pwsh', ['-NoLogo', '-NoProfile', '-NonInteractive', '-File', file], {
    encoding: 'utf8',
    timeout: 60_000,
  })
    .split('\n')
    .filter((line) => line !== '');
}

/** Every subset of `values`' keys, with those values. */
function subsets(values: Record<string, unknown>): Array<Record<string, unknown>> {
  const names = Object.keys(values);
  return Array.from({ length: 1 << names.length }, (_unused, mask) =>
    Object.fromEntries(
      names.filter((_name, index) => (mask & (1 << index)) !== 0).map((n) => [n, values[n]]),
    ),
  );
}

describe('several parameter sets over mcp serve (SDK client)', () => {
  let session: StdioSession;

  beforeAll(async () => {
    session = await startStdioSession(['--no-cache', '--no-watch'], { cwd: project });
  });

  afterAll(async () => {
    await session?.close();
  });

  it('lists every parameter in properties and a oneOf branch per set, the default first', async () => {
    // listTools resolving is the SDK's own parsing of the tool list accepting the schema.
    const { tools } = await session.client.listTools();
    const find = tools.find((tool) => tool.name === 'Find_Widget');
    expect(Object.keys(find?.inputSchema.properties ?? {})).toEqual(['Name', 'Id', 'All', 'Top']);
    expect(find?.inputSchema.required).toBeUndefined();
    const branches = (find?.inputSchema as { oneOf?: Array<Record<string, unknown>> }).oneOf;
    expect(branches?.map((branch) => [branch.title, branch.required])).toEqual([
      ['ByName', ['Name']],
      ['ById', ['Id']],
      ['All', ['All']],
    ]);
  });

  it('warns at start that some clients refuse a root oneOf, naming the tools', () => {
    expect(session.stderr()).toMatch(
      /W_ROOT_COMBINATOR 3 tools have a oneOf\/anyOf\/allOf at the root of the input schema \((?=[^)]*Find_Widget)(?=[^)]*Get_Widget)[^)]*\).*--flat-schemas/,
    );
  });

  it.skipIf(!hasPwsh)(
    `${PWSH_TEST_TAG} binds one call per set to the set PowerShell reports`,
    async () => {
      for (const [args, set] of [
        [{ Name: 'gear' }, 'ByName'],
        [{ Id: 7, Top: 2 }, 'ById'],
        [{ All: true }, 'All'],
      ] as const) {
        const result = await session.client.callTool({ name: 'Find_Widget', arguments: args });
        expect(outcomeOf(result), JSON.stringify(args)).toBe(`bound ${set}`);
      }
    },
  );

  it.skipIf(!hasPwsh)(
    `${PWSH_TEST_TAG} binds a module function's call to its set, and refuses one that fits none`,
    async () => {
      const byId = await session.client.callTool({ name: 'Get_Widget', arguments: { Id: 7 } });
      expect(outcomeOf(byId)).toBe('bound ById');
      const both = await session.client.callTool({
        name: 'Get_Widget',
        arguments: { Name: 'gear', Id: 7 },
      });
      expect(textOf(both)).toContain(
        'set ByName (the default) does not take Id; set ById does not take Name',
      );
    },
  );

  it('refuses a call that fits no set, naming what each set lacks or has too much', async () => {
    const result = await session.client.callTool({
      name: 'Find_Widget',
      arguments: { Name: 'gear', Id: 7 },
    });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toMatch(
      /^E_PARAMETER_SET_MATCH Invalid arguments for tool "Find_Widget": the arguments fit no parameter set: set ByName \(the default\) does not take Id; set ById does not take Name; set All needs All and does not take Name and Id\./,
    );
  });

  it('refuses an ambiguous call, naming the sets that fit and the parameter that would choose', async () => {
    const result = await session.client.callTool({
      name: 'Get_Entry',
      arguments: { Recurse: true },
    });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toContain(
      'the arguments fit the sets Path and LiteralPath and there is no default set to choose between them: add a parameter that picks one (Path for set Path; LiteralPath for set LiteralPath)',
    );
  });

  it.skipIf(!hasPwsh)(
    `${PWSH_TEST_TAG} binds or refuses every combination of arguments as PowerShell does`,
    async () => {
      const calls = [
        ...subsets({ Name: 'gear', Id: 7, All: true, Top: 2 }).map((args) => ({
          tool: 'Find_Widget',
          script: 'Find-Widget.ps1',
          args,
        })),
        ...subsets({ Path: 'a', LiteralPath: 'b', Recurse: true }).map((args) => ({
          tool: 'Get_Entry',
          script: 'Get-Entry.ps1',
          args,
        })),
      ];
      const engine = callInPwsh(calls);
      expect(engine).toHaveLength(calls.length);
      const differences: string[] = [];
      for (const [index, call] of calls.entries()) {
        const result = await session.client.callTool({ name: call.tool, arguments: call.args });
        const ours = outcomeOf(result);
        if (ours !== engine[index])
          differences.push(
            `${call.tool} ${JSON.stringify(call.args)}: Toolpack ${ours}, PowerShell ${engine[index]}`,
          );
      }
      expect(differences).toEqual([]);
      // Both outcomes occur, so the comparison is not trivially one-sided.
      expect(engine.filter((line) => line === 'refused').length).toBeGreaterThan(3);
      expect(engine.filter((line) => line.startsWith('bound ')).length).toBeGreaterThan(3);
    },
    120_000,
  );
});

// The official MCP Inspector's CLI mode (a devDependency, so offline) as a third-party client.
const runInspector = (method: string[]) => runInspectorCli({ cwd: project, method });

describe.skipIf(!hasInspector)(
  'several parameter sets in the Inspector CLI [needs Inspector]',
  () => {
    it('tools/list shows the oneOf with a branch per set', () => {
      const { code, json } = runInspector(['--method', 'tools/list']);
      expect(code).toBe(0);
      const tools = json.tools as Array<{
        name: string;
        inputSchema: { oneOf?: Array<{ title: string }> };
      }>;
      const find = tools.find((tool) => tool.name === 'Find_Widget');
      expect(find?.inputSchema.oneOf?.map((branch) => branch.title)).toEqual([
        'ByName',
        'ById',
        'All',
      ]);
    });

    it.skipIf(!hasPwsh)(`${PWSH_TEST_TAG} tools/call binds the set its arguments fit`, () => {
      const { code, json } = runInspector([
        '--method',
        'tools/call',
        '--tool-name',
        'Find_Widget',
        '--tool-arg',
        'Id=7',
      ]);
      expect(code).toBe(0);
      expect(json.structuredContent).toEqual({ ParameterSet: 'ById', Top: 10 });
    });
  },
);

describe('several parameter sets over mcp serve --flat-schemas (SDK client)', () => {
  let session: StdioSession;

  beforeAll(async () => {
    session = await startStdioSession(['--no-cache', '--no-watch', '--flat-schemas'], {
      cwd: project,
    });
  });

  afterAll(async () => {
    await session?.close();
  });

  it('lists no root oneOf: the sets are spelled out in the description, and no warning', async () => {
    const { tools } = await session.client.listTools();
    for (const tool of tools)
      expect(Object.keys(tool.inputSchema), tool.name).not.toContain('oneOf');
    const find = tools.find((tool) => tool.name === 'Find_Widget');
    expect(Object.keys(find?.inputSchema.properties ?? {})).toEqual(['Name', 'Id', 'All', 'Top']);
    expect(find?.description).toContain(
      'Parameter sets (send the parameters of one set only): ByName (default): Name (required)',
    );
    expect(session.stderr()).not.toContain('W_ROOT_COMBINATOR');
  });

  it('still refuses a call that fits no set: the full schema binds the call', async () => {
    const result = await session.client.callTool({
      name: 'Find_Widget',
      arguments: { Name: 'gear', Id: 7 },
    });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toMatch(/^E_PARAMETER_SET_MATCH /);
  });

  it.skipIf(!hasPwsh)(`${PWSH_TEST_TAG} binds a call to its set as without the flag`, async () => {
    const result = await session.client.callTool({
      name: 'Find_Widget',
      arguments: { Id: 7, Top: 2 },
    });
    expect(outcomeOf(result)).toBe('bound ById');
  });
});

import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { PWSH_TEST_TAG, hasPwsh } from '@toolpack/pwsh-probe';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  childEnv,
  hasInspector,
  repo,
  runInspectorCli,
  startStdioSession,
  type StdioSession,
} from '../testing/index.ts';

// PowerShell scripts with several parameter sets over `mcp serve`: under --schema-dialect
// exact the client sees every parameter and a oneOf branch per set, under the default
// (portable) the sets in the description; either way a call binds the set PowerShell binds
// (each script returns $PSCmdlet.ParameterSetName), and one that fits none or several is
// refused with E_PARAMETER_SET_MATCH before PowerShell starts.
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

describe('several parameter sets over mcp serve --schema-dialect exact (SDK client)', () => {
  let session: StdioSession;

  beforeAll(async () => {
    session = await startStdioSession(['--no-cache', '--no-watch', '--schema-dialect', 'exact'], {
      cwd: project,
    });
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
const runInspector = (method: string[]) =>
  runInspectorCli({ cwd: project, method, serveArgs: ['--schema-dialect', 'exact'] });

describe.skipIf(!hasInspector)(
  'several parameter sets in the Inspector CLI [needs Inspector]',
  () => {
    it('tools/list under --schema-dialect exact shows the oneOf with a branch per set', () => {
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

describe('several parameter sets over mcp serve, portable by default (SDK client)', () => {
  let session: StdioSession;

  beforeAll(async () => {
    session = await startStdioSession(['--no-cache', '--no-watch'], { cwd: project });
  });

  afterAll(async () => {
    await session?.close();
  });

  it('lists no root oneOf: the sets are spelled out in the description', async () => {
    const { tools } = await session.client.listTools();
    for (const tool of tools)
      expect(Object.keys(tool.inputSchema), tool.name).not.toContain('oneOf');
    const find = tools.find((tool) => tool.name === 'Find_Widget');
    expect(Object.keys(find?.inputSchema.properties ?? {})).toEqual(['Name', 'Id', 'All', 'Top']);
    expect(find?.description).toContain(
      'Parameter sets (send the parameters of one set only): ByName (default): Name (required)',
    );
  });

  it('still refuses a call that fits no set: the full schema binds the call', async () => {
    const result = await session.client.callTool({
      name: 'Find_Widget',
      arguments: { Name: 'gear', Id: 7 },
    });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toMatch(/^E_PARAMETER_SET_MATCH /);
  });

  it.skipIf(!hasPwsh)(`${PWSH_TEST_TAG} binds a call to its set`, async () => {
    const result = await session.client.callTool({
      name: 'Find_Widget',
      arguments: { Id: 7, Top: 2 },
    });
    expect(outcomeOf(result)).toBe('bound ById');
  });
});

// The built `mcp` (packages/cli/bin/mcp.js and its dist/, what a user installs; run `pnpm
// build` first): every combination of arguments binds the same set, or is refused the same,
// whether the client was listed the default (portable) schemas, the exact ones, or the
// openai-strict ones with null sent for every parameter it leaves out.
const builtMcp = path.join(repo, 'packages', 'cli', 'bin', 'mcp.js');
const hasBuiltMcp = existsSync(path.join(repo, 'packages', 'cli', 'dist', 'bin.mjs'));

/** This process's environment without the source condition: the bundle resolves as installed. */
function builtEnv(): Record<string, string> {
  const env = childEnv();
  const nodeOptions = (env.NODE_OPTIONS ?? '').replace(/--conditions[= ]@toolpack\/source/g, '');
  if (nodeOptions.trim() === '') delete env.NODE_OPTIONS;
  else env.NODE_OPTIONS = nodeOptions.trim();
  return env;
}

async function connectBuilt(args: string[]): Promise<Client> {
  const client = new Client({ name: 'toolpack-e2e', version: '1.0.0' });
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: [builtMcp, 'serve', '--no-cache', '--no-watch', ...args],
      cwd: project,
      env: builtEnv(),
      stderr: 'ignore',
    }),
  );
  return client;
}

describe.skipIf(!hasBuiltMcp)('one binding in every schema dialect [built mcp]', () => {
  const clients: Record<'portable' | 'exact' | 'strict', Client | undefined> = {
    portable: undefined,
    exact: undefined,
    strict: undefined,
  };

  beforeAll(async () => {
    [clients.portable, clients.exact, clients.strict] = await Promise.all([
      connectBuilt([]),
      connectBuilt(['--schema-dialect', 'exact']),
      connectBuilt(['--schema-dialect', 'openai-strict']),
    ]);
  }, 60_000);

  afterAll(async () => {
    await Promise.all(Object.values(clients).map((client) => client?.close()));
  });

  it('lists the sets in the description by default and as oneOf under exact', async () => {
    const portable = (await clients.portable!.listTools()).tools.find(
      (tool) => tool.name === 'Find_Widget',
    );
    const exact = (await clients.exact!.listTools()).tools.find(
      (tool) => tool.name === 'Find_Widget',
    );
    expect(portable?.inputSchema).not.toHaveProperty('oneOf');
    expect(portable?.inputSchema).not.toHaveProperty('additionalProperties');
    expect(portable?.description).toContain('Parameter sets (send the parameters of one set only)');
    expect(exact?.inputSchema).toHaveProperty('oneOf');
  });

  it.skipIf(!hasPwsh)(
    `${PWSH_TEST_TAG} binds or refuses every combination the same under each dialect`,
    async () => {
      const cases = [
        ...subsets({ Name: 'gear', Id: 7, All: true, Top: 2 }).map((args) => ({
          tool: 'Find_Widget',
          all: ['Name', 'Id', 'All', 'Top'],
          args,
        })),
        ...subsets({ Path: 'a', LiteralPath: 'b', Recurse: true }).map((args) => ({
          tool: 'Get_Entry',
          all: ['Path', 'LiteralPath', 'Recurse'],
          args,
        })),
      ];
      const differences: string[] = [];
      let bound = 0;
      for (const { tool, all, args } of cases) {
        // What a model in strict mode sends: every parameter, null for those it leaves out.
        const strictArgs = Object.fromEntries(all.map((name) => [name, args[name] ?? null]));
        const [exact, portable, strict] = await Promise.all([
          clients.exact!.callTool({ name: tool, arguments: args }),
          clients.portable!.callTool({ name: tool, arguments: args }),
          clients.strict!.callTool({ name: tool, arguments: strictArgs }),
        ]);
        const expected = outcomeOf(exact);
        if (expected.startsWith('bound ')) bound++;
        for (const [dialect, result] of [
          ['portable', portable],
          ['openai-strict', strict],
        ] as const)
          if (outcomeOf(result) !== expected)
            differences.push(
              `${tool} ${JSON.stringify(args)}: exact ${expected}, ${dialect} ${outcomeOf(result)}`,
            );
      }
      expect(differences).toEqual([]);
      // Both outcomes occur, so the comparison is not trivially one-sided.
      expect(bound).toBeGreaterThan(3);
      expect(cases.length - bound).toBeGreaterThan(3);
    },
    180_000,
  );

  it.skipIf(!hasPwsh)(
    `${PWSH_TEST_TAG} openai-strict: call_tool's free-form arguments go as JSON text and bind`,
    async () => {
      const client = await connectBuilt([
        '--schema-dialect',
        'openai-strict',
        '--disclose-above',
        '1',
      ]);
      try {
        const { tools } = await client.listTools();
        const callTool = tools.find((tool) => tool.name === 'call_tool');
        expect(callTool?.inputSchema.properties?.arguments).toMatchObject({
          type: ['string', 'null'],
        });
        const result = await client.callTool({
          name: 'call_tool',
          arguments: { name: 'Find_Widget', arguments: '{"Id": 7, "Top": 2}' },
        });
        expect(outcomeOf(result)).toBe('bound ById');
      } finally {
        await client.close();
      }
    },
    60_000,
  );

  it('refuses --flat-schemas, now --schema-dialect portable, beside another dialect', () => {
    const run = spawnSync(
      process.execPath,
      [builtMcp, 'serve', '--flat-schemas', '--schema-dialect', 'exact'],
      { cwd: project, env: builtEnv(), encoding: 'utf8', timeout: 30_000 },
    );
    expect(run.status).toBe(2);
    expect(run.stderr).toContain(
      '--flat-schemas is --schema-dialect portable: it cannot go with --schema-dialect exact.',
    );
  });
});

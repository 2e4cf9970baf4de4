// MCPServerPS (Start-MyMCP): a script root and module tools with comment-based help, hints in
// .NOTES as `Key: description`, several modules, include/exclude wildcards, a prefix and
// MaxTools, served by the real `mcp serve`.
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
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

const BUILTINS = ['find_tools', 'describe_tool'];
const inventory = 'modules/Inventory/Inventory.psd1';
const ledger = 'modules/Ledger/Ledger.psm1';

let project: ReturnType<typeof copySeedFixture>;
beforeAll(() => {
  project = copySeedFixture('mcpserverps');
});
afterAll(() => project?.remove());

const ownNames = (tools: Map<string, ListedTool>) =>
  [...tools.keys()].filter((name) => !BUILTINS.includes(name)).sort();

describe('a script root and two modules without a prefix', () => {
  let session: StdioSession;
  let tools: Map<string, ListedTool>;

  beforeAll(async () => {
    session = await startSeedServer(
      [
        '--script-root',
        'scripts',
        '--script-root',
        'eligibility',
        '--module',
        inventory,
        '--module',
        ledger,
      ],
      { cwd: project.dir },
    );
    tools = await listToolsByName(session);
  }, 60_000);
  afterAll(() => session?.close());

  it('lists each script and each exported function as a tool, and nothing the manifest keeps private', () => {
    expect(ownNames(tools)).toEqual([
      'Add_LedgerEntry',
      'Add_StockItem',
      'Export_Config',
      'Find_Either',
      'Get_StockCount',
      'Get_Summary',
      'Get_TextDigest',
      'Measure_Words',
      'Remove_ScratchFile',
      'Set_Config',
    ]);
  });

  it('reads `Key: description` hint lines as the hint declared, and explicit false words as false', () => {
    expect(tools.get('Get_TextDigest')?.annotations).toEqual({
      readOnlyHint: true,
      idempotentHint: true,
      openWorldHint: false,
    });
    expect(tools.get('Remove_ScratchFile')?.annotations).toEqual({ destructiveHint: true });
    expect(tools.get('Get_StockCount')?.annotations).toEqual({ readOnlyHint: true });
    expect(tools.get('Add_StockItem')?.annotations).toEqual({ idempotentHint: false });
  });

  it('warns about an unknown hint key with the known ones, and still serves the tool', () => {
    expect(tools.get('Measure_Words')?.annotations).toEqual({ readOnlyHint: true });
    expect(session.stderr()).toMatch(
      /Measure-Words\.ps1:\d+: warning W_UNKNOWN_HINT: Unknown hint "CacheableHint"[^\n]*ReadOnlyHint, DestructiveHint, IdempotentHint or OpenWorldHint/,
    );
  });

  it('builds the schema from the param block: mandatory -> required, ValidateSet -> enum, switch -> boolean, constant default', () => {
    expect(tools.get('Get_TextDigest')?.inputSchema).toMatchObject({
      type: 'object',
      required: ['Text'],
      additionalProperties: false,
      properties: {
        Text: { type: 'string', description: 'The text to hash.' },
        Algorithm: { type: 'string', enum: ['SHA256', 'SHA1', 'MD5'], default: 'SHA256' },
        // A switch left out is $false: the engine's binding, and the type default MCPServerPS states.
        Upper: {
          type: 'boolean',
          description: 'Write the digest in capital letters.',
          default: false,
        },
      },
    });
    expect(tools.get('Add_LedgerEntry')?.inputSchema).toMatchObject({
      required: ['Amount'],
      properties: { Amount: { type: 'integer', minimum: 1, maximum: 1000 } },
    });
  });

  it('refuses conflicting hints, a missing description and an undescribed parameter, and serves the rest', () => {
    const stderr = session.stderr();
    expect(stderr).toMatch(
      /Set-Everything\.ps1:\d+: error E_CONFLICTING_HINTS: ReadOnlyHint and DestructiveHint/,
    );
    expect(stderr).toMatch(/Get-Undescribed\.ps1:\d+: error E_NO_DESCRIPTION/);
    expect(stderr).toMatch(
      /Get-HalfDocumented\.ps1:\d+: error E_PARAMETER_NO_DESCRIPTION: Parameter \$Second/,
    );
    for (const refused of ['Set_Everything', 'Get_Undescribed', 'Get_HalfDocumented'])
      expect(tools.has(refused)).toBe(false);
  });

  it('serves a script with several parameter sets, which MCPServerPS refuses, with a oneOf branch per set', () => {
    expect(session.stderr()).not.toMatch(/Find-Either/);
    const schema = tools.get('Find_Either')?.inputSchema as
      { required?: string[]; oneOf?: Array<{ title: string; required: string[] }> } | undefined;
    expect(schema?.required).toBeUndefined();
    expect(schema?.oneOf?.map((branch) => [branch.title, branch.required])).toEqual([
      ['ById', ['Id']],
      ['ByName', ['Name']],
    ]);
  });

  it.skipIf(!hasPwsh)(
    `${PWSH_TEST_TAG} binds a call to the parameter set its arguments fit`,
    async () => {
      const result = await session.client.callTool({
        name: 'Find_Either',
        arguments: { Name: 'ledger' },
      });
      expect(readStructured(result)).toMatchObject({ set: 'ByName', name: 'ledger' });
    },
  );

  it('lets the last module win a name collision, with a warning', () => {
    expect(tools.get('Get_Summary')?.description).toMatch(/^Summarizes the ledger/);
    expect(session.stderr()).toMatch(
      /Ledger\.psm1:\d+: warning W_COLLISION: Two tools are named Get_Summary/,
    );
  });

  it.skipIf(!hasPwsh)(
    `${PWSH_TEST_TAG} runs a script tool with bound parameters and a switch`,
    async () => {
      const result = await session.client.callTool({
        name: 'Get_TextDigest',
        arguments: { Text: 'hello', Algorithm: 'SHA1', Upper: true },
      });
      expect(readStructured(result)).toEqual({
        algorithm: 'SHA1',
        digest: 'AAF4C61DDCC5E8A2DABEDE0F3B482CD9AEA9434D',
      });
      const lower = await session.client.callTool({
        name: 'Get_TextDigest',
        arguments: { Text: 'hello' },
      });
      expect(readStructured(lower)).toEqual({
        algorithm: 'SHA256',
        digest: '2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824',
      });
    },
  );

  it.skipIf(!hasPwsh)(
    `${PWSH_TEST_TAG} binds a left-out [int] to the type's default, 0, as MCPServerPS describes`,
    async () => {
      const result = await session.client.callTool({
        name: 'Measure_Words',
        arguments: { Text: 'a bb ccc' },
      });
      expect(readStructured(result)).toEqual({ words: 3, longest: 'ccc', minimumLength: 0 });
    },
  );

  it.skipIf(!hasPwsh)(
    `${PWSH_TEST_TAG} runs the destructive tool on the project copy`,
    async () => {
      mkdirSync(path.join(project.dir, 'scratch'), { recursive: true });
      const file = path.join(project.dir, 'scratch', 'old.txt');
      writeFileSync(file, 'stale');
      const result = await session.client.callTool({
        name: 'Remove_ScratchFile',
        arguments: { Name: 'old.txt' },
      });
      expect(readStructured(result)).toEqual({ removed: true, name: 'old.txt' });
      expect(existsSync(file)).toBe(false);
    },
  );

  it.skipIf(!hasPwsh)(
    `${PWSH_TEST_TAG} shares one runspace per module: state one function leaves, another sees`,
    async () => {
      for (const item of ['bolt', 'nut'])
        await session.client.callTool({ name: 'Add_StockItem', arguments: { Item: item } });
      await session.client.callTool({ name: 'Set_Config', arguments: { Unit: 'boxes' } });
      expect(
        readStructured(await session.client.callTool({ name: 'Get_StockCount', arguments: {} })),
      ).toEqual({ count: 2, unit: 'boxes' });
      await session.client.callTool({ name: 'Add_LedgerEntry', arguments: { Amount: 40 } });
      await session.client.callTool({ name: 'Add_LedgerEntry', arguments: { Amount: 2 } });
      // The colliding name is served by the module loaded last.
      expect(
        readStructured(await session.client.callTool({ name: 'Get_Summary', arguments: {} })),
      ).toEqual({
        module: 'Ledger',
        total: 42,
      });
    },
  );
});

describe('two modules with a prefix', () => {
  let session: StdioSession;
  let tools: Map<string, ListedTool>;

  beforeAll(async () => {
    session = await startSeedServer(['--module', inventory, '--module', ledger, '--prefix'], {
      cwd: project.dir,
    });
    tools = await listToolsByName(session);
  }, 60_000);
  afterAll(() => session?.close());

  it('names every tool <Module>_<Function>, so nothing collides', () => {
    expect(ownNames(tools)).toEqual([
      'Inventory_Add_StockItem',
      'Inventory_Get_StockCount',
      'Inventory_Get_Summary',
      'Inventory_Set_Config',
      'Ledger_Add_LedgerEntry',
      'Ledger_Export_Config',
      'Ledger_Get_Summary',
    ]);
    expect(session.stderr()).not.toMatch(/W_COLLISION/);
  });

  it.skipIf(!hasPwsh)(`${PWSH_TEST_TAG} calls each module's own Get-Summary`, async () => {
    await session.client.callTool({ name: 'Inventory_Add_StockItem', arguments: { Item: 'gear' } });
    expect(
      readStructured(
        await session.client.callTool({ name: 'Inventory_Get_Summary', arguments: {} }),
      ),
    ).toEqual({ module: 'Inventory', items: ['gear'] });
    expect(
      readStructured(await session.client.callTool({ name: 'Ledger_Get_Summary', arguments: {} })),
    ).toEqual({ module: 'Ledger', total: 0 });
  });
});

describe('include and exclude wildcards', () => {
  it.skipIf(!hasPwsh)(
    `${PWSH_TEST_TAG} keeps only what the include patterns match (Get-*, one exact name), and serves it`,
    { timeout: 60_000 },
    async () => {
      const session = await startSeedServer(
        [
          '--module',
          inventory,
          '--module',
          ledger,
          '--include',
          'Get-*',
          '--include',
          'Set-Config',
        ],
        { cwd: project.dir },
      );
      try {
        expect(ownNames(await listToolsByName(session))).toEqual([
          'Get_StockCount',
          'Get_Summary',
          'Set_Config',
        ]);
        await session.client.callTool({ name: 'Set_Config', arguments: { Unit: 'boxes' } });
        expect(
          readStructured(await session.client.callTool({ name: 'Get_StockCount', arguments: {} })),
        ).toEqual({ count: 0, unit: 'boxes' });
      } finally {
        await session.close();
      }
    },
  );

  it('drops what an exclude pattern matches (*-Config)', { timeout: 60_000 }, async () => {
    const session = await startSeedServer(
      ['--module', inventory, '--module', ledger, '--exclude', '*-Config'],
      {
        cwd: project.dir,
      },
    );
    try {
      expect(ownNames(await listToolsByName(session))).toEqual([
        'Add_LedgerEntry',
        'Add_StockItem',
        'Get_StockCount',
        'Get_Summary',
      ]);
    } finally {
      await session.close();
    }
  });
});

describe('MaxTools', () => {
  /** A module of `count` documented functions, written to the project copy. */
  function writeLargeModule(count: number): string {
    const functions = Array.from(
      { length: count },
      (_, i) => `function Get-Item${i} {
    <#
    .SYNOPSIS
    Returns item ${i}.
    #>
    param()
    ${i}
}
`,
    );
    const file = path.join(project.dir, 'modules', 'Large', 'Large.psm1');
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, functions.join('\n'));
    return file;
  }

  it('refuses to start with more tools than --max-tools, saying how to filter or raise it', async () => {
    const run = await runMcp(
      [
        'serve',
        '--no-cache',
        '--no-watch',
        '--module',
        inventory,
        '--module',
        ledger,
        '--max-tools',
        '3',
      ],
      { cwd: project.dir },
    );
    expect(run.code).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.stderr).toMatch(/--max-tools|maxTools/);
    expect(run.stderr).toMatch(/--include|--exclude/);
  });

  it('caps at 50 by default, and a raised limit serves them all', { timeout: 60_000 }, async () => {
    const large = writeLargeModule(51);
    const refused = await runMcp(['serve', '--no-cache', '--no-watch', '--module', large], {
      cwd: project.dir,
    });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/\b50\b/);
    const session = await startSeedServer(['--module', large, '--max-tools', '100'], {
      cwd: project.dir,
    });
    try {
      expect(ownNames(await listToolsByName(session))).toHaveLength(51);
    } finally {
      await session.close();
    }
  });
});

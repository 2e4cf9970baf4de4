import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { fuzzRuns } from '@toolpack/fuzz-runs';
import { createArgumentValidator } from '@toolpack/core';
import type { DiscoveredTool, JsonSchema } from '@toolpack/core';
import { hasPwsh, PWSH_TEST_TAG, pwshEngine } from '@toolpack/pwsh-probe';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describePowerShellScriptContent } from './describe-script.ts';

const corpus = fileURLToPath(new URL('./fixtures/parity/scripts/', import.meta.url));

/** Generated param blocks per run (FC_RUNS_SCALE multiplies them); FC_SEED picks others. */
const GENERATED_BLOCKS = fuzzRuns(80);
const SEED = process.env.FC_SEED !== undefined ? Number(process.env.FC_SEED) : 20_261_124;

interface SetTool {
  path: string;
  tool: DiscoveredTool;
}

function describeFile(path: string): DiscoveredTool | undefined {
  return describePowerShellScriptContent({ path, content: readFileSync(path, 'utf8') }).tools[0];
}

/** The parity scripts with several sets: each ends by printing $PSCmdlet.ParameterSetName. */
function readSetTools(): SetTool[] {
  return readdirSync(corpus)
    .filter((name) => name.startsWith('Get-ParitySets'))
    .sort()
    .map((name) => {
      const path = join(corpus, name);
      const tool = describeFile(path);
      if (tool === undefined) throw new Error(`${name} is not a tool`);
      return { path, tool };
    });
}

const membership = fc.record({
  set: fc.constantFrom(undefined, 'A', 'B', 'C', 'a', '__AllParameterSets'),
  mandatory: fc.boolean(),
});

/**
 * Random param blocks with sets: parameters in zero to two sets each (none, named, differing in
 * case, `__AllParameterSets`), mandatory or not, a default set or none (one no parameter names
 * among them). Each prints the set PowerShell bound.
 */
function generateSetScripts(count: number, seed: number): string[] {
  const block = fc.record({
    defaultSet: fc.constantFrom(undefined, 'A', 'B', 'D', 'a'),
    parameters: fc.array(
      fc.record({
        type: fc.constantFrom('string', 'int', 'switch'),
        // A parameter in one set twice does not load; the refusal is tested elsewhere.
        memberships: fc.uniqueArray(membership, {
          maxLength: 2,
          selector: (m) => m.set ?? '__AllParameterSets',
        }),
      }),
      { minLength: 1, maxLength: 4 },
    ),
  });
  return fc.sample(block, { numRuns: count, seed }).map(({ defaultSet, parameters }) => {
    const help = parameters.map((_p, index) => `.PARAMETER P${index}\nParameter ${index}.`);
    const declarations = parameters.map(({ type, memberships }, index) => {
      const attributes = memberships.map(({ set, mandatory }) => {
        const named = [
          ...(mandatory ? ['Mandatory'] : []),
          ...(set === undefined ? [] : [`ParameterSetName = '${set}'`]),
        ];
        return `    [Parameter(${named.join(', ')})]\n`;
      });
      return `${attributes.join('')}    [${type}]$P${index}`;
    });
    const binding =
      defaultSet === undefined
        ? '[CmdletBinding()]'
        : `[CmdletBinding(DefaultParameterSetName = '${defaultSet}')]`;
    return `<#\n.SYNOPSIS\nGenerated.\n${help.join('\n')}\n#>\n${binding}\nparam(\n${declarations.join(',\n')}\n)\n$PSCmdlet.ParameterSetName\n`;
  });
}

/** A value of the parameter's type, as JSON and as a PowerShell literal. */
function sampleValue(schema: JsonSchema): { json: unknown; ps: string } {
  switch (schema.type) {
    case 'integer':
    case 'number':
      return { json: 1, ps: '1' };
    case 'boolean':
      return { json: true, ps: '$true' };
    case 'array': {
      const item = sampleValue((schema.items as JsonSchema | undefined) ?? { type: 'string' });
      return { json: [item.json], ps: `@(${item.ps})` };
    }
    default:
      return { json: 'x', ps: "'x'" };
  }
}

/** Every subset of the tool's parameters: the calls a client can make, values aside. */
function enumerateCalls(tool: DiscoveredTool): Array<Record<string, unknown>> {
  const names = Object.keys(tool.inputSchema.properties ?? {});
  const calls: Array<Record<string, unknown>> = [];
  for (let mask = 0; mask < 1 << names.length; mask += 1) {
    calls.push(
      Object.fromEntries(
        names
          .filter((_name, index) => (mask & (1 << index)) !== 0)
          .map((name) => [name, sampleValue(tool.inputSchema.properties?.[name] ?? {}).json]),
      ),
    );
  }
  return calls;
}

/**
 * What the input schema says of a call: `bound X` when it validates and X's branch is the one
 * that matches, else `error`. The runner's binder (runners bind-parameter-set.ts) follows the
 * same rule; the server's e2e test checks it against the engine through a real call.
 */
function bindBySchema(tool: DiscoveredTool, call: Record<string, unknown>): string {
  if (!createArgumentValidator(tool.inputSchema)(call).valid) return 'error';
  const branches = (tool.inputSchema.oneOf as JsonSchema[] | undefined) ?? [];
  const matching = branches.filter((branch) => createArgumentValidator(branch)(call).valid);
  return matching.length === 1 ? `bound ${String(matching[0]?.title)}` : 'error';
}

describe('parameter sets', () => {
  it('has corpus commands for the awkward shapes, each with several sets', () => {
    const tools = readSetTools();
    expect(tools.length).toBeGreaterThanOrEqual(8);
    for (const { tool } of tools) expect(tool.parameterSets?.length).toBeGreaterThan(1);
  });

  it('keeps every parameter in properties and puts the default set first', () => {
    const mix = readSetTools().find(({ path }) => path.endsWith('MandatoryMix.ps1'))?.tool;
    expect(Object.keys(mix?.inputSchema.properties ?? {})).toEqual(['Name', 'Id', 'Top']);
    expect(mix?.parameterSets).toEqual([
      { name: 'ByName', isDefault: true, parameters: ['Name', 'Top'], required: ['Name'] },
      { name: 'ById', isDefault: false, parameters: ['Name', 'Id', 'Top'], required: ['Id'] },
    ]);
    expect(mix?.inputSchema.oneOf).toEqual([
      {
        title: 'ByName',
        description: 'Parameter set ByName (the default): Name, Top.',
        required: ['Name'],
        propertyNames: { enum: ['Name', 'Top'] },
      },
      {
        title: 'ById',
        description: 'Parameter set ById: Name, Id, Top.',
        required: ['Id'],
        propertyNames: { enum: ['Name', 'Id', 'Top'] },
        not: { propertyNames: { enum: ['Name', 'Top'] } },
      },
    ]);
  });

  it('reads a bare named argument as $true: a default set and a set named True', () => {
    const bare = readSetTools().find(({ path }) => path.endsWith('BareNames.ps1'))?.tool;
    expect(bare?.parameterSets).toEqual([
      { name: 'True', isDefault: true, parameters: ['Path', 'Flag'], required: [] },
      { name: 'B', isDefault: false, parameters: ['Path', 'Key'], required: ['Key'] },
      { name: 'C', isDefault: false, parameters: ['Path', 'Other'], required: [] },
    ]);
  });
});

describe.skipIf(!hasPwsh)(`parameter sets on ${pwshEngine?.description ?? 'pwsh'}`, () => {
  let work = '';
  const cases: Array<{
    generated: boolean;
    tool: DiscoveredTool;
    call: Record<string, unknown>;
    engine: string;
  }> = [];

  // One pwsh process calls every command with every subset of its parameters.
  beforeAll(() => {
    work = mkdtempSync(join(tmpdir(), 'toolpack-sets-'));
    const generated: SetTool[] = [];
    generateSetScripts(GENERATED_BLOCKS, SEED).forEach((content, index) => {
      const path = join(work, `Get-Generated${index}.ps1`);
      writeFileSync(path, content);
      const tool = describeFile(path);
      // One set (or none named) is not this test's subject.
      if (tool?.parameterSets !== undefined) generated.push({ path, tool });
    });
    const lines = [
      '$ErrorActionPreference = "Stop"',
      'function Test-Call([string]$Path, [hashtable]$Arguments) {',
      '  try { $set = & $Path @Arguments; [Console]::Out.WriteLine("bound $set") }',
      '  catch { [Console]::Out.WriteLine("error $($_.FullyQualifiedErrorId)") }',
      '}',
    ];
    const pending: Array<{
      generated: boolean;
      tool: DiscoveredTool;
      call: Record<string, unknown>;
    }> = [];
    const all = [
      ...readSetTools().map((entry) => ({ ...entry, generated: false })),
      ...generated.map((entry) => ({ ...entry, generated: true })),
    ];
    for (const { path, tool, generated: isGenerated } of all) {
      for (const call of enumerateCalls(tool)) {
        const entries = Object.keys(call).map(
          (name) => `${name} = ${sampleValue(tool.inputSchema.properties?.[name] ?? {}).ps}`,
        );
        lines.push(`Test-Call '${path.replace(/'/g, "''")}' @{ ${entries.join('; ')} }`);
        pending.push({ generated: isGenerated, tool, call });
      }
    }
    const script = join(work, 'calls.ps1');
    writeFileSync(script, lines.join('\n'));
    const output = execFileSync(
      'pwsh',
      ['-NoLogo', '-NoProfile', '-NonInteractive', '-File', script],
      { encoding: 'utf8', timeout: 300_000, maxBuffer: 64 * 1024 * 1024 },
    )
      .split('\n')
      .filter((line) => line !== '');
    expect(output).toHaveLength(pending.length);
    pending.forEach((entry, index) => cases.push({ ...entry, engine: output[index] as string }));
  }, 330_000);

  afterAll(() => {
    if (work !== '') rmSync(work, { recursive: true, force: true });
  });

  function findDifferences(generated: boolean): string[] {
    const differences: string[] = [];
    for (const { tool, call, engine } of cases.filter((c) => c.generated === generated)) {
      const ours = bindBySchema(tool, call);
      const theirs = engine.startsWith('bound ') ? engine : 'error';
      if (ours !== theirs)
        differences.push(
          `${tool.source.path} ${JSON.stringify(call)}: the schema says ${ours}, PowerShell ${engine}`,
        );
    }
    return differences;
  }

  it(`${PWSH_TEST_TAG} accepts exactly the calls PowerShell binds, each by the branch of the set it binds`, () => {
    expect(cases.filter((c) => !c.generated).length).toBeGreaterThanOrEqual(60);
    expect(findDifferences(false)).toEqual([]);
    // Both outcomes occur: the comparison is not all refusals or all bindings.
    const engine = cases.filter((c) => !c.generated).map((c) => c.engine);
    expect(engine.some((line) => line.startsWith('error AmbiguousParameterSet'))).toBe(true);
    expect(engine.some((line) => line.startsWith('error MissingMandatoryParameter'))).toBe(true);
    expect(engine.some((line) => line.startsWith('bound '))).toBe(true);
  });

  it(`${PWSH_TEST_TAG} does the same for ${GENERATED_BLOCKS} generated param blocks`, () => {
    const tools = new Set(cases.filter((c) => c.generated).map((c) => c.tool));
    expect(tools.size).toBeGreaterThanOrEqual(GENERATED_BLOCKS / 4);
    expect(findDifferences(true)).toEqual([]);
  });
});

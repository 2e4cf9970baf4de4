import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createArgumentValidator } from '@toolpack/core';
import type { DiscoveredTool, JsonSchema } from '@toolpack/core';
import { hasPwsh, PWSH_TEST_TAG, pwshEngine } from '@toolpack/pwsh-probe';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describePowerShellScriptContent } from './describe-script.ts';

const corpus = fileURLToPath(new URL('./fixtures/parity/scripts/', import.meta.url));

/** The parity scripts with several sets: each ends by printing $PSCmdlet.ParameterSetName. */
function readSetTools(): Array<{ path: string; tool: DiscoveredTool }> {
  return readdirSync(corpus)
    .filter((name) => name.startsWith('Get-ParitySets'))
    .sort()
    .map((name) => {
      const path = join(corpus, name);
      const tool = describePowerShellScriptContent({ path, content: readFileSync(path, 'utf8') })
        .tools[0];
      if (tool === undefined) throw new Error(`${name} is not a tool`);
      return { path, tool };
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
});

describe.skipIf(!hasPwsh)(`parameter sets on ${pwshEngine?.description ?? 'pwsh'}`, () => {
  let work = '';
  const cases: Array<{ tool: DiscoveredTool; call: Record<string, unknown>; engine: string }> = [];

  // One pwsh process calls every corpus command with every subset of its parameters.
  beforeAll(() => {
    work = mkdtempSync(join(tmpdir(), 'toolpack-sets-'));
    const lines = [
      '$ErrorActionPreference = "Stop"',
      'function Test-Call([string]$Path, [hashtable]$Arguments) {',
      '  try { $set = & $Path @Arguments; [Console]::Out.WriteLine("bound $set") }',
      '  catch { [Console]::Out.WriteLine("error $($_.FullyQualifiedErrorId)") }',
      '}',
    ];
    const pending: Array<{ tool: DiscoveredTool; call: Record<string, unknown> }> = [];
    for (const { path, tool } of readSetTools()) {
      for (const call of enumerateCalls(tool)) {
        const entries = Object.keys(call).map(
          (name) => `${name} = ${sampleValue(tool.inputSchema.properties?.[name] ?? {}).ps}`,
        );
        lines.push(`Test-Call '${path.replace(/'/g, "''")}' @{ ${entries.join('; ')} }`);
        pending.push({ tool, call });
      }
    }
    const script = join(work, 'calls.ps1');
    writeFileSync(script, lines.join('\n'));
    const output = execFileSync(
      'pwsh',
      ['-NoLogo', '-NoProfile', '-NonInteractive', '-File', script],
      { encoding: 'utf8', timeout: 120_000 },
    )
      .split('\n')
      .filter((line) => line !== '');
    expect(output).toHaveLength(pending.length);
    pending.forEach((entry, index) => cases.push({ ...entry, engine: output[index] as string }));
  }, 150_000);

  afterAll(() => {
    if (work !== '') rmSync(work, { recursive: true, force: true });
  });

  it(`${PWSH_TEST_TAG} accepts exactly the calls PowerShell binds, each by the branch of the set it binds`, () => {
    expect(cases.length).toBeGreaterThanOrEqual(60);
    const differences: string[] = [];
    for (const { tool, call, engine } of cases) {
      const ours = bindBySchema(tool, call);
      const theirs = engine.startsWith('bound ') ? engine : 'error';
      if (ours !== theirs)
        differences.push(
          `${tool.name} ${JSON.stringify(call)}: the schema says ${ours}, PowerShell ${engine}`,
        );
    }
    expect(differences).toEqual([]);
    // Both outcomes occur: the comparison is not all refusals or all bindings.
    expect(cases.some(({ engine }) => engine.startsWith('error AmbiguousParameterSet'))).toBe(true);
    expect(cases.some(({ engine }) => engine.startsWith('error MissingMandatoryParameter'))).toBe(
      true,
    );
    expect(cases.some(({ engine }) => engine.startsWith('bound '))).toBe(true);
  });
});

import { execFileSync, spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { DiscoveredTool, JsonSchema } from '@toolpack/core';
import { describe, expect, it } from 'vitest';
import type { SourceResult } from '../types.ts';
import { describePowerShellModule } from './describe-module.ts';
import { describePowerShellScriptContent } from './describe-script.ts';

const fixtures = fileURLToPath(new URL('./fixtures/', import.meta.url));
const corpus = join(fixtures, 'parity');
const collector = join(fixtures, 'parity-collect.ps1');

const hasPwsh =
  spawnSync(
    'pwsh',
    ['-NoLogo', '-NoProfile', '-NonInteractive', '-Command', '$PSVersionTable.PSVersion.Major'],
    {
      encoding: 'utf8',
      timeout: 30_000,
    },
  ).status === 0;

/** What parity-collect.ps1 prints for one script or exported function. */
interface PwshCommand {
  kind: 'script' | 'function' | 'module';
  file: string;
  module: string | null;
  name: string;
  loadError?: string;
  hasHelp?: boolean;
  synopsis?: string;
  description?: string;
  parameterSets?: string[];
  parameters?: Array<{
    name: string;
    type: string;
    mandatory: boolean;
    description: string;
    default: { hasDefault: boolean; constant: boolean; value: unknown; text: string | null };
  }>;
}

interface Ours {
  result: SourceResult;
  tool?: DiscoveredTool;
}

function scriptFiles(): string[] {
  return readdirSync(join(corpus, 'scripts'))
    .filter((name) => name.endsWith('.ps1'))
    .sort();
}

function moduleFiles(): string[] {
  return readdirSync(join(corpus, 'modules'))
    .sort()
    .map((folder) => {
      const manifest = `modules/${folder}/${folder}.psd1`;
      return readdirSync(join(corpus, 'modules', folder)).includes(`${folder}.psd1`)
        ? manifest
        : `modules/${folder}/${folder}.psm1`;
    });
}

/** Toolpack's view of the corpus, keyed like the collector's output. */
async function describeCorpus(): Promise<{
  scripts: Map<string, Ours>;
  modules: Map<string, SourceResult>;
}> {
  const scripts = new Map<string, Ours>();
  for (const name of scriptFiles()) {
    const path = join(corpus, 'scripts', name);
    const result = describePowerShellScriptContent({ path, content: readFileSync(path, 'utf8') });
    scripts.set(`scripts/${name}`, {
      result,
      ...(result.tools[0] === undefined ? {} : { tool: result.tools[0] }),
    });
  }
  const modules = new Map<string, SourceResult>();
  for (const file of moduleFiles())
    modules.set(file, await describePowerShellModule({ path: join(corpus, file) }));
  return { scripts, modules };
}

function normalize(text: string | undefined): string {
  return (text ?? '').replace(/\s+/g, ' ').trim();
}

/** The JSON type Toolpack should give a .NET parameter type; undefined for untyped (`System.Object`). */
function expectedType(fullName: string): string | undefined {
  if (fullName === 'System.Object') return undefined;
  const nullable = /^System\.Nullable`1\[\[([^,\]]+)/.exec(fullName);
  if (nullable !== null) return expectedType(nullable[1] as string);
  if (
    fullName.endsWith('[]') ||
    fullName === 'System.Array' ||
    /^System\.Collections\.(Generic\.List`1|ArrayList)/.test(fullName)
  )
    return 'array';
  if (/^System\.(U?Int(16|32|64)|S?Byte|Numerics\.BigInteger)$/.test(fullName)) return 'integer';
  if (/^System\.(Double|Single|Decimal)$/.test(fullName)) return 'number';
  if (fullName === 'System.Boolean' || fullName === 'System.Management.Automation.SwitchParameter')
    return 'boolean';
  if (
    /^System\.(Collections\.(Hashtable|IDictionary|Specialized\.OrderedDictionary)|Management\.Automation\.PS(Custom)?Object)$/.test(
      fullName,
    )
  )
    return 'object';
  return 'string';
}

/** PowerShell's constant (as SafeGetValue gives it) in the JSON type Toolpack uses. */
function coerceDefault(value: unknown, schema: JsonSchema): unknown {
  if (schema.type === 'array') {
    const items = Array.isArray(value) ? value : [value];
    return items.map((item) => coerceDefault(item, (schema.items as JsonSchema | undefined) ?? {}));
  }
  if (schema.type === 'string' && (typeof value === 'number' || typeof value === 'boolean'))
    return String(value);
  return value;
}

function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v !== null && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(
          Object.entries(v as Record<string, unknown>).sort(([a], [b]) => a.localeCompare(b)),
        )
      : v,
  );
}

function errorCodes(result: SourceResult, name?: string): string[] {
  return result.diagnostics
    .filter((d) => d.severity === 'error' && (name === undefined || d.message.includes(name)))
    .map((d) => d.code);
}

/** Every way Toolpack's reading of one command differs from PowerShell's. */
function compareCommand(command: PwshCommand, ours: Ours, label: string): string[] {
  const mismatches: string[] = [];
  const codes =
    ours.tool === undefined
      ? errorCodes(ours.result, command.kind === 'function' ? command.name : undefined)
      : [];
  if (command.loadError !== undefined) {
    if (!codes.includes('E_PARSE'))
      mismatches.push(
        `${label}: PowerShell cannot load it (${command.loadError}) but Toolpack reported no E_PARSE`,
      );
    return mismatches;
  }
  const sets = command.parameterSets ?? [];
  const noDescription =
    command.hasHelp !== true ||
    (normalize(command.synopsis) === '' && normalize(command.description) === '');
  if (sets.length > 1 && !codes.includes('E_PARAMETER_SETS'))
    mismatches.push(
      `${label}: PowerShell sees ${sets.length} parameter sets, Toolpack did not refuse them`,
    );
  if (noDescription && !codes.includes('E_NO_DESCRIPTION'))
    mismatches.push(`${label}: PowerShell finds no help, Toolpack did not report E_NO_DESCRIPTION`);
  if (!noDescription && codes.includes('E_NO_DESCRIPTION'))
    mismatches.push(`${label}: PowerShell finds help, Toolpack reported E_NO_DESCRIPTION`);
  if (sets.length <= 1 && codes.includes('E_PARAMETER_SETS'))
    mismatches.push(`${label}: PowerShell sees one parameter set, Toolpack refused several`);
  const undocumented = (command.parameters ?? [])
    .filter((p) => normalize(p.description) === '')
    .map((p) => p.name);
  for (const code of codes) {
    if (
      [
        'E_NO_DESCRIPTION',
        'E_PARAMETER_SETS',
        'E_PARAMETER_TYPE',
        'E_CONFLICTING_HINTS',
        'E_HINT_VALUE',
      ].includes(code)
    )
      continue;
    if (code === 'E_PARAMETER_NO_DESCRIPTION' && undocumented.length > 0) continue;
    mismatches.push(
      `${label}: Toolpack refused it with ${code}, which PowerShell's view does not explain`,
    );
  }
  const tool = ours.tool;
  if (tool === undefined) return mismatches;

  const expectedDescription = normalize(
    [command.synopsis, command.description].filter((part) => normalize(part) !== '').join(' '),
  );
  if (normalize(tool.description) !== expectedDescription) {
    mismatches.push(
      `${label}: description ${JSON.stringify(tool.description)} differs from Get-Help's ${JSON.stringify(expectedDescription)}`,
    );
  }
  const properties = (tool.inputSchema.properties ?? {}) as Record<string, JsonSchema>;
  const required = new Set(tool.inputSchema.required ?? []);
  const omitted = new Set(
    ours.result.diagnostics
      .filter((d) => d.code === 'W_PARAMETER_TYPE')
      .map((d) => /\$(\S+) of/.exec(d.message)?.[1]),
  );
  for (const parameter of command.parameters ?? []) {
    const where = `${label} $${parameter.name}`;
    const schema = properties[parameter.name];
    if (schema === undefined) {
      if (!omitted.has(parameter.name)) mismatches.push(`${where}: missing from the input schema`);
      continue;
    }
    if (required.has(parameter.name) !== parameter.mandatory)
      mismatches.push(
        `${where}: required is ${required.has(parameter.name)}, PowerShell says mandatory ${parameter.mandatory}`,
      );
    const type = expectedType(parameter.type);
    if (type !== undefined && schema.type !== type)
      mismatches.push(
        `${where}: type ${String(schema.type)} for [${parameter.type}], expected ${type}`,
      );
    if (
      normalize(parameter.description) !== '' &&
      normalize(schema.description as string | undefined) !== normalize(parameter.description)
    ) {
      mismatches.push(
        `${where}: description ${JSON.stringify(schema.description)} differs from Get-Help's ${JSON.stringify(parameter.description)}`,
      );
    }
    const declared = parameter.default;
    const dropped = ours.result.diagnostics.some(
      (d) =>
        (d.code === 'W_DEFAULT_INVALID' || d.code === 'I_DEFAULT_DROPPED') &&
        d.message.includes(`$${parameter.name} `),
    );
    if (declared.constant && declared.value !== null && !parameter.mandatory && !dropped) {
      if (schema.default === undefined)
        mismatches.push(
          `${where}: PowerShell has the constant default ${declared.text}, the schema has none`,
        );
      else if (canonical(schema.default) !== canonical(coerceDefault(declared.value, schema))) {
        mismatches.push(
          `${where}: default ${canonical(schema.default)} differs from PowerShell's ${canonical(declared.value)}`,
        );
      }
    }
    if (!declared.constant && schema.default !== undefined)
      mismatches.push(
        `${where}: ${declared.text} is not constant for PowerShell, yet the schema has a default`,
      );
    if (!declared.hasDefault && schema.default !== undefined)
      mismatches.push(`${where}: the schema invents a default`);
  }
  for (const name of Object.keys(properties)) {
    if (!(command.parameters ?? []).some((p) => p.name === name))
      mismatches.push(`${label} $${name}: not a parameter for PowerShell`);
  }
  return mismatches;
}

/** Which corpus commands are meant to be refused, and why; every other one must become a tool. */
const EXPECTED_REFUSALS: Record<string, string> = {
  'Get-ParityNearFunction': 'E_NO_DESCRIPTION',
  'Get-ParitySets': 'E_PARAMETER_SETS',
  'Get-ParityRequires': 'E_NO_DESCRIPTION',
  'Get-ParityTrailingComment': 'E_PARAMETER_NO_DESCRIPTION',
  'Test-ParityModNoHelp': 'E_NO_DESCRIPTION,E_PARAMETER_NO_DESCRIPTION',
};

describe('parity with PowerShell', () => {
  it('has a corpus of at least 30 commands, each a tool or refused for its intended reason', async () => {
    const { scripts, modules } = await describeCorpus();
    const outcomes = new Map<string, string>();
    for (const [file, ours] of scripts) {
      const name = file.replace(/^scripts\//, '').replace(/\.ps1$/, '');
      outcomes.set(name, ours.tool !== undefined ? 'tool' : errorCodes(ours.result).join(','));
    }
    for (const result of modules.values()) {
      for (const tool of result.tools) outcomes.set(tool.originalName, 'tool');
      for (const diagnostic of result.diagnostics.filter((d) => d.severity === 'error')) {
        const name = /function (\S+)/.exec(diagnostic.message)?.[1];
        if (name !== undefined)
          outcomes.set(name, [outcomes.get(name), diagnostic.code].filter(Boolean).join(','));
      }
    }
    expect(outcomes.size).toBeGreaterThanOrEqual(30);
    for (const [name, outcome] of outcomes) {
      expect(outcome, name).toBe(EXPECTED_REFUSALS[name] ?? 'tool');
    }
    expect(outcomes.has('Get-ParityModPrivate')).toBe(false);
    expect(outcomes.has('Get-ParityExportHidden')).toBe(false);
  });

  it('reads the collector script itself as valid PowerShell', () => {
    const result = describePowerShellScriptContent({
      path: collector,
      content: readFileSync(collector, 'utf8'),
    });
    expect(result.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
  });

  it.skipIf(!hasPwsh)(
    'matches Get-Help/Get-Command for the parity corpus (skipped: pwsh not installed)',
    async () => {
      const output = execFileSync(
        'pwsh',
        [
          '-NoLogo',
          '-NoProfile',
          '-NonInteractive',
          '-ExecutionPolicy',
          'Bypass',
          '-File',
          collector,
          '-CorpusRoot',
          corpus,
        ],
        { encoding: 'utf8', timeout: 120_000, maxBuffer: 64 * 1024 * 1024 },
      );
      const facts = JSON.parse(output) as { psVersion: string; commands: PwshCommand[] };
      const { scripts, modules } = await describeCorpus();
      const mismatches: string[] = [];
      for (const command of facts.commands) {
        if (command.kind === 'script') {
          const ours = scripts.get(command.file);
          if (ours === undefined) mismatches.push(`${command.file}: not described by Toolpack`);
          else mismatches.push(...compareCommand(command, ours, command.file));
          continue;
        }
        const result = modules.get(command.module ?? '');
        if (result === undefined) {
          mismatches.push(`${command.module}: not described by Toolpack`);
          continue;
        }
        const tool = result.tools.find((t) => t.originalName === command.name);
        mismatches.push(
          ...compareCommand(
            command,
            { result, ...(tool === undefined ? {} : { tool }) },
            `${command.module}:${command.name}`,
          ),
        );
      }
      // Toolpack must not make tools of functions PowerShell does not export.
      for (const [file, result] of modules) {
        const exported = new Set(
          facts.commands.filter((c) => c.module === file).map((c) => c.name),
        );
        for (const tool of result.tools) {
          if (!exported.has(tool.originalName))
            mismatches.push(
              `${file}: ${tool.originalName} is a tool but PowerShell does not export it`,
            );
        }
      }
      expect(facts.commands.length).toBeGreaterThanOrEqual(30);
      expect(mismatches, `PowerShell ${facts.psVersion}`).toEqual([]);
    },
    180_000,
  );
});

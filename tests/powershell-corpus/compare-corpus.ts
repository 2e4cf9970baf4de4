import { readdirSync } from 'node:fs';
import path from 'node:path';
import { ENUM_IGNORE_CASE_KEYWORD } from '@toolpack/core';
import type { Diagnostic, DiscoveredTool, JsonSchema } from '@toolpack/core';
import { discoverTools } from '../../packages/discovery/src/index.ts';
import type {
  CollectEntry,
  PowerShellFacts,
} from '../../packages/discovery/src/testing/collect-powershell-facts.ts';
import { compareCommand } from '../../packages/discovery/src/testing/powershell-parity-compare.ts';
import type { PwshCommand } from '../../packages/discovery/src/testing/powershell-parity-compare.ts';
import { CORPUS, itemRoot, type CorpusItem } from './corpus.ts';

/** What the comparison found for one module or script collection. */
export interface ItemOutcome {
  item: CorpusItem;
  /** Functions pwsh exports (modules) or scripts it reads (collections). */
  pwshCommands: number;
  /** Of those, how many pwsh itself cannot load. */
  pwshUnloadable: number;
  /** Of those, how many Toolpack lists as tools. */
  listed: number;
  /** Of those not listed, how many Toolpack refuses with each code (a command may count under several). */
  refusedByCode: Record<string, number>;
  /** Every disagreement with pwsh, one line each, labelled `<item>:<command>`. */
  differences: string[];
}

/** The scripts of a collection, sorted: what pwsh is asked about and Toolpack reads. */
export function listScripts(item: CorpusItem): string[] {
  const root = itemRoot(item);
  return (item.scriptDirs?.() ?? []).flatMap((dir) =>
    readdirSync(path.join(root, dir))
      .filter((name) => name.toLowerCase().endsWith('.ps1'))
      .sort()
      .map((name) => path.join(root, dir, name)),
  );
}

/** The collector's list for the corpus, and the stand-ins it must run first. */
export function corpusEntries(items: readonly CorpusItem[] = CORPUS): {
  entries: CollectEntry[];
  preludes: string[];
} {
  const entries: CollectEntry[] = [];
  const preludes: string[] = [];
  for (const item of items) {
    const root = itemRoot(item);
    if (item.prelude !== undefined) preludes.push(path.join(root, item.prelude));
    if (item.kind === 'module')
      entries.push({ kind: 'module', path: path.join(root, item.entry as string) });
    else for (const script of listScripts(item)) entries.push({ kind: 'script', path: script });
  }
  return { entries, preludes };
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** The diagnostics that name `name` as a whole word (not `Get-X` inside `Get-XY`). */
function namingDiagnostics(diagnostics: readonly Diagnostic[], name: string): Diagnostic[] {
  const word = new RegExp(`(^|[^\\w-])${escapeRegExp(name)}($|[^\\w-])`, 'i');
  return diagnostics.filter((d) => word.test(d.message));
}

const errorCodesOf = (diagnostics: readonly Diagnostic[]) => [
  ...new Set(diagnostics.filter((d) => d.severity === 'error').map((d) => d.code)),
];

/** Notes that say why a file is not served, by the rule that skips it: a reason, as an error is. */
const SKIP_NOTES: ReadonlySet<string> = new Set(['I_SKIPPED_FILE']);

const reasonCodesOf = (diagnostics: readonly Diagnostic[]) => [
  ...errorCodesOf(diagnostics),
  ...new Set(diagnostics.filter((d) => SKIP_NOTES.has(d.code)).map((d) => d.code)),
];

/** Toolpack's reading of an item, as `discoverTools` gives it to `mcp list` and `mcp serve`. */
async function readWithToolpack(item: CorpusItem, cwd: string) {
  const root = itemRoot(item);
  const sources =
    item.kind === 'module'
      ? [{ module: path.join(root, item.entry as string) }]
      : (item.scriptDirs?.() ?? []).map((dir) => ({ scripts: path.join(root, dir) }));
  return discoverTools({ sources, cwd, cache: false, builtins: false, maxTools: 100_000 });
}

/**
 * A command as corpus-collect.ps1 reports it: Get-Help's text where no comment help exists, and
 * the names of each .NET enum parameter type.
 */
export type CorpusCommand = PwshCommand & {
  engineHelp?: { synopsis: string; description: string };
  parameters?: Array<
    NonNullable<PwshCommand['parameters']>[number] & { enumNames?: string[]; enumFlags?: boolean }
  >;
};

/** core's annotation beside `enum`: any case is accepted and the listed spelling is bound. */
const ENUM_IGNORE_CASE = ENUM_IGNORE_CASE_KEYWORD;

const sortedJson = (values: readonly unknown[]) => JSON.stringify(values.map(String).sort());

/**
 * What the parity comparison leaves unchecked: an untyped or `[object]` parameter takes any JSON
 * value (no `type`); a ValidateSet's enum ignores case as the engine does; and a parameter of a
 * .NET enum type (not a flags enum, which also takes combinations, and without a ValidateSet,
 * which the parity comparison checks) is an `enum` of the type's names, in any case: any of them
 * binds, nothing else does.
 */
export function compareEngineTypes(
  command: CorpusCommand,
  tool: DiscoveredTool | undefined,
  label: string,
): string[] {
  if (tool === undefined) return [];
  const properties = (tool.inputSchema.properties ?? {}) as Record<string, JsonSchema>;
  const differences: string[] = [];
  for (const parameter of command.parameters ?? []) {
    // Untyped and [object] parameters bind any value the engine is given.
    const untypedSchema = properties[parameter.name];
    if (parameter.type === 'System.Object' && untypedSchema?.type !== undefined)
      differences.push(
        `${label} $${parameter.name}: type ${JSON.stringify(untypedSchema.type)} for [System.Object], expected any JSON value`,
      );
    const schema = properties[parameter.name];
    if (schema === undefined) continue;
    const target = schema.type === 'array' ? (schema.items as JsonSchema | undefined) : schema;
    const ours = target?.enum as unknown[] | undefined;
    const ignoresCase = target?.[ENUM_IGNORE_CASE] === true;
    // The engine compares a ValidateSet's values ignoring case unless IgnoreCase = $false; a
    // value passes only when every set of the parameter accepts it.
    const sets = parameter.validation.sets.filter((set) => Array.isArray(set.values));
    if (sets.length > 0 && ours !== undefined) {
      const expected = sets.every((set) => set.ignoreCase);
      if (ignoresCase !== expected)
        differences.push(
          `${label} $${parameter.name}: ValidateSet ${expected ? 'ignores case' : 'is case-sensitive (IgnoreCase = $false)'}, the schema's enum ${ignoresCase ? 'ignores' : 'keeps'} it (${ENUM_IGNORE_CASE})`,
        );
    }
    const names = parameter.enumNames;
    if (names === undefined || parameter.enumFlags === true) continue;
    if (parameter.validation.sets.length > 0) continue;
    if (ours === undefined)
      differences.push(
        `${label} $${parameter.name}: .NET enum [${parameter.type}] (${names.length} names) is not an enum in the schema`,
      );
    else if (sortedJson(ours) !== sortedJson(names))
      differences.push(
        `${label} $${parameter.name}: enum ${sortedJson(ours)} differs from the .NET enum [${parameter.type}]'s names ${sortedJson(names)}`,
      );
    else if (!ignoresCase)
      differences.push(
        `${label} $${parameter.name}: the .NET enum [${parameter.type}] takes its names in any case, the schema's enum keeps case (${ENUM_IGNORE_CASE})`,
      );
  }
  return differences;
}

/**
 * The parity comparison of one command (help, parameters, types, sets, defaults, validation),
 * with help from a MAML file counting as the command's help, as Get-Help shows it.
 */
function compareOne(
  command: CorpusCommand,
  tool: DiscoveredTool | undefined,
  diagnostics: Diagnostic[],
  label: string,
): string[] {
  const result = { tools: tool === undefined ? [] : [tool], diagnostics };
  const help = command.engineHelp;
  const judged =
    command.hasHelp === true || help === undefined
      ? command
      : { ...command, hasHelp: true, synopsis: help.synopsis, description: help.description };
  return [
    ...compareCommand(judged, tool === undefined ? { result } : { result, tool }, label),
    ...compareEngineTypes(command, tool, label),
    ...compareTypeRefusal(command, tool, diagnostics, label),
  ];
}

/** Parameter types no JSON value can carry (a mandatory one is Toolpack's E_PARAMETER_TYPE). */
const UNREPRESENTABLE =
  /^System\.(Management\.Automation\.(PSCredential|ScriptBlock)|Security\.SecureString)(\[\])?$/;

/**
 * A type no JSON value carries refuses only the parameter sets that need it: when pwsh has a set
 * whose mandatory parameters all have representable types, the tool is served with that set.
 */
export function compareTypeRefusal(
  command: PwshCommand,
  tool: DiscoveredTool | undefined,
  diagnostics: readonly Diagnostic[],
  label: string,
): string[] {
  const sets = command.sets ?? [];
  if (tool !== undefined || sets.length < 2) return [];
  const codes = errorCodesOf(diagnostics);
  if (codes.length !== 1 || codes[0] !== 'E_PARAMETER_TYPE') return [];
  const typeOf = new Map((command.parameters ?? []).map((p) => [p.name, p.type]));
  const servable = sets.filter((set) =>
    set.parameters.every((p) => !p.mandatory || !UNREPRESENTABLE.test(typeOf.get(p.name) ?? '')),
  );
  return servable.length === 0
    ? []
    : [
        `${label}: refused whole with E_PARAMETER_TYPE, though its parameter sets ${JSON.stringify(servable.map((set) => set.name).sort())} need no unrepresentable mandatory parameter`,
      ];
}

function relativeLabel(item: CorpusItem, file: string): string {
  return `${item.id}/${path.relative(itemRoot(item), file).split(path.sep).join('/')}`;
}

function compareModule(
  item: CorpusItem,
  commands: readonly PwshCommand[],
  tools: readonly DiscoveredTool[],
  diagnostics: readonly Diagnostic[],
): Omit<ItemOutcome, 'item'> {
  const differences: string[] = [];
  const refusedByCode: Record<string, number> = {};
  let listed = 0;
  let pwshUnloadable = 0;
  // Errors that name no exported function refuse the module (or part of it) as a whole.
  const moduleErrors = errorCodesOf(
    diagnostics.filter(
      (d) => d.severity === 'error' && !commands.some((c) => namingDiagnostics([d], c.name).length),
    ),
  );
  const exported = commands.filter((c) => c.kind === 'function');
  const namingSome = new Set(exported.flatMap((c) => namingDiagnostics(diagnostics, c.name)));
  for (const command of commands) {
    if (command.kind === 'module') {
      pwshUnloadable += 1;
      if (tools.length > 0)
        differences.push(
          `${item.id}: pwsh cannot import it (${command.loadError}), Toolpack lists ${tools.length} tools`,
        );
      continue;
    }
    if (command.loadError !== undefined) pwshUnloadable += 1;
    const label = `${item.id}:${command.name}`;
    const tool = tools.find((t) => t.originalName.toLowerCase() === command.name.toLowerCase());
    // Its own diagnostics name it, or sit in its file naming no exported function (some say only
    // which parameter they are about).
    const own = [
      ...namingDiagnostics(diagnostics, command.name),
      ...diagnostics.filter((d) => d.path === command.file && !namingSome.has(d)),
    ];
    if (tool !== undefined) listed += 1;
    else {
      const codes = errorCodesOf(own);
      for (const code of codes.length > 0 ? codes : moduleErrors)
        refusedByCode[code] = (refusedByCode[code] ?? 0) + 1;
      if (codes.length === 0 && command.loadError === undefined)
        differences.push(
          moduleErrors.length > 0
            ? `${label}: pwsh exports it, Toolpack does not list it (the module is refused: ${moduleErrors.join(', ')})`
            : `${label}: pwsh exports it, Toolpack neither lists it nor says why`,
        );
    }
    // A function left out with no error of its own is reported above, once.
    if (tool === undefined && errorCodesOf(own).length === 0) continue;
    differences.push(...compareOne(command, tool, own, label));
  }
  const names = new Set(exported.map((c) => c.name.toLowerCase()));
  for (const tool of tools) {
    if (!names.has(tool.originalName.toLowerCase()) && commands.every((c) => c.kind !== 'module'))
      differences.push(`${item.id}:${tool.originalName}: a tool, but pwsh does not export it`);
  }
  return { pwshCommands: exported.length, pwshUnloadable, listed, refusedByCode, differences };
}

function compareScripts(
  item: CorpusItem,
  commands: readonly PwshCommand[],
  tools: readonly DiscoveredTool[],
  diagnostics: readonly Diagnostic[],
): Omit<ItemOutcome, 'item'> {
  const differences: string[] = [];
  const refusedByCode: Record<string, number> = {};
  let listed = 0;
  let pwshUnloadable = 0;
  for (const command of commands) {
    const label = relativeLabel(item, command.file);
    if (command.loadError !== undefined) pwshUnloadable += 1;
    const tool = tools.find((t) => t.source.path === command.file);
    const own = diagnostics.filter((d) => d.path === command.file);
    if (tool !== undefined) listed += 1;
    else {
      const codes = reasonCodesOf(own);
      for (const code of codes) refusedByCode[code] = (refusedByCode[code] ?? 0) + 1;
      if (codes.length === 0 && command.loadError === undefined)
        differences.push(`${label}: pwsh reads it, Toolpack neither lists it nor says why`);
    }
    if (tool === undefined && errorCodesOf(own).length === 0 && command.loadError === undefined)
      continue;
    differences.push(...compareOne(command, tool, own, label));
  }
  return { pwshCommands: commands.length, pwshUnloadable, listed, refusedByCode, differences };
}

/**
 * Compares what pwsh reported (`facts`, from collectCorpusFacts over corpusEntries()) with what
 * Toolpack lists for the same files, item by item.
 */
export async function compareCorpus(
  facts: PowerShellFacts,
  options: { cwd: string; items?: readonly CorpusItem[] },
): Promise<ItemOutcome[]> {
  const outcomes: ItemOutcome[] = [];
  for (const item of options.items ?? CORPUS) {
    const { tools, diagnostics } = await readWithToolpack(item, options.cwd);
    if (item.kind === 'module') {
      const entry = path.join(itemRoot(item), item.entry as string);
      const commands = facts.commands.filter((c) => c.module === entry);
      outcomes.push({ item, ...compareModule(item, commands, tools, diagnostics) });
    } else {
      const scripts = new Set(listScripts(item));
      const commands = facts.commands.filter((c) => c.kind === 'script' && scripts.has(c.file));
      outcomes.push({ item, ...compareScripts(item, commands, tools, diagnostics) });
    }
  }
  return outcomes;
}

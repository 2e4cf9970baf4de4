import type { DiscoveredTool, JsonSchema, ToolpackErrorCode } from '@toolpack/core';
import { convertDotNetPattern } from '../powershell-reader/dotnet-regex.ts';
import type { SourceResult } from '../types.ts';

/** What the engine enforces for one parameter (parity-collect.ps1's `validation`): every attribute of each kind. */
export interface PwshValidation {
  /** ValidateSet's values, or `computed` when a generator supplies them. */
  sets: Array<{ values: string[] | 'computed'; ignoreCase: boolean }>;
  ranges: Array<{ min: unknown; max: unknown; kind: string | null }>;
  patterns: Array<{ regex: string; options: string }>;
  lengths: Array<{ min: number; max: number }>;
  counts: Array<{ min: number; max: number }>;
  /** ValidateNotNullOrEmpty or ValidateNotNullOrWhiteSpace: '' and @() are refused too. */
  notEmpty: boolean;
}

/** What parity-collect.ps1 writes for one script or exported function. */
export interface PwshCommand {
  kind: 'script' | 'function' | 'module';
  file: string;
  module: string | null;
  name: string;
  loadError?: string;
  hasHelp?: boolean;
  synopsis?: string;
  description?: string;
  notes?: string;
  parameterSets?: string[];
  /** `(Get-Command X).ParameterSets`, common parameters left out. */
  sets?: Array<{
    name: string;
    isDefault: boolean;
    parameters: Array<{ name: string; mandatory: boolean }>;
  }>;
  parameters?: Array<{
    name: string;
    type: string;
    /** Mandatory in at least one set. */
    mandatory: boolean;
    /** The sets its `[Parameter()]` attributes name, `__AllParameterSets` for none. */
    setNames?: string[];
    description: string;
    /** Get-Help's `defaultValue` text. */
    helpDefault: string | null;
    default: {
      hasDefault: boolean;
      constant: boolean;
      value: unknown;
      text: string | null;
      /** A string constant of a number parameter as the engine converts it (`'10'` → 10). */
      bound?: unknown;
    };
    validation: PwshValidation;
  }>;
}

/** Toolpack's reading of one command: the source's result and the tool, when there is one. */
export interface OurCommand {
  result: SourceResult;
  tool?: DiscoveredTool;
}

/**
 * Refusal codes PowerShell's view cannot confirm or deny, so they are not differences:
 * hints are Toolpack's own reading of `.NOTES`, and a type no JSON value can carry is
 * Toolpack's limit, not a reading of the script.
 */
const TOOLPACK_ONLY_REFUSALS = new Set<ToolpackErrorCode>([
  'E_PARAMETER_TYPE',
  'E_CONFLICTING_HINTS',
  'E_HINT_VALUE',
]);

/**
 * Refusals that say what PowerShell's failure to load a command says: a syntax error, a
 * parameter declared twice (PowerShell's parser error "Duplicate parameter"), a parameter named
 * like a common parameter ("defined multiple times"), a parameter declared twice in one set
 * ("declared in parameter-set ... multiple times"), a class named as a type literal where
 * PowerShell cannot resolve it ("Unable to find type").
 */
const UNLOADABLE = new Set<ToolpackErrorCode>([
  'E_PARSE',
  'E_PARAMETERS',
  'E_COMMON_PARAMETER',
  'E_PARAMETER_SETS',
  'E_UNRESOLVED_TYPE',
]);

/**
 * Intended deviation (src/powershell-reader/README.md, "Defaults"): a static property of a .NET type
 * (`[int]::MaxValue`) is a constant for Toolpack; PowerShell's SafeGetValue refuses any member
 * access, so it reports no constant.
 */
const STATIC_MEMBER_DEFAULT = /^\[[\w.]+\]::\w+$/;

function normalizeText(text: string | undefined): string {
  return (text ?? '').replace(/\s+/g, ' ').trim();
}

const SWITCH = 'System.Management.Automation.SwitchParameter';

/** The JSON type Toolpack should give a .NET parameter type; undefined for untyped (`System.Object`). */
function expectedType(fullName: string): string | undefined {
  if (fullName === 'System.Object') return undefined;
  const nullable = /^System\.Nullable`1\[\[([^,\]]+)/.exec(fullName);
  if (nullable !== null) return expectedType(nullable[1] as string);
  if (
    fullName.endsWith('[]') ||
    fullName === 'System.Array' ||
    /^System\.Collections\.(Generic\.(List|HashSet)`1|ArrayList)/.test(fullName)
  )
    return 'array';
  if (/^System\.(U?Int(16|32|64)|S?Byte|Numerics\.BigInteger)$/.test(fullName)) return 'integer';
  if (/^System\.(Double|Single|Decimal)$/.test(fullName)) return 'number';
  if (fullName === 'System.Boolean' || fullName === SWITCH) return 'boolean';
  if (
    /^System\.(Collections\.(Hashtable|IDictionary|Specialized\.OrderedDictionary)|Management\.Automation\.PS(Custom)?Object)$/.test(
      fullName,
    )
  )
    return 'object';
  return 'string';
}

/** The element type name of an array or generic list type; undefined for other types. */
function elementTypeName(fullName: string): string | undefined {
  if (fullName.endsWith('[]')) return fullName.slice(0, -2);
  return /^System\.Collections\.Generic\.(?:List|HashSet)`1\[\[([^,\]]+)/.exec(fullName)?.[1];
}

/** PowerShell's constant (as SafeGetValue gives it) in the JSON type Toolpack uses. */
function coerceDefault(value: unknown, schema: JsonSchema): unknown {
  if (schema.type === 'array') {
    const items = Array.isArray(value) ? value : [value];
    return items.map((item) => coerceDefault(item, (schema.items as JsonSchema | undefined) ?? {}));
  }
  if (schema.type === 'string' && typeof value === 'boolean') return value ? 'True' : 'False';
  if (schema.type === 'string' && typeof value === 'number') return String(value);
  if (schema.type === 'boolean' && typeof value === 'number') return value !== 0;
  return value;
}

/** JSON with every object's keys sorted, so two values compare by content. */
export function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v !== null && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(
          Object.entries(v as Record<string, unknown>).sort(([a], [b]) => a.localeCompare(b)),
        )
      : v,
  );
}

export function errorCodes(result: SourceResult, name?: string): ToolpackErrorCode[] {
  return result.diagnostics
    .filter(
      (d) =>
        d.severity === 'error' &&
        (name === undefined ||
          // A module-level summary naming its exports, never one function's own reason.
          (d.message.includes(name) && d.code !== 'E_MODULE_NO_TOOLS')),
    )
    .map((d) => d.code);
}

/** Whether Toolpack said, with a diagnostic naming `$name`, that it left an attribute out. */
function reportedIgnored(result: SourceResult, name: string, attribute: RegExp): boolean {
  return result.diagnostics.some(
    (d) =>
      d.code === 'W_VALIDATION_IGNORED' &&
      d.message.includes(`$${name} `) &&
      attribute.test(d.message),
  );
}

/** The bounds a .NET integer type puts on its values, which the schema keeps beside any range. */
const TYPE_BOUNDS: Record<string, Record<string, number>> = {
  'System.Byte': { minimum: 0, maximum: 255 },
  'System.SByte': { minimum: -128, maximum: 127 },
  'System.Int16': { minimum: -32768, maximum: 32767 },
  'System.UInt16': { minimum: 0, maximum: 65535 },
  'System.UInt32': { minimum: 0, maximum: 4294967295 },
  'System.UInt64': { minimum: 0 },
  // A [char] is one character, whatever ValidateLength says.
  'System.Char': { minLength: 1, maxLength: 1 },
};

/**
 * The schema bounds every check PowerShell makes adds up to: the intersection of all ranges
 * (and the type's own bounds), of all lengths, of all counts.
 */
function expectedBounds(typeName: string, validation: PwshValidation): Record<string, number> {
  const bounds: Record<string, number> = {};
  const narrow = (key: string, value: number, pick: (a: number, b: number) => number) => {
    bounds[key] = bounds[key] === undefined ? value : pick(bounds[key], value);
  };
  for (const [key, value] of Object.entries(TYPE_BOUNDS[typeName] ?? {})) {
    const constrained = key.endsWith('Length') ? validation.lengths : validation.ranges;
    if (constrained.length > 0) bounds[key] = value;
  }
  for (const { min, max, kind } of validation.ranges) {
    if (kind === 'Positive') bounds.exclusiveMinimum = 0;
    else if (kind === 'NonNegative') narrow('minimum', 0, Math.max);
    else if (kind === 'Negative') bounds.exclusiveMaximum = 0;
    else if (kind === 'NonPositive') narrow('maximum', 0, Math.min);
    else {
      if (typeof min === 'number') narrow('minimum', min, Math.max);
      if (typeof max === 'number') narrow('maximum', max, Math.min);
    }
  }
  for (const { min, max } of validation.lengths) {
    narrow('minLength', min, Math.max);
    narrow('maxLength', max, Math.min);
  }
  for (const { min, max } of validation.counts) {
    narrow('minItems', min, Math.max);
    narrow('maxItems', max, Math.min);
  }
  return bounds;
}

function compareValidation(
  where: string,
  parameter: { name: string; type: string; validation: PwshValidation },
  schema: JsonSchema,
  result: SourceResult,
): string[] {
  const mismatches: string[] = [];
  const { name, validation } = parameter;
  const isArray = schema.type === 'array';
  // Element-wise attributes apply to each item of a collection, as PowerShell applies them.
  const element = (isArray ? (schema.items as JsonSchema | undefined) : schema) ?? {};
  const ignored = (attribute: string) =>
    reportedIgnored(result, name, new RegExp(`\\[${attribute}\\(`, 'i'));

  const constant = validation.sets.filter((set) => Array.isArray(set.values));
  if (constant.length > 0) {
    const ours = element.enum as unknown[] | undefined;
    // Every set PowerShell checks narrows the allowed values: the schema lists their intersection.
    const expected = (constant.map((set) => set.values) as string[][])
      .reduce((kept, values) => kept.filter((value) => values.includes(value)))
      .filter((value, index, all) => all.indexOf(value) === index)
      .sort();
    if (expected.length === 0) {
      // Sets with nothing in common: no value passes; Toolpack keeps one and says so.
      if (!ignored('ValidateSet'))
        mismatches.push(`${where}: ValidateSets with no common value, not reported`);
    } else if (ours === undefined) {
      if (!ignored('ValidateSet'))
        mismatches.push(`${where}: ValidateSet(${expected.join(', ')}) is not in the schema`);
    } else {
      const actual = [...new Set(ours.map(String))].sort();
      if (canonical(actual) !== canonical(expected))
        mismatches.push(
          `${where}: enum ${canonical(actual)} differs from ValidateSet ${canonical(expected)}`,
        );
    }
  } else if (validation.sets.length > 0 && element.enum !== undefined) {
    mismatches.push(`${where}: the schema has an enum for a computed ValidateSet`);
  }

  const elementType =
    elementTypeName(parameter.type) ??
    parameter.type.replace(/^System\.Nullable`1\[\[([^,\]]+).*$/, '$1');
  const bounds = expectedBounds(elementType, validation);
  const checks: Array<[string, readonly string[], JsonSchema]> = [
    ['ValidateRange', ['minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum'], element],
    ['ValidateLength', ['minLength', 'maxLength'], element],
    ['ValidateCount', ['minItems', 'maxItems'], schema],
  ];
  for (const [attribute, keys, target] of checks) {
    const expected = keys.filter((key) => bounds[key] !== undefined);
    if (expected.length === 0) continue;
    if (keys.every((key) => target[key] === undefined) && ignored(attribute)) continue;
    for (const key of expected) {
      let value = bounds[key] as number;
      // ValidateNotNullOrEmpty refuses '' and @() as well: the schema keeps the stricter bound.
      if ((key === 'minLength' || key === 'minItems') && validation.notEmpty)
        value = Math.max(value, 1);
      if (target[key] !== value)
        mismatches.push(
          `${where}: ${key} ${String(target[key])} differs from ${attribute}'s ${value}`,
        );
    }
  }

  if (validation.patterns.length > 0) {
    // PowerShell checks every pattern; JSON Schema has one per schema: Toolpack keeps one it can
    // convert and must say that it left the others out.
    const converted = validation.patterns.map(
      (pattern) =>
        convertDotNetPattern(pattern.regex, { ignoreCase: /IgnoreCase/.test(pattern.options) })
          .pattern,
    );
    const listed = validation.patterns.map((pattern) => JSON.stringify(pattern.regex)).join(', ');
    if (element.pattern === undefined) {
      if (!ignored('ValidatePattern'))
        mismatches.push(`${where}: ValidatePattern(${listed}) is not in the schema`);
    } else if (!converted.includes(element.pattern as string)) {
      mismatches.push(
        `${where}: pattern ${JSON.stringify(element.pattern)} is not the conversion of ValidatePattern(${listed}): ${JSON.stringify(converted)}`,
      );
    } else if (validation.patterns.length > 1 && !ignored('ValidatePattern')) {
      mismatches.push(
        `${where}: ${validation.patterns.length - 1} more ValidatePattern left out without a warning`,
      );
    }
  }
  return mismatches;
}

/** Every way Toolpack's reading of one command differs from PowerShell's. */
export function compareCommand(command: PwshCommand, ours: OurCommand, label: string): string[] {
  const mismatches: string[] = [];
  const codes =
    ours.tool === undefined
      ? errorCodes(ours.result, command.kind === 'function' ? command.name : undefined)
      : [];
  if (command.loadError !== undefined) {
    if (!codes.some((code) => UNLOADABLE.has(code)))
      mismatches.push(
        `${label}: PowerShell cannot load it (${command.loadError}) but Toolpack did not refuse it as broken (${[...UNLOADABLE].join(', ')})`,
      );
    return mismatches;
  }
  const sets = command.parameterSets ?? [];
  const noDescription =
    command.hasHelp !== true ||
    (normalizeText(command.synopsis) === '' && normalizeText(command.description) === '');
  if (noDescription && !codes.includes('E_NO_DESCRIPTION'))
    mismatches.push(`${label}: PowerShell finds no help, Toolpack did not report E_NO_DESCRIPTION`);
  if (!noDescription && codes.includes('E_NO_DESCRIPTION'))
    mismatches.push(`${label}: PowerShell finds help, Toolpack reported E_NO_DESCRIPTION`);
  const undocumented = (command.parameters ?? [])
    .filter((p) => normalizeText(p.description) === '')
    .map((p) => p.name);
  for (const code of codes) {
    if (code === 'E_NO_DESCRIPTION' || TOOLPACK_ONLY_REFUSALS.has(code)) continue;
    if (code === 'E_PARAMETER_NO_DESCRIPTION' && undocumented.length > 0) continue;
    mismatches.push(
      `${label}: Toolpack refused it with ${code}, which PowerShell's view does not explain`,
    );
  }
  const tool = ours.tool;
  if (tool === undefined) return mismatches;

  const expectedDescription = normalizeText(
    [command.synopsis, command.description].filter((part) => normalizeText(part) !== '').join(' '),
  );
  // Help whose description opens with the synopsis's sentence is served without the repeat.
  const synopsisSentence = normalizeText(command.synopsis).replace(/[.!?]+$/, '');
  const repeated =
    synopsisSentence !== '' &&
    normalizeText(command.description).startsWith(synopsisSentence) &&
    normalizeText(tool.description) === normalizeText(command.description);
  if (normalizeText(tool.description) !== expectedDescription && !repeated) {
    mismatches.push(
      `${label}: description ${JSON.stringify(tool.description)} differs from Get-Help's ${JSON.stringify(expectedDescription)}`,
    );
  }
  const properties = (tool.inputSchema.properties ?? {}) as Record<string, JsonSchema>;
  const required = new Set(tool.inputSchema.required ?? []);
  const omitted = new Set([
    ...ours.result.diagnostics
      .filter((d) => d.code === 'W_PARAMETER_TYPE')
      .map((d) => /\$(\S+) of/.exec(d.message)?.[1]),
    // [pscredential]/[securestring]: never a client's to send; discovery binds them from the
    // project's credentials: or refuses what needs them (bind-credentials.ts).
    ...(tool.credentialParameters ?? []).map((parameter) => parameter.name),
  ]);
  const everywhere = readAllSetsAttributes(command).mandatoryEverywhere;
  for (const parameter of command.parameters ?? []) {
    const where = `${label} $${parameter.name}`;
    const schema = properties[parameter.name];
    if (schema === undefined) {
      if (!omitted.has(parameter.name)) mismatches.push(`${where}: missing from the input schema`);
      continue;
    }
    // With several sets, the top-level `required` holds what every set requires.
    const mandatory =
      sets.length > 1
        ? everywhere.has(parameter.name) ||
          (command.sets ?? []).every((set) =>
            set.parameters.some((p) => p.name === parameter.name && p.mandatory),
          )
        : parameter.mandatory;
    if (required.has(parameter.name) !== mandatory)
      mismatches.push(
        `${where}: required is ${required.has(parameter.name)}, PowerShell says mandatory ${mandatory}${sets.length > 1 ? ' in every set' : ''}`,
      );
    const type = expectedType(parameter.type);
    if (type !== undefined && schema.type !== type)
      mismatches.push(
        `${where}: type ${String(schema.type)} for [${parameter.type}], expected ${type}`,
      );
    const elementName = elementTypeName(parameter.type);
    const itemType = elementName === undefined ? undefined : expectedType(elementName);
    const items = schema.items as JsonSchema | undefined;
    if (schema.type === 'array' && itemType !== undefined && items?.type !== itemType)
      mismatches.push(
        `${where}: items type ${String(items?.type)} for [${parameter.type}], expected ${itemType}`,
      );
    if (
      normalizeText(parameter.description) !== '' &&
      normalizeText(schema.description as string | undefined) !==
        normalizeText(parameter.description)
    ) {
      mismatches.push(
        `${where}: description ${JSON.stringify(schema.description)} differs from Get-Help's ${JSON.stringify(parameter.description)}`,
      );
    }
    mismatches.push(...compareDefault(where, parameter, schema, ours.result));
    mismatches.push(...compareValidation(where, parameter, schema, ours.result));
  }
  for (const name of Object.keys(properties)) {
    if (!(command.parameters ?? []).some((p) => p.name === name))
      mismatches.push(`${label} $${name}: not a parameter for PowerShell`);
  }
  mismatches.push(...compareParameterSets(command, tool, omitted, label));
  return mismatches;
}

/**
 * Parameters whose attributes name a set and also none: where the engine binds them (only their
 * named sets) and whether it demands them in every set (their attribute naming none is
 * mandatory: Get-Command calls them mandatory in a set they do not name).
 */
function readAllSetsAttributes(command: PwshCommand): {
  bindsOnlyNamed: Set<string>;
  namedSets: (p: { name: string }) => string[];
  mandatoryEverywhere: Set<string>;
} {
  const engineSets = command.sets ?? [];
  const bindsOnlyNamed = new Set(
    (command.parameters ?? [])
      .filter(
        (p) =>
          (p.setNames ?? []).includes('__AllParameterSets') &&
          (p.setNames ?? []).some((name) => name !== '__AllParameterSets'),
      )
      .map((p) => p.name),
  );
  const namedSets = (p: { name: string }) =>
    (command.parameters ?? []).find((q) => q.name === p.name)?.setNames ?? [];
  // The engine then demands it in its named sets too (Get-Command says optional there) and in
  // the others (where giving it is refused).
  const mandatoryEverywhere = new Set(
    [...bindsOnlyNamed].filter((name) =>
      engineSets.some(
        (set) =>
          !namedSets({ name }).includes(set.name) &&
          set.parameters.some((p) => p.name === name && p.mandatory),
      ),
    ),
  );
  return { bindsOnlyNamed, namedSets, mandatoryEverywhere };
}

/**
 * Toolpack's parameterSets against Get-Command's, set by set: the names (case-sensitive), which
 * is the default (described first), each set's parameters and which of them are mandatory.
 * Intended deviation (parameter-sets.ts): a parameter whose attributes name a set and also
 * none (or `__AllParameterSets`) is listed by Get-Command in every set, but the engine binds it
 * only in the sets it names, and demands it in every set when the attribute naming none is
 * mandatory; Toolpack's sets hold what a call can bind (parameter-sets.test.ts checks the
 * binding against the engine).
 */
function compareParameterSets(
  command: PwshCommand,
  tool: DiscoveredTool,
  omitted: ReadonlySet<string | undefined>,
  label: string,
): string[] {
  const engineSets = command.sets ?? [];
  const ours = tool.parameterSets;
  if (engineSets.length <= 1)
    return ours === undefined
      ? []
      : [`${label}: PowerShell sees one parameter set, Toolpack has ${ours.length}`];
  if (ours === undefined)
    return [`${label}: PowerShell sees ${engineSets.length} parameter sets, Toolpack has none`];
  const mismatches: string[] = [];
  const names = (sets: ReadonlyArray<{ name: string }>) => sets.map((set) => set.name).sort();
  if (canonical(names(ours)) !== canonical(names(engineSets)))
    mismatches.push(
      `${label}: parameter sets ${canonical(names(ours))} differ from PowerShell's ${canonical(names(engineSets))}`,
    );
  const engineDefault = engineSets.find((set) => set.isDefault)?.name;
  const ourDefault = ours.find((set) => set.isDefault)?.name;
  if (engineDefault !== ourDefault)
    mismatches.push(
      `${label}: default set ${ourDefault} differs from PowerShell's ${engineDefault}`,
    );
  if (ourDefault !== undefined && ours[0]?.name !== ourDefault)
    mismatches.push(`${label}: the default set ${ourDefault} is not described first`);
  const branches = (tool.inputSchema.oneOf as JsonSchema[] | undefined) ?? [];
  if (canonical(branches.map((branch) => branch.title)) !== canonical(ours.map((set) => set.name)))
    mismatches.push(`${label}: the oneOf branches do not follow parameterSets`);
  const { bindsOnlyNamed, namedSets, mandatoryEverywhere } = readAllSetsAttributes(command);
  for (const engineSet of engineSets) {
    const set = ours.find((candidate) => candidate.name === engineSet.name);
    if (set === undefined) continue;
    const members = engineSet.parameters.filter((p) => !omitted.has(p.name));
    const expected = members
      .filter((p) => !bindsOnlyNamed.has(p.name) || namedSets(p).includes(engineSet.name))
      .map((p) => p.name)
      .sort();
    // A set that needs an unrepresentable parameter keeps requiring it (it is never bound).
    const expectedRequired = engineSet.parameters
      .filter((p) => !omitted.has(p.name) || set.required.includes(p.name))
      .filter((p) => p.mandatory || mandatoryEverywhere.has(p.name))
      .map((p) => p.name)
      .sort();
    if (canonical([...set.parameters].sort()) !== canonical(expected))
      mismatches.push(
        `${label} set ${set.name}: parameters ${canonical([...set.parameters].sort())} differ from PowerShell's ${canonical(expected)}`,
      );
    if (canonical([...set.required].sort()) !== canonical(expectedRequired))
      mismatches.push(
        `${label} set ${set.name}: mandatory ${canonical([...set.required].sort())} differ from PowerShell's ${canonical(expectedRequired)}`,
      );
  }
  return mismatches;
}

function compareDefault(
  where: string,
  parameter: NonNullable<PwshCommand['parameters']>[number],
  schema: JsonSchema,
  result: SourceResult,
): string[] {
  const declared = parameter.default;
  const dropped = result.diagnostics.some(
    (d) =>
      (d.code === 'W_DEFAULT_INVALID' || d.code === 'I_DEFAULT_DROPPED') &&
      d.message.includes(`$${parameter.name} `),
  );
  if (parameter.mandatory) {
    return schema.default === undefined
      ? []
      : [`${where}: a mandatory parameter has a schema default`];
  }
  // A switch left out binds as $false (Get-Help says so too): that is its default.
  if (parameter.type === SWITCH && !declared.hasDefault) {
    return schema.default === false
      ? []
      : [`${where}: a switch left out is $false, the schema says ${canonical(schema.default)}`];
  }
  if (declared.constant && declared.value !== null && !dropped) {
    if (schema.default === undefined)
      return [
        `${where}: PowerShell has the constant default ${declared.text}, the schema has none`,
      ];
    const engine = 'bound' in declared ? declared.bound : declared.value;
    if (canonical(schema.default) !== canonical(coerceDefault(engine, schema)))
      return [
        `${where}: default ${canonical(schema.default)} differs from PowerShell's ${canonical(engine)}`,
      ];
    return [];
  }
  if (
    !declared.constant &&
    schema.default !== undefined &&
    !STATIC_MEMBER_DEFAULT.test(declared.text ?? '')
  )
    return [
      `${where}: ${declared.text} is not constant for PowerShell, yet the schema has a default`,
    ];
  if (!declared.hasDefault && schema.default !== undefined)
    return [`${where}: the schema invents a default`];
  return [];
}

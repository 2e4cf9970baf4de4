import type { CredentialType, ValueSpec } from '@toolpack/core';
import { convertDotNetPattern } from './dotnet-regex.ts';
import { DOTNET_ENUMS } from './dotnet-enums/dotnet-enums.ts';
import type { DotNetEnum } from './dotnet-enums/dotnet-enums.ts';

/** How a PowerShell parameter type is described in JSON Schema. */
export interface PowerShellTypeMapping {
  /**
   * `known`: a direct equivalent. `untyped`: no type constraint (or `[object]`).
   * `as-string`: a .NET type PowerShell converts from a string (`[FileInfo]`, `[version]`).
   * `unsupported`: nothing a JSON client could send (`[scriptblock]`, `[pscredential]`).
   */
  kind: 'known' | 'untyped' | 'as-string' | 'unsupported';
  spec?: ValueSpec;
}

export const STRING: ValueSpec = { type: 'string' };
export const BOOLEAN: ValueSpec = { type: 'boolean' };
export const INTEGER: ValueSpec = { type: 'integer' };
export const NUMBER: ValueSpec = { type: 'number' };
export const OBJECT: ValueSpec = { type: 'object' };
export const ARRAY: ValueSpec = { type: 'array' };

const SCALAR_TYPES: Record<string, ValueSpec> = {
  string: STRING,
  char: { type: 'string', minLength: 1, maxLength: 1 },
  bool: BOOLEAN,
  boolean: BOOLEAN,
  switch: BOOLEAN,
  switchparameter: BOOLEAN,
  'management.automation.switchparameter': BOOLEAN,
  int: INTEGER,
  int32: INTEGER,
  long: INTEGER,
  int64: INTEGER,
  bigint: INTEGER,
  'numerics.biginteger': INTEGER,
  short: { type: 'integer', minimum: -32768, maximum: 32767 },
  int16: { type: 'integer', minimum: -32768, maximum: 32767 },
  sbyte: { type: 'integer', minimum: -128, maximum: 127 },
  byte: { type: 'integer', minimum: 0, maximum: 255 },
  ushort: { type: 'integer', minimum: 0, maximum: 65535 },
  uint16: { type: 'integer', minimum: 0, maximum: 65535 },
  uint: { type: 'integer', minimum: 0, maximum: 4294967295 },
  uint32: { type: 'integer', minimum: 0, maximum: 4294967295 },
  ulong: { type: 'integer', minimum: 0 },
  uint64: { type: 'integer', minimum: 0 },
  double: NUMBER,
  single: NUMBER,
  float: NUMBER,
  decimal: NUMBER,
  datetime: { type: 'string', format: 'date-time' },
  datetimeoffset: { type: 'string', format: 'date-time' },
  guid: { type: 'string', format: 'uuid' },
  uri: { type: 'string', format: 'uri' },
  mailaddress: { type: 'string', format: 'email' },
  'net.mail.mailaddress': { type: 'string', format: 'email' },
  hashtable: OBJECT,
  'collections.hashtable': OBJECT,
  ordered: OBJECT,
  'collections.specialized.ordereddictionary': OBJECT,
  'collections.idictionary': OBJECT,
  pscustomobject: OBJECT,
  'management.automation.pscustomobject': OBJECT,
  psobject: OBJECT,
  'management.automation.psobject': OBJECT,
  array: ARRAY,
  'collections.arraylist': ARRAY,
  'collections.ilist': ARRAY,
  'collections.icollection': ARRAY,
  'collections.ienumerable': ARRAY,
};

/** .NET types PowerShell builds from a string argument: described as strings, without a note. */
/** What mapPowerShellType knows besides the type name. */
export interface MapTypeOptions {
  /** Enums the command's own file defines, by lower-cased name. */
  enums?: ReadonlyMap<string, DotNetEnum>;
}

const STRING_CONVERTIBLE = new Set([
  'timespan',
  'version',
  'semver',
  'management.automation.semanticversion',
  'ipaddress',
  'net.ipaddress',
  'io.fileinfo',
  'io.directoryinfo',
  'io.filesysteminfo',
  'regex',
  'text.regularexpressions.regex',
  'cultureinfo',
  'globalization.cultureinfo',
  'text.encoding',
  'consolecolor',
]);

/**
 * Types PowerShell binds from no string, number, boolean, array or hashtable: live objects of
 * a session. map-powershell-type.test.ts checks each against the real pwsh.
 */
const UNSUPPORTED_TYPES = new Set([
  'scriptblock',
  'management.automation.scriptblock',
  'pscredential',
  'management.automation.pscredential',
  'securestring',
  'security.securestring',
  'psmoduleinfo',
  'management.automation.psmoduleinfo',
  'management.automation.runspaces.runspace',
  'management.automation.runspaces.pssession',
  'management.automation.powershell',
  'powershell',
  'management.automation.commandinfo',
  'management.automation.functioninfo',
  'management.automation.cmdletinfo',
  'management.automation.job',
  'management.automation.providerinfo',
  'management.automation.psdriveinfo',
  'management.automation.errorrecord',
  'management.automation.psmethod',
  'diagnostics.process',
  'reflection.assembly',
  'io.stream',
  'threading.cancellationtoken',
  'delegate',
  'action',
  'func',
]);

const LIST_GENERICS = new Set([
  'list',
  'ilist',
  'icollection',
  'ienumerable',
  'ireadonlylist',
  'ireadonlycollection',
  'objectmodel.collection',
  'collection',
  'hashset',
  'sortedset',
  'queue',
  'stack',
]);
const DICTIONARY_GENERICS = new Set([
  'dictionary',
  'idictionary',
  'sorteddictionary',
  'ireadonlydictionary',
  'concurrent.concurrentdictionary',
]);

function normalizeTypeName(name: string): string {
  return name
    .toLowerCase()
    .replace(/^system\./, '')
    .replace(/^collections\.generic\./, '');
}

/**
 * The arguments of a generic type as written between its brackets (`string, List[int]` of
 * `Dictionary[string, List[int]]`), split at the top-level commas only. The one reader of
 * that syntax: the type mapping and the unresolved-type check both use it.
 */
export function splitTypeArguments(inner: string): string[] {
  const args: string[] = [];
  let depth = 0;
  let current = '';
  for (const ch of inner) {
    if (ch === '[') depth += 1;
    if (ch === ']') depth -= 1;
    if (ch === ',' && depth === 0) {
      args.push(current);
      current = '';
    } else {
      current += ch;
    }
  }
  args.push(current);
  return args;
}

/** Splits `List[string]` into `list` and `['string']`, `string[][]` into `string` and rank 2. */
function parseTypeName(text: string): { name: string; args: string[]; rank: number } {
  let name = text.replace(/\s+/g, '');
  let rank = 0;
  while (/\[,*\]$/.test(name)) {
    name = name.replace(/\[,*\]$/, '');
    rank += 1;
  }
  let args: string[] = [];
  if (name.endsWith(']')) {
    const open = name.indexOf('[');
    if (open > 0) {
      args = splitTypeArguments(name.slice(open + 1, -1));
      name = name.slice(0, open);
    }
  }
  // `[[System.String, mscorlib]]` style arguments: keep the type name only.
  const cleaned = args.map((arg) => arg.replace(/^\[(.*)\]$/, '$1').split(',')[0] as string);
  return { name: name.replace(/`\d+$/, ''), args: cleaned, rank };
}

const MAX_TYPE_DEPTH = 8;

/** Maps a PowerShell type constraint (as written, `string[]`) to its JSON Schema description. */
export function mapPowerShellType(
  typeName: string | undefined,
  options: MapTypeOptions = {},
  depth = 0,
): PowerShellTypeMapping {
  if (typeName === undefined || typeName === '' || depth > MAX_TYPE_DEPTH)
    return { kind: 'untyped' };
  const parsed = parseTypeName(typeName);
  if (parsed.rank > 0) {
    const elementName =
      parsed.args.length > 0 ? `${parsed.name}[${parsed.args.join(',')}]` : parsed.name;
    const element = mapPowerShellType(
      elementName + '[]'.repeat(parsed.rank - 1),
      options,
      depth + 1,
    );
    if (element.kind === 'unsupported') return element;
    const spec: ValueSpec = { type: 'array' };
    if (element.spec !== undefined && element.kind !== 'untyped') spec.items = element.spec;
    return { kind: element.kind === 'as-string' ? 'as-string' : 'known', spec };
  }
  const name = normalizeTypeName(parsed.name);
  if (parsed.args.length > 0) {
    if (name === 'nullable') return mapPowerShellType(parsed.args[0], options, depth + 1);
    if (LIST_GENERICS.has(name)) {
      const element = mapPowerShellType(parsed.args[0], options, depth + 1);
      if (element.kind === 'unsupported') return element;
      const spec: ValueSpec = { type: 'array' };
      if (element.spec !== undefined && element.kind !== 'untyped') spec.items = element.spec;
      if (name === 'hashset' || name === 'sortedset') spec.uniqueItems = true;
      return { kind: 'known', spec };
    }
    if (DICTIONARY_GENERICS.has(name) || name === 'collections.specialized.ordereddictionary')
      return { kind: 'known', spec: OBJECT };
    if (UNSUPPORTED_TYPES.has(name)) return { kind: 'unsupported' };
    return { kind: 'as-string', spec: STRING };
  }
  if (name === 'object') return { kind: 'untyped' };
  const scalar = SCALAR_TYPES[name];
  if (scalar !== undefined) return { kind: 'known', spec: scalar };
  if (UNSUPPORTED_TYPES.has(name)) return { kind: 'unsupported' };
  const enumType = options.enums?.get(parsed.name.toLowerCase()) ?? DOTNET_ENUMS[name];
  if (enumType !== undefined) return { kind: 'known', spec: describeEnum(enumType) };
  return { kind: STRING_CONVERTIBLE.has(name) ? 'known' : 'as-string', spec: STRING };
}

/**
 * An enum's names, matched in any case as PowerShell converts a string to an enum. A flags
 * enum binds a comma list of names (`'ReadOnly, Hidden'`), so it is a pattern of such lists.
 */
function describeEnum(enumType: DotNetEnum): ValueSpec {
  if (!enumType.flags) return { type: 'string', enum: [...enumType.names], enumIgnoresCase: true };
  const one = `(?:${enumType.names.join('|')})`;
  const pattern = convertDotNetPattern(`^\\s*${one}(?:\\s*,\\s*${one})*\\s*$`, {
    ignoreCase: true,
  }).pattern;
  return pattern === undefined ? STRING : { type: 'string', pattern };
}

const CREDENTIAL_TYPE_NAMES: Record<string, CredentialType> = {
  pscredential: 'pscredential',
  'management.automation.pscredential': 'pscredential',
  securestring: 'securestring',
  'security.securestring': 'securestring',
};

/**
 * `pscredential` or `securestring` for a parameter type the server can fill in from secrets
 * (toolpack.yaml `credentials:`), undefined for any other (arrays of them included).
 */
export function findCredentialType(typeName: string | undefined): CredentialType | undefined {
  if (typeName === undefined) return undefined;
  const parsed = parseTypeName(typeName.replace(/\s+/g, ''));
  if (parsed.rank > 0 || parsed.args.length > 0) return undefined;
  return CREDENTIAL_TYPE_NAMES[normalizeTypeName(parsed.name)];
}

const SWITCH_TYPES = new Set([
  'switch',
  'switchparameter',
  'management.automation.switchparameter',
]);

/** True for `[switch]` in any of its spellings. */
export function isSwitchType(typeName: string | undefined): boolean {
  return (
    typeName !== undefined && SWITCH_TYPES.has(normalizeTypeName(typeName.replace(/\s+/g, '')))
  );
}

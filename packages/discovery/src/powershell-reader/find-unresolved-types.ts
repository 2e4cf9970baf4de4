import { createDiagnostic, findClosestName } from '@toolpack/core';
import type { Diagnostic } from '@toolpack/core';
import {
  KNOWN_TYPE_NAMESPACES,
  KNOWN_TYPES,
  TYPE_ACCELERATORS,
} from './known-types/known-types.ts';
import { splitTypeArguments } from './map-powershell-type.ts';
import type { Token } from './tokenizer.ts';
import type { PowerShellDocument, PsParameter } from './reader.ts';

const ACCELERATORS = new Map(TYPE_ACCELERATORS.map((name) => [name.toLowerCase(), name]));
const KNOWN = new Map(KNOWN_TYPES.map((name) => [name.toLowerCase(), name]));
const COVERED_NAMESPACES = new Set(KNOWN_TYPE_NAMESPACES.map((name) => name.toLowerCase()));

/** What of a file decides which type names its param blocks resolve. */
export interface TypeContext {
  /** `using namespace X`: an unqualified name is looked up in X as well. */
  usingNamespaces: string[];
  /**
   * It brings types of its own the table cannot know: `Add-Type`, `using assembly`/`using
   * module`, `#Requires -Modules`/`-Assembly`, `Import-Module`, an assembly load.
   */
  loadsTypes: boolean;
}

/** The `using namespace` names and type-loading constructs of one file, from its tokens. */
export function readTypeContext(tokens: readonly Token[]): TypeContext {
  const usingNamespaces: string[] = [];
  let loadsTypes = false;
  const words = tokens.filter((token) => token.kind !== 'newline');
  for (let i = 0; i < words.length; i++) {
    const token = words[i] as Token;
    const lower = token.text.toLowerCase();
    if (token.kind === 'comment') {
      if (/^#requires\b[^\n]*-(modules?|assembly)\b/i.test(token.text)) loadsTypes = true;
      continue;
    }
    if (lower === 'add-type' || lower === 'import-module' || lower === 'ipmo') loadsTypes = true;
    if (/assembly\]::load/i.test(lower) || /^::load(from|file|withpartialname)?$/.test(lower))
      loadsTypes = true;
    if (lower === 'using') {
      const kind = words[i + 1]?.text.toLowerCase();
      const target = words[i + 2]?.text;
      if (kind === 'namespace' && target !== undefined) usingNamespaces.push(target);
      if (kind === 'assembly' || kind === 'module') loadsTypes = true;
    }
  }
  return { usingNamespaces, loadsTypes };
}

/** `List[string]` as `List` and `['string']`, `string[][]` as `string`; assembly-qualified: undefined. */
function splitTypeName(written: string): { name: string; args: string[] } | undefined {
  let text = written.replace(/\s+/g, '');
  while (/\[,*\]$/.test(text)) text = text.replace(/\[,*\]$/, '');
  const open = text.indexOf('[');
  if (open < 0) return text.includes(',') ? undefined : { name: text, args: [] };
  if (!text.endsWith(']')) return undefined;
  const args = splitTypeArguments(text.slice(open + 1, -1));
  // `[[System.String, mscorlib]]`: an assembly-qualified argument is not judged.
  if (args.some((arg) => arg.startsWith('['))) return undefined;
  return { name: text.slice(0, open), args };
}

function namespaceOf(fullName: string): string {
  const outer = fullName.split('+')[0] as string;
  const dot = outer.lastIndexOf('.');
  return dot < 0 ? '' : outer.slice(0, dot);
}

/** How one type name (no arguments, no ranks) resolves: `unknown` only where the table is complete. */
function resolveName(name: string, context: TypeContext): 'known' | 'unknown' | 'undecided' {
  const lower = name.toLowerCase().replace(/`\d+$/, '');
  if (ACCELERATORS.has(lower)) return 'known';
  // PowerShell tries the name as written, with `System.` before it, and in each used namespace.
  const primary = /^(system|microsoft)\./.test(lower) ? lower : `system.${lower}`;
  const candidates = [
    lower,
    primary,
    ...context.usingNamespaces.flatMap((namespace) => {
      const full = `${namespace.toLowerCase()}.${lower}`;
      return [full, `system.${full}`];
    }),
  ];
  if (candidates.some((candidate) => KNOWN.has(candidate))) return 'known';
  const decidable = [
    primary,
    ...context.usingNamespaces.map((namespace) => `${namespace.toLowerCase()}.${lower}`),
  ];
  return decidable.every((candidate) => COVERED_NAMESPACES.has(namespaceOf(candidate)))
    ? 'unknown'
    : 'undecided';
}

/** Every known type as a script may write it: accelerators, full names, without `System.`. */
let spellings: string[] | undefined;

/** The known type written most like `name` (two edits at most, one for short names). */
export function suggestTypeName(name: string): string | undefined {
  spellings ??= [
    ...ACCELERATORS.values(),
    ...KNOWN_TYPES.flatMap((full) =>
      full.startsWith('System.') ? [full, full.slice('System.'.length)] : [full],
    ),
  ];
  return findClosestName(name, spellings, name.length <= 4 ? 1 : 2);
}

export interface TypeResolution {
  /** The part of the type name that names no type (`strin` of `List[strin]`). */
  name: string;
  status: 'unknown' | 'undecided';
}

/**
 * The first part of a written type (`Dictionary[string, strin][]`) the engine would not find, or
 * undefined when every part resolves. `undecided`: a namespace the table does not cover.
 */
export function resolveTypeName(
  written: string,
  context: TypeContext,
  depth = 0,
): TypeResolution | undefined {
  const split = splitTypeName(written);
  if (split === undefined || depth > 8) return undefined;
  const status = resolveName(split.name, context);
  if (status !== 'known') return { name: split.name, status };
  for (const arg of split.args) {
    const inner = resolveTypeName(arg, context, depth + 1);
    if (inner !== undefined) return inner;
  }
  return undefined;
}

/** What a module as a whole adds to the types its functions' param blocks resolve. */
export interface ModuleTypeScope {
  /** A file of it, its manifest (RequiredAssemblies, RequiredModules) or a binary part loads types. */
  loadsTypes: boolean;
  /** The class and enum names of its files, lower-cased. */
  ownTypeNames: Set<string>;
}

export interface UnresolvedTypesInput {
  path: string;
  /** `the script` or `the function Get-Widget`, for messages. */
  what: string;
  document: PowerShellDocument;
  parameters: readonly PsParameter[];
  /** A module function's module; a script has only its own file. */
  module?: ModuleTypeScope;
}

/**
 * E_UNRESOLVED_TYPE for each parameter typed with a name PowerShell resolves to no type: pwsh
 * reads such a command, then every call fails with "Unable to find type [strin]". Judged only
 * where nothing of the file or module can add types and the name is in a namespace the table
 * lists completely; a name elsewhere is `undecided` and not judged (the parameter is served as
 * a string, I_PARAMETER_AS_STRING): only the engine could tell, and reading a script starts none.
 */
export function findUnresolvedTypes(input: UnresolvedTypesInput): { diagnostics: Diagnostic[] } {
  const result = { diagnostics: [] as Diagnostic[] };
  const context = readTypeContext(input.document.tokens);
  if (context.loadsTypes || input.module?.loadsTypes === true) return result;
  const own = new Set([
    ...(input.module?.ownTypeNames ?? []),
    ...input.document.classes.map((c) => c.name.toLowerCase()),
    ...input.document.enums.map((e) => e.name.toLowerCase()),
  ]);
  for (const parameter of input.parameters) {
    for (const typeName of parameter.typeNames) {
      const resolution = resolveTypeName(typeName, context);
      if (resolution === undefined || own.has(resolution.name.toLowerCase())) continue;
      if (resolution.status === 'undecided') continue;
      result.diagnostics.push(
        describeUnresolvedType({
          path: input.path,
          what: input.what,
          parameter,
          typeName: resolution.name,
          written: typeName,
        }),
      );
    }
  }
  return result;
}

/** The error for a parameter type no type answers to, with the nearest known name. */
export function describeUnresolvedType(input: {
  path: string;
  what: string;
  parameter: Pick<PsParameter, 'name' | 'line'>;
  typeName: string;
  written: string;
}): Diagnostic {
  const suggestion = suggestTypeName(input.typeName);
  const where = input.written === input.typeName ? '' : ` (in [${input.written}])`;
  return createDiagnostic(
    'error',
    'E_UNRESOLVED_TYPE',
    `Parameter $${input.parameter.name} of ${input.what} has the type [${input.typeName}]${where}, which names no type PowerShell knows: every call would fail with "Unable to find type [${input.typeName}]".`,
    { path: input.path, line: input.parameter.line },
    suggestion === undefined
      ? `Correct the type name, or load the type before the param block is bound (using assembly, #Requires -Modules, a module's RequiredAssemblies).`
      : `Did you mean [${suggestion}]? Correct the spelling.`,
  );
}

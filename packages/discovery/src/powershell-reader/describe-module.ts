import { readFile } from 'node:fs/promises';
import { basename, dirname, extname } from 'node:path';
import { ToolpackError } from '@toolpack/core';
import type { Diagnostic, DiscoveredTool } from '@toolpack/core';
import type { SourceResult } from '../types.ts';
import { findFunctionHelp } from './comment-help.ts';
import type { HelpSearch } from './comment-help.ts';
import { checkModuleYield } from './check-module-yield.ts';
import { describeCommand } from './describe-command.ts';
import type { EngineFacts } from './engine-exports.ts';
import { ExternalHelpFinder } from './find-external-help.ts';
import { createFileDiagnostic } from './file-diagnostic.ts';
import { parsePowerShellManifest } from './parse-module-manifest.ts';
import type { PowerShellManifest } from './parse-module-manifest.ts';
import { mapPowerShellType } from './map-powershell-type.ts';
import { ModuleLoader, findModuleFile } from './module-loader.ts';
import type { LoadedFunction, LoadedModuleFile, StaticReading } from './module-loader.ts';
import { findDynamicParamBlock, readEngineFacts } from './read-engine-facts.ts';
import type { ModuleTypeScope } from './find-unresolved-types.ts';
import { selectExports } from './select-exports.ts';

export interface DescribeModuleInput {
  /** A `.psd1` manifest or a `.psm1` script module. */
  path: string;
  /** Reads a module file as text; `node:fs/promises` by default. */
  readFile?: (path: string) => Promise<string>;
  /** The UI culture whose external help to prefer (`de-DE`, `''` invariant); by default pwsh's, from the environment. */
  uiCulture?: string;
  /**
   * Describes one exported function, given how to do it: the module cache answers from an
   * earlier start when the function's file and its context are unchanged.
   */
  describeFunction?: (input: DescribeFunctionInput) => Promise<DescribedFunction>;
  /** What the engine knows of exported functions that their files do not tell, by lower-cased name. */
  engineFacts?: ReadonlyMap<string, EngineFacts>;
}

export type DescribedFunction = ReturnType<typeof describeModuleFunction>;

/** What one function's description depends on besides its own file, and how to make it. */
export interface DescribeFunctionInput {
  loaded: LoadedFunction;
  classes: ModuleLoader['classes'];
  help: HelpSearch | undefined;
  /** The engine's facts the description uses, part of what it depends on. */
  facts: EngineFacts | undefined;
  /** The module's own types and whether it loads others, part of what it depends on. */
  types: ModuleTypeScope;
  describe: () => DescribedFunction;
}

/**
 * An exported function whose file cannot tell all of it, so that only the engine can: its
 * `dynamicparam` parameters, or parameter types that may be enums of the module's own assemblies.
 */
export interface EngineFactNeed {
  function: string;
  path: string;
  line: number;
  kind: 'dynamic-parameters' | 'assembly-types';
}

/** A module as its files tell it, and how far that reading can be trusted. */
export interface ModuleReading extends SourceResult {
  /** Not exact: the engine must say which functions the module exports (engine-exports.ts). */
  staticReading: StaticReading;
  /** The diagnostics about the module itself (manifest, files, exports), none of one function. */
  moduleDiagnostics: Diagnostic[];
  /** Exported functions only the engine can describe fully, when no engine facts were given. */
  factNeeds: EngineFactNeed[];
}

/**
 * The tools of a PowerShell module: one per exported function (the manifest's
 * `FunctionsToExport`, the module's `Export-ModuleMember`, or every top-level function),
 * each described by its comment-based help and param block. Files are read, never run.
 */
export async function describePowerShellModule(input: DescribeModuleInput): Promise<SourceResult> {
  const { tools, diagnostics } = await readPowerShellModule(input);
  return { tools, diagnostics };
}

/** describePowerShellModule, with whether the reading was exact (discovery's engine fallback). */
export async function readPowerShellModule(input: DescribeModuleInput): Promise<ModuleReading> {
  const extension = extname(input.path).toLowerCase();
  if (extension !== '.psd1' && extension !== '.psm1') {
    throw new ToolpackError(
      'E_MODULE_PATH',
      `${input.path} is not a PowerShell module file (.psd1 or .psm1).`,
      {
        hint: 'Pass the module manifest (.psd1) or script module (.psm1), or resolve a module name with resolvePowerShellModule first.',
      },
    );
  }
  const read = input.readFile ?? ((path: string) => readFile(path, 'utf8'));
  const loader = new ModuleLoader(read);
  const diagnostics = loader.diagnostics;
  const moduleFiles: LoadedModuleFile[] = [];
  /** The nested module file each of its functions comes from: its `<File>-help.xml` is their last resort. */
  const nestedModuleOf = new Map<LoadedFunction, string>();
  let manifest: PowerShellManifest | undefined;
  // Set once the exports are chosen: what follows is about single functions.
  const before: { functions?: Diagnostic[] } = {};
  const factNeeds: EngineFactNeed[] = [];
  /** The module loads compiled assemblies (RequiredAssemblies, a binary module): types of its own. */
  let loadsAssemblies = false;
  const finish = (tools: DiscoveredTool[]): ModuleReading => ({
    tools,
    diagnostics,
    staticReading: loader.staticReading,
    moduleDiagnostics: before.functions ?? [...diagnostics],
    factNeeds,
  });

  if (extension === '.psd1') {
    const content = await loader.readText(input.path, 'the module manifest');
    if (content === undefined) return finish([]);
    const parsed = parsePowerShellManifest({ path: input.path, content });
    diagnostics.push(...parsed.diagnostics);
    if (parsed.manifest === undefined || parsed.diagnostics.some((d) => d.severity === 'error'))
      return finish([]);
    manifest = parsed.manifest;
    loadsAssemblies = manifest.lines.requiredassemblies !== undefined;
    // A required module or a script run before the import may bring the types a param block names.
    if (
      loadsAssemblies ||
      manifest.lines.requiredmodules !== undefined ||
      manifest.lines.scriptstoprocess !== undefined
    )
      loader.types.loadsTypes = true;
    const directory = dirname(input.path);
    const parts: Array<{ name: string; key: string; nested: boolean }> = [];
    if (manifest.rootModule !== undefined)
      parts.push({
        name: manifest.rootModule,
        key: manifest.lines.rootmodule === undefined ? 'moduletoprocess' : 'rootmodule',
        nested: false,
      });
    for (const nested of manifest.nestedModules)
      parts.push({ name: nested, key: 'nestedmodules', nested: true });
    for (const part of parts) {
      const line = manifest.lines[part.key];
      const file = await findModuleFile(directory, part.name, read);
      if (file === undefined) {
        if (part.nested && !/[\\/]/.test(part.name) && extname(part.name) === '') {
          diagnostics.push(
            createFileDiagnostic(
              'info',
              'I_NESTED_MODULE_SKIPPED',
              `The nested module ${part.name} is not a file next to the manifest; its functions are not discovered.`,
              input.path,
              line,
            ),
          );
          continue;
        }
        diagnostics.push(
          createFileDiagnostic(
            'error',
            part.nested ? 'E_NESTED_MODULE_MISSING' : 'E_ROOT_MODULE_MISSING',
            `The manifest names ${part.nested ? 'the nested module' : 'RootModule'} ${JSON.stringify(part.name)}, but no such file exists next to it.`,
            input.path,
            line,
            'Fix the file name in the manifest; paths are relative to the .psd1 file.',
          ),
        );
        return finish([]);
      }
      const fileExtension = extname(file).toLowerCase();
      if (fileExtension === '.psm1' || fileExtension === '.ps1') {
        const loaded = await loader.loadScriptFile(
          file,
          fileExtension === '.psm1' ? 'psm1' : 'ps1',
          line === undefined ? undefined : { path: input.path, line },
        );
        if (loaded !== undefined) moduleFiles.push(loaded);
        if (loaded !== undefined && part.nested)
          for (const fn of loaded.functions) nestedModuleOf.set(fn, file);
      } else {
        loadsAssemblies = true;
        loader.types.loadsTypes = true;
        diagnostics.push(
          createFileDiagnostic(
            'warning',
            'W_BINARY_MODULE',
            `${basename(file)} is a ${fileExtension} module; only PowerShell functions become tools, so its cmdlets are not discovered.`,
            input.path,
            line,
          ),
        );
      }
    }
  } else {
    const loaded = await loader.loadScriptFile(input.path, 'psm1');
    if (loaded !== undefined) moduleFiles.push(loaded);
  }
  if (loader.failed) return finish([]);

  const exported = selectExports(input.path, moduleFiles, manifest, diagnostics);
  before.functions = [...diagnostics];
  const tools: DiscoveredTool[] = [];
  const externalHelp = new ExternalHelpFinder({
    modulePath: input.path,
    ...(input.uiCulture === undefined ? {} : { uiCulture: input.uiCulture }),
  });
  for (const loaded of exported) {
    const help = await externalHelp.findFunctionHelp(loaded, nestedModuleOf.get(loaded));
    const facts = input.engineFacts?.get(loaded.fn.name.toLowerCase());
    if (input.engineFacts === undefined) factNeeds.push(...findFactNeeds(loaded, loadsAssemblies));
    const types = loader.types;
    const describe = () =>
      describeModuleFunction(loaded, input.path, loader.classes, help, facts, types);
    const described =
      input.describeFunction === undefined
        ? describe()
        : await input.describeFunction({
            loaded,
            classes: loader.classes,
            help,
            facts,
            types,
            describe,
          });
    diagnostics.push(...described.diagnostics);
    if (described.tool !== undefined) tools.push(described.tool);
  }
  diagnostics.push(...externalHelp.diagnostics);
  const empty = checkModuleYield({
    modulePath: input.path,
    exported: exported.map((loaded) => loaded.fn.name),
    listed: manifest?.functionsToExport,
    toolCount: tools.length,
  });
  if (empty !== undefined) diagnostics.push(empty);
  if (exported.length === 0 && !diagnostics.some((d) => d.severity === 'error')) {
    diagnostics.push(
      createFileDiagnostic(
        'warning',
        'W_NO_FUNCTIONS',
        `The module ${basename(input.path)} exports no functions, so it provides no tools.`,
        input.path,
      ),
    );
  }
  return finish(tools);
}

/**
 * One exported function as a tool, from its definition: the one description both the static
 * reading and the engine's answer (which only says where each export is defined) go through.
 */
export function describeModuleFunction(
  { fn, document, path }: LoadedFunction,
  modulePath: string,
  moduleClasses: ModuleLoader['classes'],
  /** The help Get-Help gives it (ExternalHelpFinder); its comment-based help when absent. */
  help?: HelpSearch,
  /** What the engine knows of it that its file does not tell (read-engine-facts.ts). */
  facts?: EngineFacts,
  /** The module's types (ModuleLoader.types); without it, parameter type names are not judged. */
  types?: ModuleTypeScope,
): { tool?: DiscoveredTool; diagnostics: Diagnostic[] } {
  const parameters = fn.paramBlock?.parameters ?? fn.shortParameters?.parameters ?? [];
  const engine = readEngineFacts(
    facts,
    parameters,
    new Map(document.enums.map((e) => [e.name.toLowerCase(), e])),
  );
  if (engine.error !== undefined)
    return {
      diagnostics: [
        createFileDiagnostic(
          'error',
          'E_ENGINE_PARAMETERS',
          `The dynamic parameters of the function ${fn.name} cannot be described: ${engine.error}.`,
          path,
          facts?.dynamic?.line ?? fn.line,
        ),
      ],
    };
  const described = describeCommand({
    document,
    path,
    sourceKind: 'ps-module',
    originalName: fn.name,
    what: `the function ${fn.name}`,
    line: fn.line,
    help: help ?? findFunctionHelp(document, fn),
    parameters,
    ...(engine.dynamicParameters.length === 0
      ? {}
      : { dynamicParameters: engine.dynamicParameters }),
    ...(engine.enums.length === 0 ? {} : { engineEnums: engine.enums }),
    // Unless pwsh declared them all, the help may document parameters the block declares.
    ...((facts?.dynamic === undefined || facts.dynamic.reads.length > 0) &&
    findDynamicParamBlock(document, fn) !== undefined
      ? { undescribedDynamicParameters: true }
      : {}),
    blockAttributes: fn.paramBlock?.attributes ?? [],
    invocation: { runner: 'pwsh', mode: 'module', modulePath, functionName: fn.name },
    helpHint: `Put <# .SYNOPSIS (next line) One sentence about what it does. #> right before "function ${fn.name}" or first inside its body.`,
    moduleClasses,
    moduleTypes: types ?? { loadsTypes: true, ownTypeNames: new Set() },
  });
  const reads = facts?.dynamic?.reads ?? [];
  if (described.tool !== undefined && facts?.dynamic !== undefined && reads.length > 0)
    described.diagnostics.push(
      createFileDiagnostic(
        'warning',
        'W_DYNAMIC_PARAMETERS',
        `The dynamicparam block of the function ${fn.name} reads ${reads.map((name) => `$${name}`).join(', ')}, so what it declares may depend on the call's arguments: its tool has the ${engine.dynamicParameters.length} dynamic parameter(s) pwsh declares with no arguments bound, and those it adds only for some argument values are not in the schema, so a call cannot pass them.`,
        path,
        facts.dynamic.line,
        'Declare the parameters in the param block (ValidateSet for the values), or give the dynamicparam block parameters that do not depend on other arguments.',
      ),
    );
  return described;
}

/**
 * What of one exported function only the engine can tell: the parameters of its `dynamicparam`
 * block; and, in a module that loads assemblies of its own, parameter types the reader does not
 * know (an enum compiled into them is an `enum` once the engine names its members).
 */
function findFactNeeds(
  { fn, document, path }: LoadedFunction,
  loadsAssemblies: boolean,
): EngineFactNeed[] {
  const needs: EngineFactNeed[] = [];
  const dynamicLine = findDynamicParamBlock(document, fn);
  if (dynamicLine !== undefined)
    needs.push({ function: fn.name, path, line: dynamicLine, kind: 'dynamic-parameters' });
  if (!loadsAssemblies) return needs;
  const enums = new Map(document.enums.map((e) => [e.name.toLowerCase(), e]));
  const parameters = fn.paramBlock?.parameters ?? fn.shortParameters?.parameters ?? [];
  const unknown = parameters.find(
    (parameter) => mapPowerShellType(parameter.typeNames[0], { enums }).kind === 'as-string',
  );
  if (unknown !== undefined)
    needs.push({ function: fn.name, path, line: unknown.line, kind: 'assembly-types' });
  return needs;
}

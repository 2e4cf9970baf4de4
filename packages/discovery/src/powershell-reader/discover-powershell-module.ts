import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { basename, dirname, join, relative, resolve, sep } from 'node:path';
import type { Diagnostic, ToolSandbox } from '@toolpack/core';
import { listModuleFiles } from '../cache/list-module-files.ts';
import { createDiscoveryAbortedError } from '../discovery-aborted.ts';
import type { ParseCache, SourceResult } from '../types.ts';
import { describeEngineExports } from './describe-engine-exports.ts';
import { readPowerShellModule } from './describe-module.ts';
import type {
  DescribeFunctionInput,
  DescribedFunction,
  EngineFactNeed,
  ModuleReading,
} from './describe-module.ts';
import { findPwsh, identifyPwsh, readEngineExports } from './engine-exports.ts';
import type { EngineFacts } from './engine-exports.ts';
import { readUiCulture } from './find-external-help.ts';
import { createFileDiagnostic } from './file-diagnostic.ts';

/**
 * Bumped whenever a module's reading changes for the same files (2: external help is read; 3:
 * enums, any JSON value for untyped parameters, ValidateSet ignoring case, undescribed
 * parameters marked for lenient help; 4: the engine's facts, dynamic parameters and compiled enums;
 * 5: a dynamicparam block that reads the call's arguments is warned about).
 */
const MODULE_PARSER_VERSION = 7;
/** Assemblies a module may load from its folder: its compiled enums are keyed by them too. */
const MAX_ASSEMBLY_SEARCH_ENTRIES = 20_000;
const FOLDED_INTO_NEEDS_PWSH = new Set([
  'E_DYNAMIC_EXPORTS',
  'I_DYNAMIC_DOT_SOURCE',
  'E_MODULE_NO_TOOLS',
]);
/** How many function names a missing-pwsh error lists before it counts the rest. */
const LISTED_NAMES = 12;

export interface DiscoverPowerShellModuleOptions {
  /** The `.psd1` or `.psm1`, absolute or relative to `cwd`. */
  path: string;
  /** The project root. */
  cwd: string;
  /** The discovery cache; absent, every start reads the files (and asks pwsh) again. */
  cache?: ParseCache;
  /**
   * The pwsh that imports a module whose exports only the engine can tell: default the one on
   * PATH; `false`: none (as on a machine without PowerShell).
   */
  pwshPath?: string | false;
  /** A pack's (or a `sandbox: true` source's) sandbox: the import runs confined. */
  sandbox?: ToolSandbox;
  requireSandbox?: boolean;
  /** Names the importing pwsh inherits besides the default allow-list. */
  envAllowList?: readonly string[];
  signal?: AbortSignal;
}

/** What the static reading leaves for the engine, as the cache keeps it. */
type StaticEntry = SourceResult &
  Pick<Partial<ModuleReading>, 'staticReading' | 'moduleDiagnostics' | 'factNeeds'>;

/** A result that must not be cached: it depends on more than the module's files. */
class UncachedResult<T> extends Error {
  readonly value: T;
  constructor(value: T) {
    super('not cached');
    this.value = value;
  }
}

/**
 * docs/powershell-modules.md: a module's tools, read from its files where that is exact, else
 * from where the real engine says each exported function is defined. Both readings are cached
 * by the content of every PowerShell file of the module's folder (and the engine's by the pwsh
 * that gave it), so a start with nothing changed parses nothing and starts no pwsh.
 */
export async function discoverPowerShellModule(
  input: DiscoverPowerShellModuleOptions,
): Promise<SourceResult> {
  const options = { ...input, path: resolve(input.cwd, input.path) };
  const folder = dirname(options.path);
  const files = options.cache === undefined ? undefined : listModuleFiles(folder);
  const cached = async <T>(
    kind: string,
    compute: (contents: ReadonlyMap<string, string>) => Promise<T>,
    keyFiles: readonly string[] | undefined = files,
  ): Promise<T> => {
    if (options.cache === undefined || keyFiles === undefined) {
      try {
        return await compute(new Map());
      } catch (error) {
        if (error instanceof UncachedResult) return error.value as T;
        throw error;
      }
    }
    try {
      return await options.cache.read(kind, keyFiles, (contents) =>
        compute(new Map(keyFiles.map((file, i) => [file, contents[i] ?? '']))),
      );
    } catch (error) {
      if (error instanceof UncachedResult) return error.value as T;
      throw error;
    }
  };
  const inFolder = (file: string) => resolve(file).startsWith(folder + sep);

  const reading = await cached(
    // The UI culture picks the external help file (find-external-help.ts).
    `ps-module@${MODULE_PARSER_VERSION}\u0000${options.path}\u0000${readUiCulture()}`,
    async (contents) => {
      let outside = false;
      const read = (file: string): Promise<string> => {
        const known = contents.get(resolve(file));
        if (known !== undefined) return Promise.resolve(known);
        if (!inFolder(file)) outside = true;
        return Promise.resolve(readFileSync(file, 'utf8'));
      };
      const result = await readPowerShellModule({
        path: options.path,
        readFile: read,
        ...(options.cache === undefined
          ? {}
          : { describeFunction: createFunctionMemo(options.cache, options.path) }),
      });
      const entry: StaticEntry = { tools: result.tools, diagnostics: result.diagnostics };
      if (result.factNeeds.length > 0) entry.factNeeds = result.factNeeds;
      if (!result.staticReading.exact) {
        entry.staticReading = result.staticReading;
        entry.moduleDiagnostics = result.moduleDiagnostics;
      }
      // A file outside the folder is not in the key: such a reading is made afresh every time.
      if (outside) throw new UncachedResult(entry);
      return entry;
    },
  );
  const factNeeds = reading.factNeeds ?? [];
  const exact = reading.staticReading === undefined || reading.staticReading.exact;
  if (exact && factNeeds.length === 0)
    return { tools: reading.tools, diagnostics: reading.diagnostics };
  const pwshPath = options.pwshPath === false ? undefined : (options.pwshPath ?? findPwsh());
  const engineOptions = {
    modulePath: options.path,
    cwd: options.cwd,
    ...(options.sandbox === undefined ? {} : { sandbox: options.sandbox }),
    ...(options.requireSandbox === undefined ? {} : { requireSandbox: options.requireSandbox }),
    ...(options.envAllowList === undefined ? {} : { envAllowList: options.envAllowList }),
    ...(options.signal === undefined ? {} : { signal: options.signal }),
  };
  // An assembly the module loads names its compiled enums: a new build is a new answer.
  const engineKeyFiles =
    files === undefined ? undefined : [...files, ...listModuleAssemblies(folder)];

  if (exact) {
    // The files tell which functions the module exports; the engine is asked only what they
    // cannot tell of some of them (dynamic parameters, compiled enums).
    const withoutFacts = (reason: string): SourceResult => ({
      tools: reading.tools,
      diagnostics: [...reading.diagnostics, ...warnDynamicParameters(options, factNeeds, reason)],
    });
    if (pwshPath === undefined) return withoutFacts('no PowerShell 7 (pwsh) was found to ask');
    return cached(
      `ps-module-facts@${MODULE_PARSER_VERSION}\u0000${options.path}\u0000${identifyPwsh(pwshPath)}\u0000${readUiCulture()}`,
      async (contents) => {
        const engine = await readEngineExports({ ...engineOptions, pwshPath });
        if ('error' in engine) {
          if (engine.reason === 'aborted') throw createDiscoveryAbortedError(options.signal);
          throw new UncachedResult(withoutFacts(`importing it in pwsh failed: ${engine.error}`));
        }
        const engineFacts = new Map<string, EngineFacts>();
        for (const found of engine.answer.exports)
          if (found.facts !== undefined) engineFacts.set(found.name.toLowerCase(), found.facts);
        const result = await readPowerShellModule({
          path: options.path,
          readFile: (file) =>
            Promise.resolve(contents.get(resolve(file)) ?? readFileSync(file, 'utf8')),
          engineFacts,
          ...(options.cache === undefined
            ? {}
            : { describeFunction: createFunctionMemo(options.cache, options.path) }),
        });
        const described: SourceResult = {
          tools: result.tools,
          diagnostics: [
            describeEngineFacts(options, engine.answer.version, factNeeds),
            ...result.diagnostics,
          ],
        };
        if (engine.answer.files.some((file) => !inFolder(file)))
          throw new UncachedResult(described);
        return described;
      },
      engineKeyFiles,
    );
  }
  const { unresolved } = reading.staticReading!;
  const moduleDiagnostics = reading.moduleDiagnostics ?? [];

  if (pwshPath === undefined) {
    const missing = reportMissingPwsh(options, reading, unresolved);
    missing.diagnostics.push(
      ...warnDynamicParameters(options, factNeeds, 'no PowerShell 7 (pwsh) was found to ask'),
    );
    return missing;
  }

  return cached(
    `ps-module-engine@${MODULE_PARSER_VERSION}\u0000${options.path}\u0000${identifyPwsh(pwshPath)}\u0000${readUiCulture()}`,
    async (contents) => {
      const engine = await readEngineExports({ ...engineOptions, pwshPath });
      if ('error' in engine) {
        if (engine.reason === 'aborted') throw createDiscoveryAbortedError(options.signal);
        throw new UncachedResult(
          reportEngineFailure(options, reading, unresolved, moduleDiagnostics, engine),
        );
      }
      const result = await describeEngineExports({
        modulePath: options.path,
        answer: engine.answer,
        unresolved,
        moduleDiagnostics,
        cwd: options.cwd,
        readFile: (file) => {
          const known = contents.get(resolve(file));
          return Promise.resolve(known ?? readFileSync(file, 'utf8'));
        },
      });
      if (engine.answer.files.some((file) => !inFolder(file))) throw new UncachedResult(result);
      return result;
    },
    engineKeyFiles,
  );
}

/** The info line of a module the engine described only in part: which functions, and why. */
function describeEngineFacts(
  options: DiscoverPowerShellModuleOptions,
  version: string,
  needs: readonly EngineFactNeed[],
): Diagnostic {
  const dynamic = needs.filter((need) => need.kind === 'dynamic-parameters');
  const types = needs.filter((need) => need.kind === 'assembly-types');
  const parts = [
    ...(dynamic.length === 0
      ? []
      : [
          `the dynamic parameters of ${listNames(dynamic)} (a dynamicparam block exists only when the engine runs it)`,
        ]),
    ...(types.length === 0
      ? []
      : [
          `the parameter types of ${listNames(types)}, which name types of the assemblies it loads`,
        ]),
  ];
  return createFileDiagnostic(
    'info',
    'I_ENGINE_FACTS',
    `PowerShell ${version} imported ${basename(options.path)} to describe what its files cannot tell: ${parts.join('; and ')}. The answer is cached until a file of the module changes.`,
    options.path,
  );
}

/** Per function with a dynamicparam block: served without those parameters, and why. */
function warnDynamicParameters(
  options: DiscoverPowerShellModuleOptions,
  needs: readonly EngineFactNeed[],
  reason: string,
): Diagnostic[] {
  return needs
    .filter((need) => need.kind === 'dynamic-parameters')
    .map((need) =>
      createFileDiagnostic(
        'warning',
        'W_DYNAMIC_PARAMETERS',
        `The function ${need.function} of ${basename(options.path)} declares parameters in a dynamicparam block, which exist only when PowerShell runs it, and ${reason}: its tool is served without them, so a call cannot pass them.`,
        need.path,
        need.line,
        'Install PowerShell 7 (pwsh) and put it on PATH (https://aka.ms/powershell), or declare the parameters in the param block.',
      ),
    );
}

function listNames(needs: readonly EngineFactNeed[]): string {
  const names = [...new Set(needs.map((need) => need.function))];
  return `${names.slice(0, LISTED_NAMES).join(', ')}${names.length > LISTED_NAMES ? `, and ${names.length - LISTED_NAMES} more` : ''}`;
}

/** The `.dll` files under a module's folder (bounded), sorted: part of the engine answer's key. */
function listModuleAssemblies(folder: string): string[] {
  const found: string[] = [];
  let budget = MAX_ASSEMBLY_SEARCH_ENTRIES;
  const walk = (directory: string): void => {
    let entries;
    try {
      entries = readdirSync(directory, { withFileTypes: true });
    } catch {
      return;
    }
    for (const entry of entries) {
      if (--budget < 0) return;
      if (entry.name.startsWith('.') || entry.name === 'node_modules') continue;
      const full = join(directory, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (entry.isFile() && /\.dll$/i.test(entry.name)) found.push(full);
    }
  };
  walk(folder);
  return found.sort();
}

/**
 * Each exported function's description, kept per function and keyed by its own file and by what
 * else it depends on (the module's classes, its help): a start after one file of a large module
 * changed describes only that file's functions again.
 */
function createFunctionMemo(
  cache: ParseCache,
  modulePath: string,
): (input: DescribeFunctionInput) => Promise<DescribedFunction> {
  let classes: { list: DescribeFunctionInput['classes']; count: number; hash: string } | undefined;
  return ({ loaded, classes: list, help, facts, types, describe }) => {
    // The classes are complete before the first function is described: hashed once.
    if (classes?.list !== list || classes.count !== list.length)
      classes = { list, count: list.length, hash: hashText(JSON.stringify(list)) };
    const context = hashText(
      `${classes.hash}\u0000${JSON.stringify(help ?? null)}\u0000${JSON.stringify(facts ?? null)}\u0000${types.loadsTypes}\u0000${[...types.ownTypeNames].sort().join(',')}`,
    );
    return cache.read(
      `ps-function@${MODULE_PARSER_VERSION}\u0000${modulePath}\u0000${loaded.fn.name}\u0000${loaded.fn.line}\u0000${context}`,
      [loaded.path],
      () => describe(),
    );
  };
}

function hashText(text: string): string {
  return createHash('sha256').update(text).digest('base64url');
}

/** The statically found tools, and an error per construct only the engine could have resolved. */
function reportMissingPwsh(
  options: DiscoverPowerShellModuleOptions,
  reading: StaticEntry,
  unresolved: NonNullable<StaticEntry['staticReading']>['unresolved'],
): SourceResult {
  const names = reading.tools.map((tool) => tool.originalName ?? tool.name);
  const found =
    names.length === 0
      ? 'none of its functions could be listed'
      : `only the ${names.length} function(s) its files show are listed (${names.slice(0, LISTED_NAMES).join(', ')}${names.length > LISTED_NAMES ? `, and ${names.length - LISTED_NAMES} more` : ''})`;
  const diagnostics: Diagnostic[] = unresolved.map((gap) =>
    createFileDiagnostic(
      'error',
      'E_MODULE_NEEDS_PWSH',
      `${basename(options.path)} decides what it exports when it runs (${gap.construct}), and no PowerShell 7 (pwsh) was found to import it and ask: ${found}; the functions this exports or loads may be missing or wrong.`,
      gap.path,
      gap.line,
      'Install PowerShell 7 (pwsh) and put it on PATH (https://aka.ms/powershell), or list the exported functions by name in the manifest’s FunctionsToExport and dot-source files by literal paths.',
    ),
  );
  return {
    tools: reading.tools,
    diagnostics: [
      ...diagnostics,
      // The static reading's own guesses, and its conclusion that nothing was found, are
      // folded into the errors above.
      ...reading.diagnostics.filter((diagnostic) => !FOLDED_INTO_NEEDS_PWSH.has(diagnostic.code)),
    ],
  };
}

function reportEngineFailure(
  options: DiscoverPowerShellModuleOptions,
  reading: StaticEntry,
  unresolved: NonNullable<StaticEntry['staticReading']>['unresolved'],
  moduleDiagnostics: readonly Diagnostic[],
  engine: { error: string; reason: string },
): SourceResult {
  const where = relative(options.cwd, options.path);
  if (engine.reason === 'import') {
    // The module cannot be imported, so none of its tools could run either.
    return {
      tools: [],
      diagnostics: [
        ...moduleDiagnostics.filter((diagnostic) => diagnostic.code !== 'E_DYNAMIC_EXPORTS'),
        createFileDiagnostic(
          'error',
          'E_MODULE_IMPORT',
          `pwsh could not import ${where}: ${engine.error}`,
          options.path,
          undefined,
          'Fix the error above: Import-Module must succeed for the module’s tools to run. Try it with pwsh -NoProfile -Command "Import-Module ./<module>.psd1".',
        ),
      ],
    };
  }
  const refused = engine.reason === 'sandbox-required';
  return {
    tools: refused ? [] : reading.tools,
    diagnostics: [
      createFileDiagnostic(
        'error',
        refused ? 'E_SANDBOX_REQUIRED' : 'E_MODULE_IMPORT',
        `${where} decides what it exports when it runs (${unresolved.map((gap) => `${gap.construct}, ${relative(options.cwd, gap.path)}:${gap.line}`).join('; ')}), and importing it in pwsh ${refused ? 'was refused' : 'failed'}: ${engine.error}.`,
        options.path,
        undefined,
        refused
          ? 'Install bubblewrap (Linux), or drop --require-sandbox (policy: requireSandbox) to import it unconfined.'
          : 'Check that pwsh starts (pwsh -NoProfile -Command 1) and that the module imports in less than 2 minutes.',
      ),
      ...reading.diagnostics.filter((diagnostic) => diagnostic.code !== 'E_DYNAMIC_EXPORTS'),
    ],
  };
}

import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { basename, dirname, relative, resolve, sep } from 'node:path';
import type { Diagnostic, ToolSandbox } from '@toolpack/core';
import { listModuleFiles } from '../cache/list-module-files.ts';
import { createDiscoveryAbortedError } from '../discovery-aborted.ts';
import type { ParseCache, SourceResult } from '../types.ts';
import { describeEngineExports } from './describe-engine-exports.ts';
import { readPowerShellModule } from './describe-module.ts';
import type { DescribeFunctionInput, DescribedFunction, ModuleReading } from './describe-module.ts';
import { findPwsh, identifyPwsh, readEngineExports } from './engine-exports.ts';
import { readUiCulture } from './find-external-help.ts';
import { createFileDiagnostic } from './file-diagnostic.ts';

/**
 * Bumped whenever a module's reading changes for the same files (2: external help is read; 3:
 * enums, any JSON value for untyped parameters, ValidateSet ignoring case, undescribed
 * parameters marked for lenient help).
 */
const MODULE_PARSER_VERSION = 3;
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
  Pick<Partial<ModuleReading>, 'staticReading' | 'moduleDiagnostics'>;

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
  ): Promise<T> => {
    if (options.cache === undefined || files === undefined) {
      try {
        return await compute(new Map());
      } catch (error) {
        if (error instanceof UncachedResult) return error.value as T;
        throw error;
      }
    }
    try {
      return await options.cache.read(kind, files, (contents) =>
        compute(new Map(files.map((file, i) => [file, contents[i] ?? '']))),
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
      if (!result.staticReading.exact) {
        entry.staticReading = result.staticReading;
        entry.moduleDiagnostics = result.moduleDiagnostics;
      }
      // A file outside the folder is not in the key: such a reading is made afresh every time.
      if (outside) throw new UncachedResult(entry);
      return entry;
    },
  );
  if (reading.staticReading === undefined || reading.staticReading.exact) {
    return { tools: reading.tools, diagnostics: reading.diagnostics };
  }
  const { unresolved } = reading.staticReading;
  const moduleDiagnostics = reading.moduleDiagnostics ?? [];

  const pwshPath = options.pwshPath === false ? undefined : (options.pwshPath ?? findPwsh());
  if (pwshPath === undefined) return reportMissingPwsh(options, reading, unresolved);

  return cached(
    `ps-module-engine@${MODULE_PARSER_VERSION}\u0000${options.path}\u0000${identifyPwsh(pwshPath)}\u0000${readUiCulture()}`,
    async (contents) => {
      const engine = await readEngineExports({
        modulePath: options.path,
        pwshPath,
        cwd: options.cwd,
        ...(options.sandbox === undefined ? {} : { sandbox: options.sandbox }),
        ...(options.requireSandbox === undefined ? {} : { requireSandbox: options.requireSandbox }),
        ...(options.envAllowList === undefined ? {} : { envAllowList: options.envAllowList }),
        ...(options.signal === undefined ? {} : { signal: options.signal }),
      });
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
  );
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
  return ({ loaded, classes: list, help, describe }) => {
    // The classes are complete before the first function is described: hashed once.
    if (classes?.list !== list || classes.count !== list.length)
      classes = { list, count: list.length, hash: hashText(JSON.stringify(list)) };
    const context = hashText(`${classes.hash}\u0000${JSON.stringify(help ?? null)}`);
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

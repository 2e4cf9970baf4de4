import { stat } from 'node:fs/promises';
import path from 'node:path';
import { ToolpackError, type SourceSpec, type ToolSandbox } from '@toolpack/core';
import { JS_MODULE_EXTENSIONS, discoverJsModule } from './adapters/js-module/discover-js-module.ts';
import { bindCredentials, findUnusedCredentialBindings } from './bind-credentials.ts';
import { explainMissingSource } from './explain-missing-source.ts';
import { applyHelpLeniency } from './lenient-help.ts';
import { throwIfDiscoveryAborted } from './discovery-aborted.ts';
import { discoverScriptRoot } from './adapters/script-root/discover-script-root.ts';
import { discoverToolFolders } from './adapters/tool-folders/index.ts';
import { discoverWorkflows } from './adapters/workflows/index.ts';
import { FileParseCache, type FileParseCacheStats } from './cache/file-parse-cache.ts';
import { composeTools, type ComposeOptions, type Composition } from './compose-tools.ts';
import { resolvePowerShellModule } from './powershell-reader/index.ts';
import { discoverPowerShellModule } from './powershell-reader/discover-powershell-module.ts';
import { chooseSandbox } from './source-sandbox.ts';
import type { ParseCache, SourceResult } from './types.ts';

export interface DiscoverToolsOptions extends ComposeOptions {
  sources: readonly SourceSpec[];
  /** Relative source paths are resolved from here (the project root). */
  cwd: string;
  /**
   * The per-file parse cache: a folder, `false` for none, or a `ParseCache` of your own.
   * Default: `<cwd>/.toolpack/cache`.
   */
  cache?: string | false | ParseCache;
  /** Where module names are looked up; default `$PSModulePath`. */
  psModulePath?: string;
  /** Extensions of configured interpreters (`.rb`) that script roots also serve. */
  extraScriptExtensions?: readonly string[];
  /**
   * Stops discovery: a JS/TS module being imported for its tools is killed at once, and
   * discoverTools rejects with `E_DISCOVERY_ABORTED` instead of answering with what it read.
   */
  signal?: AbortSignal;
  /**
   * Names (or `PREFIX*` patterns) a JS/TS module's importing child inherits besides the
   * default allow-list: the same list its tools get at run time.
   */
  envAllowList?: readonly string[];
  /**
   * A confined source's JS/TS module (every pack's) is not imported at all where the OS
   * sandbox cannot be had: its top-level code would run with the user's full rights.
   */
  requireSandbox?: boolean;
  /**
   * The pwsh that imports a PowerShell module whose exports its files alone do not tell (its
   * answer is cached): default the one on PATH; `false`: none.
   */
  pwshPath?: string | false;
  /**
   * Serve PowerShell tools whose parameters have no description, each with a
   * `W_PARAMETER_NO_DESCRIPTION` warning, instead of refusing them (`lenientHelp: true`,
   * `--lenient-help`): what MCPServerPS does. Off by default.
   */
  lenientHelp?: boolean;
}

export interface DiscoveryResult extends Composition {
  cache?: FileParseCacheStats;
}

/**
 * Reads every source, in order, and composes them into the tool list a client gets.
 * Throws `E_SOURCE_MISSING` for a source that does not exist: an empty server hides the
 * mistake; the error names the toolpack.yaml line of a project's source and the existing
 * folder of the closest name. Everything wrong inside a source is a diagnostic instead.
 */
export async function discoverTools(options: DiscoverToolsOptions): Promise<DiscoveryResult> {
  const cache =
    options.cache === false
      ? undefined
      : typeof options.cache === 'object'
        ? options.cache
        : new FileParseCache({
            dir: options.cache ?? path.join(options.cwd, '.toolpack', 'cache'),
          });
  throwIfDiscoveryAborted(options.signal);
  const results = await Promise.all(
    // Credential bindings are the project's, applied after the per-file cache (bind-credentials.ts).
    options.sources.map(async (spec) => {
      const result = await readSource(spec, options, cache).catch(async (error: unknown) => {
        throw await explainMissingSource(error, spec, options.cwd);
      });
      return bindCredentials(
        applyHelpLeniency(result, options.lenientHelp === true),
        spec.credentials ?? [],
      );
    }),
  );
  // Sources other than JS modules read files only; a half-stopped discovery is still stopped.
  throwIfDiscoveryAborted(options.signal);
  if (cache instanceof FileParseCache) await cache.flush();
  const composition = composeTools(
    options.sources.map((spec, i) => ({
      spec,
      result: results[i] ?? { tools: [], diagnostics: [] },
    })),
    options,
  );
  composition.diagnostics.push(
    ...findUnusedCredentialBindings(options.sources, results, options.cwd),
  );
  return cache instanceof FileParseCache
    ? { ...composition, cache: { ...cache.stats } }
    : composition;
}

async function readSource(
  spec: SourceSpec,
  options: DiscoverToolsOptions,
  cache: ParseCache | undefined,
): Promise<SourceResult> {
  const { cwd } = options;
  if ('tools' in spec)
    return discoverToolFolders({
      root: spec.tools,
      cwd,
      ...(cache ? { cache } : {}),
      ...(spec.preload === undefined ? {} : { preload: spec.preload }),
    });
  if ('scripts' in spec) {
    return discoverScriptRoot({
      root: spec.scripts,
      cwd,
      ...(cache ? { cache } : {}),
      ...chooseScriptExtensions(spec, options),
    });
  }
  if ('workflows' in spec)
    return discoverWorkflows({ dir: spec.workflows, cwd, ...(cache ? { cache } : {}) });
  return readModule(
    spec.module,
    options,
    chooseSandbox(spec, options.sources, options.protect),
    cache,
  );
}

async function readModule(
  module: string,
  options: DiscoverToolsOptions,
  sandbox: ToolSandbox | undefined,
  cache: ParseCache | undefined,
): Promise<SourceResult> {
  const readPowerShell = (file: string) =>
    discoverPowerShellModule({
      path: file,
      cwd: options.cwd,
      ...(cache === undefined ? {} : { cache }),
      ...(options.pwshPath === undefined ? {} : { pwshPath: options.pwshPath }),
      ...(sandbox === undefined ? {} : { sandbox }),
      ...(options.requireSandbox === undefined ? {} : { requireSandbox: options.requireSandbox }),
      ...(options.envAllowList === undefined ? {} : { envAllowList: options.envAllowList }),
      ...(options.signal === undefined ? {} : { signal: options.signal }),
    });
  const extension = path.extname(module).toLowerCase();
  if ((JS_MODULE_EXTENSIONS as readonly string[]).includes(extension)) {
    return discoverJsModule({
      module,
      cwd: options.cwd,
      ...(cache === undefined ? {} : { cache }),
      ...(options.signal === undefined ? {} : { signal: options.signal }),
      ...(options.envAllowList === undefined ? {} : { envAllowList: options.envAllowList }),
      ...(sandbox === undefined ? {} : { sandbox }),
      ...(options.requireSandbox === undefined ? {} : { requireSandbox: options.requireSandbox }),
    });
  }
  if (extension === '.psd1' || extension === '.psm1') {
    const file = path.resolve(options.cwd, module);
    if (
      !(await stat(file).then(
        (s) => s.isFile(),
        () => false,
      ))
    ) {
      throw new ToolpackError('E_SOURCE_MISSING', `PowerShell module ${module} does not exist.`, {
        hint: 'Point --module at a .psd1 or .psm1 file, or give a module name found on PSModulePath.',
      });
    }
    return readPowerShell(file);
  }
  const resolved = await resolvePowerShellModule(module, {
    cwd: options.cwd,
    ...(options.psModulePath === undefined ? {} : { psModulePath: options.psModulePath }),
  });
  if (resolved === undefined) {
    throw new ToolpackError(
      'E_SOURCE_MISSING',
      `Module ${module} was not found: it is not a file and not a module on PSModulePath.`,
      {
        hint: 'Give a path to a .psd1/.psm1/.js/.ts file, or install the PowerShell module so it is on PSModulePath.',
      },
    );
  }
  return readPowerShell(resolved);
}

/**
 * The extensions a script root serves besides the built-in ones: a pack's, its own
 * interpreters' (never the project's or another pack's); the project's, the configured ones.
 */
function chooseScriptExtensions(
  spec: SourceSpec,
  options: DiscoverToolsOptions,
): { extraExtensions?: readonly string[] } {
  if (spec.pack !== undefined && spec.interpreters !== undefined) {
    const own = Object.keys(spec.interpreters);
    return own.length === 0 ? {} : { extraExtensions: own };
  }
  return options.extraScriptExtensions ? { extraExtensions: options.extraScriptExtensions } : {};
}

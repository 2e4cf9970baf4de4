import { access, readdir } from 'node:fs/promises';
import { basename, dirname, extname, join, resolve } from 'node:path';
import type { Diagnostic } from '@toolpack/core';
import { createParseDiagnostics } from './describe-command.ts';
import { ModuleScriptEvaluator, findDotSourcingHelpers } from './evaluate-module-script.ts';
import type { ModuleScope, ModuleScriptEffects } from './evaluate-module-script.ts';
import { readPowerShell } from './reader.ts';
import type { PowerShellDocument, PsClass, PsFunction } from './reader.ts';
import { createFileDiagnostic } from './file-diagnostic.ts';
import { readTypeContext } from './find-unresolved-types.ts';
import type { ModuleTypeScope } from './find-unresolved-types.ts';

/**
 * Whether reading a module's files accounted for everything PowerShell would load and export.
 * `exact: false` lists each construct the reader could not resolve (a dot-source through an
 * unknown command, a computed `Export-ModuleMember` argument, a file it could not read...), with
 * where it is: the cue for asking the real engine which functions the module exports.
 */
export interface StaticReading {
  exact: boolean;
  unresolved: StaticReadingGap[];
}

export interface StaticReadingGap {
  /** The file holding the construct. */
  path: string;
  line: number;
  /** What could not be resolved, as written or described: `. $helper.Path`, `Export-ModuleMember -Function $names`. */
  construct: string;
}

/**
 * Directory entries one module's `Get-ChildItem` calls may look at. dbatools, the largest
 * module around, lists about 1,000; past this the module is refused rather than served short.
 */
export const MAX_LISTED_ENTRIES = 10_000;
const MAX_DOT_SOURCE_DEPTH = 4;

export interface LoadedFunction {
  fn: PsFunction;
  document: PowerShellDocument;
  path: string;
}

export interface LoadedModuleFile {
  functions: LoadedFunction[];
  /** Undefined: every function is exported (no `Export-ModuleMember`). */
  exportPatterns?: string[];
  dynamicExports: Array<{ text: string; line: number; path: string }>;
}

/** Reads a module's files (dot-sourced ones too), each once, collecting functions and exports. */
export class ModuleLoader {
  readonly diagnostics: Diagnostic[] = [];
  /** A file failed to parse or could not be read: PowerShell would not import the module. */
  failed = false;
  /** The classes of every file read, for output schemas that name them. */
  readonly classes: Array<{ definition: PsClass; path: string }> = [];
  /** What the reading could not resolve; empty when it is exact. */
  readonly unresolved: StaticReadingGap[] = [];
  /** The types of the module's own files (classes, enums) and whether a file loads others. */
  readonly types: ModuleTypeScope = { loadsTypes: false, ownTypeNames: new Set() };
  private readonly read: (path: string) => Promise<string>;
  private readonly loaded = new Set<string>();
  /** The module's scope, shared by its files: variables, helper functions, the listing budget. */
  private readonly scope: ModuleScope = {
    variables: new Map(),
    helpers: new Map(),
    budget: { remaining: MAX_LISTED_ENTRIES },
    truncated: false,
  };

  constructor(read: (path: string) => Promise<string>) {
    this.read = read;
  }

  /** Records a construct the static reading cannot follow: the module then needs the engine. */
  markUnresolved(path: string, line: number, construct: string): void {
    this.unresolved.push({ path, line, construct });
  }

  get staticReading(): StaticReading {
    return { exact: this.unresolved.length === 0, unresolved: [...this.unresolved] };
  }

  async readText(
    path: string,
    what: string,
    line?: { path: string; line: number },
  ): Promise<string | undefined> {
    try {
      return await this.read(path);
    } catch (error) {
      const reason =
        (error as NodeJS.ErrnoException).code === 'ENOENT'
          ? 'the file does not exist'
          : (error as Error).message;
      this.diagnostics.push(
        createFileDiagnostic(
          'error',
          'E_MODULE_FILE',
          `Cannot read ${what} ${path}: ${reason}.`,
          line?.path ?? path,
          line?.line,
        ),
      );
      this.failed = true;
      return undefined;
    }
  }

  /** A `.psm1` (or a `.ps1` loaded into the module): its functions, dot-sourced files included, and its exports. */
  async loadScriptFile(
    path: string,
    kind: 'psm1' | 'ps1',
    from?: { path: string; line: number },
  ): Promise<LoadedModuleFile | undefined> {
    const content = await this.readText(
      path,
      kind === 'psm1' ? 'the script module' : 'the module file',
      from,
    );
    if (content === undefined) return undefined;
    this.loaded.add(resolve(path));
    const document = readPowerShell(content);
    if (document.errors.length > 0) {
      this.diagnostics.push(
        ...createParseDiagnostics(path, document.errors, `the module file ${basename(path)}`),
      );
      this.failed = true;
      return undefined;
    }
    const result: LoadedModuleFile = { functions: [], dynamicExports: [] };
    const exports = await this.collectFunctions(path, content, document, result.functions, 0);
    if (kind === 'psm1' && exports.length > 0) {
      result.exportPatterns = exports.flatMap((exported) => exported.patterns);
      for (const exported of exports) {
        for (const text of exported.dynamic) {
          result.dynamicExports.push({ text, line: exported.line, path });
          this.markUnresolved(path, exported.line, `Export-ModuleMember -Function ${text}`);
        }
      }
    }
    return result;
  }

  /** The functions of a file and of the files it dot-sources, in load order; its exports. */
  private async collectFunctions(
    path: string,
    content: string,
    document: PowerShellDocument,
    into: LoadedFunction[],
    depth: number,
  ): Promise<ModuleScriptEffects['exports']> {
    for (const definition of document.classes) this.classes.push({ definition, path });
    for (const own of [...document.classes, ...document.enums])
      this.types.ownTypeNames.add(own.name.toLowerCase());
    if (readTypeContext(document.tokens).loadsTypes) this.types.loadsTypes = true;
    for (const fn of document.functions) {
      // A global: function leaves the module's scope: Import-Module never exports it.
      if (fn.topLevel && fn.global !== true) into.push({ fn, document, path });
    }
    for (const helper of findDotSourcingHelpers(document))
      this.scope.helpers.set(helper.name.toLowerCase(), helper);
    const wasTruncated = this.scope.truncated;
    const effects = await new ModuleScriptEvaluator(document, content, path, this.scope).evaluate();
    if (this.scope.truncated && !wasTruncated) {
      this.diagnostics.push(
        createFileDiagnostic(
          'error',
          'E_MODULE_FILE_LIMIT',
          `${basename(path)} lists more than ${MAX_LISTED_ENTRIES} files and folders with Get-ChildItem; Toolpack stopped there, so functions of the files past that point are missing.`,
          path,
          effects.loads.at(-1)?.line,
          "Point Get-ChildItem at the module's own function folders (not a folder with data or dependencies), or list the functions in the manifest's FunctionsToExport.",
        ),
      );
      this.markUnresolved(
        path,
        effects.loads.at(-1)?.line ?? 1,
        'Get-ChildItem past the listing limit',
      );
    }
    for (const gap of effects.gaps) this.markUnresolved(path, gap.line, gap.construct);
    if (depth >= MAX_DOT_SOURCE_DEPTH) {
      const [first] = effects.loads;
      if (first !== undefined)
        this.markUnresolved(
          path,
          first.line,
          `${first.construct} (dot-sourced more than ${MAX_DOT_SOURCE_DEPTH} files deep)`,
        );
      return effects.exports;
    }
    // Export-ModuleMember in a dot-sourced file acts on the module, as in the .psm1 itself.
    const exports = [...effects.exports];
    for (const load of effects.loads) {
      const target = resolve(load.path);
      if (this.loaded.has(target)) continue;
      exports.push(...(await this.loadDotSourced(target, { path, line: load.line }, into, depth)));
    }
    const gap = effects.gaps.find((entry) => entry.kind === 'dot-source');
    if (gap === undefined) return exports;
    // Without the engine, the nearest guess: every script of the module's folder.
    const directory = dirname(path);
    const files = await listScripts(directory, this.scope.budget);
    const pending = files.filter((file) => !this.loaded.has(resolve(file)));
    this.diagnostics.push(
      createFileDiagnostic(
        'info',
        'I_DYNAMIC_DOT_SOURCE',
        `${basename(path)} dot-sources files it finds when it runs (line ${gap.line}: ${gap.construct}); Toolpack read the ${pending.length} .ps1 file(s) under ${directory} instead.`,
        path,
        gap.line,
        "List the exported functions in the manifest's FunctionsToExport so only those become tools.",
      ),
    );
    for (const file of pending)
      exports.push(
        ...(await this.loadDotSourced(resolve(file), { path, line: gap.line }, into, depth)),
      );
    return exports;
  }

  private async loadDotSourced(
    target: string,
    from: { path: string; line: number },
    into: LoadedFunction[],
    depth: number,
  ): Promise<ModuleScriptEffects['exports']> {
    this.loaded.add(target);
    let content: string;
    try {
      content = await this.read(target);
    } catch {
      this.diagnostics.push(
        createFileDiagnostic(
          'warning',
          'W_DOT_SOURCE_MISSING',
          `The dot-sourced file ${target} cannot be read; its functions are not discovered.`,
          from.path,
          from.line,
        ),
      );
      return [];
    }
    const document = readPowerShell(content);
    if (document.errors.length > 0) {
      // PowerShell fails this one file (a try/catch around the dot-source, as modules write it,
      // goes on with the next): only its functions are lost, the rest of the module is served.
      const lost = document.functions.filter((fn) => fn.topLevel).map((fn) => fn.name);
      const what =
        lost.length === 0
          ? `the dot-sourced file ${basename(target)}`
          : `the dot-sourced file ${basename(target)}, so ${lost.join(', ')} ${lost.length === 1 ? 'is' : 'are'} not served`;
      this.diagnostics.push(...createParseDiagnostics(target, document.errors, what));
      return [];
    }
    return this.collectFunctions(target, content, document, into, depth + 1);
  }
}

/** `.ps1` files under `directory` (tests excluded): the guess for dot-sourcing the reader cannot follow. */
async function listScripts(directory: string, budget: { remaining: number }): Promise<string[]> {
  const found: string[] = [];
  const walk = async (folder: string, depth: number): Promise<void> => {
    if (depth > 5 || budget.remaining <= 0) return;
    let entries;
    try {
      entries = await readdir(folder, { withFileTypes: true });
    } catch {
      return;
    }
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const entry of entries) {
      if (budget.remaining <= 0) return;
      budget.remaining -= 1;
      const full = join(folder, entry.name);
      if (
        entry.isDirectory() &&
        !entry.name.startsWith('.') &&
        !/^(tests?|node_modules)$/i.test(entry.name)
      )
        await walk(full, depth + 1);
      else if (entry.isFile() && /\.ps1$/i.test(entry.name) && !/\.tests\.ps1$/i.test(entry.name))
        found.push(full);
    }
  };
  await walk(directory, 0);
  return found;
}

export async function findModuleFile(
  directory: string,
  name: string,
  read: (path: string) => Promise<string>,
): Promise<string | undefined> {
  const base = resolve(directory, name.replace(/\\/g, '/'));
  const candidates =
    extname(base) === '' ? ['.psm1', '.ps1', '.dll'].map((ext) => base + ext) : [base];
  for (const candidate of candidates) {
    try {
      // Binary modules are never read as text: only their presence matters.
      if (/\.(dll|exe)$/i.test(candidate)) await access(candidate);
      else await read(candidate);
      return candidate;
    } catch {
      continue;
    }
  }
  return undefined;
}

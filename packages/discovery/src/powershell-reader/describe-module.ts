import { access, readdir, readFile } from 'node:fs/promises';
import { basename, dirname, extname, join, resolve } from 'node:path';
import { createDiagnostic, ToolpackError } from '@toolpack/core';
import type { Diagnostic, DiscoveredTool } from '@toolpack/core';
import type { SourceResult } from '../types.ts';
import { findFunctionHelp } from './comment-help.ts';
import { evaluateConstant } from './constant-value.ts';
import type { ConstantResult } from './constant-value.ts';
import { createParseDiagnostics, describeCommand } from './describe-command.ts';
import { readPowerShell } from './reader.ts';
import type { PowerShellDocument, PsFunction } from './reader.ts';
import type { Token } from './tokenizer.ts';
import { hasWildcard, matchesAnyWildcard } from './wildcard.ts';

export interface PowerShellManifest {
  /** `RootModule`, or the older `ModuleToProcess`. */
  rootModule?: string;
  /** File names of nested modules (`ModuleName` of hashtable entries). */
  nestedModules: string[];
  /** Names and wildcards; undefined when the manifest does not say (then: all the modules export). */
  functionsToExport?: string[];
  /** 1-based line of each key, lower-cased. */
  lines: Record<string, number>;
}

export interface DescribeModuleInput {
  /** A `.psd1` manifest or a `.psm1` script module. */
  path: string;
  /** Reads a module file as text; `node:fs/promises` by default. */
  readFile?: (path: string) => Promise<string>;
}

/** Files a run-time dot-sourcing loop might load: read at most this many. */
const MAX_SCANNED_FILES = 500;
const MAX_DOT_SOURCE_DEPTH = 4;

function diagnostic(
  severity: Diagnostic['severity'],
  code: Diagnostic['code'],
  message: string,
  path: string,
  line?: number,
  hint?: string,
): Diagnostic {
  return createDiagnostic(
    severity,
    code,
    message,
    { path, ...(line === undefined ? {} : { line }) },
    hint,
  );
}

/**
 * Reads a module manifest (`.psd1`) with the PowerShell grammar, never by running it. Only
 * the keys discovery needs are checked; a problem with one becomes an error diagnostic.
 */
export function parsePowerShellManifest(input: { path: string; content: string }): {
  manifest?: PowerShellManifest;
  diagnostics: Diagnostic[];
} {
  const document = readPowerShell(input.content);
  if (document.errors.length > 0) {
    return {
      diagnostics: createParseDiagnostics(input.path, document.errors, 'the module manifest'),
    };
  }
  const tokens = document.tokens;
  const first = nextSignificant(tokens, 0);
  const open = tokens[first] as Token;
  const after = open.match === undefined ? first : nextSignificant(tokens, open.match + 1);
  if (
    open.kind !== 'open' ||
    open.text !== '@{' ||
    open.match === undefined ||
    (tokens[after] as Token).kind !== 'end'
  ) {
    return {
      diagnostics: [
        diagnostic(
          'error',
          'E_MANIFEST',
          'The module manifest must contain exactly one hashtable: @{ RootModule = ...; FunctionsToExport = ... }.',
          input.path,
          open.line,
        ),
      ],
    };
  }
  const diagnostics: Diagnostic[] = [];
  const entries = readHashtableEntries(tokens, first, open.match);
  const manifest: PowerShellManifest = { nestedModules: [], lines: {} };
  for (const entry of entries) manifest.lines[entry.key] = entry.line;
  const get = (key: string) => entries.find((entry) => entry.key === key);
  if (get('moduleversion') === undefined) {
    diagnostics.push(
      diagnostic(
        'error',
        'E_MANIFEST',
        'The module manifest has no ModuleVersion, and PowerShell refuses to import a manifest without one.',
        input.path,
        open.line,
        "Add ModuleVersion = '1.0.0' to the manifest.",
      ),
    );
  }
  const notConstant = (key: string, line: number) =>
    diagnostics.push(
      diagnostic(
        'error',
        'E_MANIFEST',
        `The manifest key ${key} must be a literal value (strings, @() arrays or @{} hashtables).`,
        input.path,
        line,
        'Module manifests may not compute values; write them out.',
      ),
    );

  const root = get('rootmodule') ?? get('moduletoprocess');
  if (root !== undefined) {
    if (!root.value.constant) notConstant(root.name, root.line);
    else if (typeof root.value.value === 'string' && root.value.value !== '')
      manifest.rootModule = root.value.value;
  }
  const nested = get('nestedmodules');
  if (nested !== undefined) {
    if (!nested.value.constant) notConstant(nested.name, nested.line);
    else {
      const items = Array.isArray(nested.value.value) ? nested.value.value : [nested.value.value];
      for (const item of items) {
        if (typeof item === 'string' && item !== '') manifest.nestedModules.push(item);
        else if (typeof item === 'object' && item !== null) {
          const name = Object.entries(item).find(
            ([key]) => key.toLowerCase() === 'modulename',
          )?.[1];
          if (typeof name === 'string') manifest.nestedModules.push(name);
        }
      }
    }
  }
  const functions = get('functionstoexport');
  if (functions !== undefined) {
    if (!functions.value.constant) notConstant(functions.name, functions.line);
    else {
      const value = functions.value.value;
      if (value === null) {
        // `$null` is the same as leaving the key out.
      } else if (typeof value === 'string')
        manifest.functionsToExport = value === '' ? [] : [value];
      else if (Array.isArray(value) && value.every((item) => typeof item === 'string'))
        manifest.functionsToExport = value.filter((item) => item !== '');
      else notConstant(functions.name, functions.line);
    }
  }
  return { manifest, diagnostics };
}

function nextSignificant(tokens: readonly Token[], index: number): number {
  let i = index;
  while (
    i < tokens.length - 1 &&
    ((tokens[i] as Token).kind === 'comment' || (tokens[i] as Token).kind === 'newline')
  )
    i++;
  return i;
}

interface HashtableEntry {
  key: string;
  name: string;
  value: ConstantResult;
  line: number;
}

/** The `key = value` entries of the hashtable between `open` and `close`, each value evaluated on its own. */
function readHashtableEntries(
  tokens: readonly Token[],
  open: number,
  close: number,
): HashtableEntry[] {
  const entries: HashtableEntry[] = [];
  let i = open + 1;
  while (i < close) {
    const token = tokens[i] as Token;
    if (token.kind === 'newline' || token.kind === 'semicolon' || token.kind === 'comment') {
      i++;
      continue;
    }
    const equals = nextSignificant(tokens, i + 1);
    if (
      (token.kind !== 'word' && token.kind !== 'string') ||
      (tokens[equals] as Token).kind !== 'equals'
    ) {
      i = skipStatement(tokens, i, close);
      continue;
    }
    const name = token.kind === 'string' ? (token.value ?? '') : token.text;
    const start = nextSignificant(tokens, equals + 1);
    const end = skipStatement(tokens, start, close);
    entries.push({
      key: name.toLowerCase(),
      name,
      value: evaluateConstant(tokens, start, end),
      line: token.line,
    });
    i = end;
  }
  return entries;
}

/** The end of the statement starting at `start`: a line break (unless after a comma) or `;`. */
function skipStatement(tokens: readonly Token[], start: number, close: number): number {
  let last: Token | undefined;
  let i = start;
  while (i < close) {
    const token = tokens[i] as Token;
    if (token.kind === 'open' && token.match !== undefined && token.match < close) {
      last = tokens[token.match];
      i = token.match + 1;
      continue;
    }
    if (token.kind === 'semicolon' || (token.kind === 'newline' && last?.kind !== 'comma'))
      return i;
    if (token.kind !== 'comment' && token.kind !== 'newline') last = token;
    i++;
  }
  return close;
}

interface LoadedFunction {
  fn: PsFunction;
  document: PowerShellDocument;
  path: string;
}

interface LoadedModuleFile {
  functions: LoadedFunction[];
  /** Undefined: every function is exported (no `Export-ModuleMember`). */
  exportPatterns?: string[];
  dynamicExports: Array<{ text: string; line: number; path: string }>;
}

class ModuleLoader {
  readonly diagnostics: Diagnostic[] = [];
  /** A file failed to parse or could not be read: PowerShell would not import the module. */
  failed = false;
  private readonly read: (path: string) => Promise<string>;
  private readonly loaded = new Set<string>();

  constructor(read: (path: string) => Promise<string>) {
    this.read = read;
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
        diagnostic(
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
    await this.collectFunctions(path, document, result.functions, 0);
    if (kind === 'psm1' && document.exports.length > 0) {
      result.exportPatterns = document.exports.flatMap((exported) => exported.patterns);
      for (const exported of document.exports) {
        for (const text of exported.dynamic)
          result.dynamicExports.push({ text, line: exported.line, path });
      }
    }
    return result;
  }

  private async collectFunctions(
    path: string,
    document: PowerShellDocument,
    into: LoadedFunction[],
    depth: number,
  ): Promise<void> {
    for (const fn of document.functions) {
      // A global: function leaves the module's scope: Import-Module never exports it.
      if (fn.topLevel && fn.global !== true) into.push({ fn, document, path });
    }
    if (depth >= MAX_DOT_SOURCE_DEPTH) return;
    const directory = dirname(path);
    let dynamicLine: number | undefined;
    for (const dotSource of document.dotSources) {
      if (dotSource.path === undefined) {
        dynamicLine ??= dotSource.line;
        continue;
      }
      const target = resolve(
        directory,
        dotSource.path.replace(/\$PSScriptRoot/gi, directory).replace(/\\/g, '/'),
      );
      if (this.loaded.has(target)) continue;
      await this.loadDotSourced(target, { path, line: dotSource.line }, into, depth);
    }
    if (dynamicLine === undefined) return;
    const files = await listScripts(directory);
    const pending = files.filter((file) => !this.loaded.has(resolve(file)));
    this.diagnostics.push(
      diagnostic(
        'info',
        'I_DYNAMIC_DOT_SOURCE',
        `${basename(path)} dot-sources files it finds when it runs (line ${dynamicLine}); Toolpack read the ${pending.length} .ps1 file(s) under ${directory} instead.`,
        path,
        dynamicLine,
        "List the exported functions in the manifest's FunctionsToExport so only those become tools.",
      ),
    );
    for (const file of pending)
      await this.loadDotSourced(resolve(file), { path, line: dynamicLine }, into, depth);
  }

  private async loadDotSourced(
    target: string,
    from: { path: string; line: number },
    into: LoadedFunction[],
    depth: number,
  ): Promise<void> {
    this.loaded.add(target);
    let content: string;
    try {
      content = await this.read(target);
    } catch {
      this.diagnostics.push(
        diagnostic(
          'warning',
          'W_DOT_SOURCE_MISSING',
          `The dot-sourced file ${target} cannot be read; its functions are not discovered.`,
          from.path,
          from.line,
        ),
      );
      return;
    }
    const document = readPowerShell(content);
    if (document.errors.length > 0) {
      this.diagnostics.push(
        ...createParseDiagnostics(
          target,
          document.errors,
          `the dot-sourced file ${basename(target)}`,
        ),
      );
      this.failed = true;
      return;
    }
    await this.collectFunctions(target, document, into, depth + 1);
  }
}

/** `.ps1` files under `directory` (tests excluded), for modules that dot-source what they find at run time. */
async function listScripts(directory: string): Promise<string[]> {
  const found: string[] = [];
  const walk = async (folder: string, depth: number): Promise<void> => {
    if (depth > 5 || found.length >= MAX_SCANNED_FILES) return;
    let entries;
    try {
      entries = await readdir(folder, { withFileTypes: true });
    } catch {
      return;
    }
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const entry of entries) {
      if (found.length >= MAX_SCANNED_FILES) return;
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

async function findModuleFile(
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

/**
 * The tools of a PowerShell module: one per exported function (the manifest's
 * `FunctionsToExport`, the module's `Export-ModuleMember`, or every top-level function),
 * each described by its comment-based help and param block. Files are read, never run.
 */
export async function describePowerShellModule(input: DescribeModuleInput): Promise<SourceResult> {
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
  let manifest: PowerShellManifest | undefined;

  if (extension === '.psd1') {
    const content = await loader.readText(input.path, 'the module manifest');
    if (content === undefined) return { tools: [], diagnostics };
    const parsed = parsePowerShellManifest({ path: input.path, content });
    diagnostics.push(...parsed.diagnostics);
    if (parsed.manifest === undefined || parsed.diagnostics.some((d) => d.severity === 'error'))
      return { tools: [], diagnostics };
    manifest = parsed.manifest;
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
            diagnostic(
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
          diagnostic(
            'error',
            part.nested ? 'E_NESTED_MODULE_MISSING' : 'E_ROOT_MODULE_MISSING',
            `The manifest names ${part.nested ? 'the nested module' : 'RootModule'} ${JSON.stringify(part.name)}, but no such file exists next to it.`,
            input.path,
            line,
            'Fix the file name in the manifest; paths are relative to the .psd1 file.',
          ),
        );
        return { tools: [], diagnostics };
      }
      const fileExtension = extname(file).toLowerCase();
      if (fileExtension === '.psm1' || fileExtension === '.ps1') {
        const loaded = await loader.loadScriptFile(
          file,
          fileExtension === '.psm1' ? 'psm1' : 'ps1',
          line === undefined ? undefined : { path: input.path, line },
        );
        if (loaded !== undefined) moduleFiles.push(loaded);
      } else {
        diagnostics.push(
          diagnostic(
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
  if (loader.failed) return { tools: [], diagnostics };

  const exported = selectExports(input.path, moduleFiles, manifest, diagnostics);
  const tools: DiscoveredTool[] = [];
  for (const { fn, document, path } of exported) {
    const what = `the function ${fn.name}`;
    const parameters = fn.paramBlock?.parameters ?? fn.shortParameters?.parameters ?? [];
    const described = describeCommand({
      document,
      path,
      sourceKind: 'ps-module',
      originalName: fn.name,
      what,
      line: fn.line,
      help: findFunctionHelp(document, fn),
      parameters,
      blockAttributes: fn.paramBlock?.attributes ?? [],
      invocation: { runner: 'pwsh', mode: 'module', modulePath: input.path, functionName: fn.name },
      helpHint: `Put <# .SYNOPSIS (next line) One sentence about what it does. #> right before "function ${fn.name}" or first inside its body.`,
    });
    diagnostics.push(...described.diagnostics);
    if (described.tool !== undefined) tools.push(described.tool);
  }
  if (exported.length === 0 && !diagnostics.some((d) => d.severity === 'error')) {
    diagnostics.push(
      diagnostic(
        'warning',
        'W_NO_FUNCTIONS',
        `The module ${basename(input.path)} exports no functions, so it provides no tools.`,
        input.path,
      ),
    );
  }
  return { tools, diagnostics };
}

/** Applies PowerShell's export rules: each file's `Export-ModuleMember` (or all), then the manifest filter. */
function selectExports(
  modulePath: string,
  files: readonly LoadedModuleFile[],
  manifest: PowerShellManifest | undefined,
  diagnostics: Diagnostic[],
): LoadedFunction[] {
  const defined = new Map<string, LoadedFunction>();
  const exported = new Map<string, LoadedFunction>();
  const dynamic = files.flatMap((file) => file.dynamicExports);
  for (const file of files) {
    for (const loaded of file.functions) {
      const key = loaded.fn.name.toLowerCase();
      // A later definition replaces an earlier one, as it does when PowerShell runs the files.
      defined.delete(key);
      defined.set(key, loaded);
      if (
        file.exportPatterns === undefined ||
        matchesAnyWildcard(loaded.fn.name, file.exportPatterns)
      ) {
        exported.delete(key);
        exported.set(key, loaded);
      }
    }
  }
  const listed = manifest?.functionsToExport;
  let result: LoadedFunction[];
  if (listed !== undefined && !(dynamic.length > 0 && listed.includes('*'))) {
    // With run-time exports the manifest is the only reliable list, so it picks from every definition.
    const pool = dynamic.length > 0 ? defined : exported;
    result = [...pool.values()].filter((loaded) => matchesAnyWildcard(loaded.fn.name, listed));
    for (const name of listed) {
      if (hasWildcard(name) || defined.has(name.toLowerCase())) continue;
      diagnostics.push(
        diagnostic(
          'warning',
          'W_FUNCTION_NOT_FOUND',
          `FunctionsToExport lists ${name}, but no file of the module defines it.`,
          modulePath,
          manifest?.lines.functionstoexport,
          'Fix the name, or define the function in the root module or a file it dot-sources.',
        ),
      );
    }
  } else {
    result = [...exported.values()];
    for (const entry of dynamic) {
      diagnostics.push(
        diagnostic(
          'error',
          'E_DYNAMIC_EXPORTS',
          `Export-ModuleMember exports ${entry.text}, which is only known when the module runs; Toolpack reads modules without running them.`,
          entry.path,
          entry.line,
          "List the exported functions by name in the manifest's FunctionsToExport (or pass literal names to Export-ModuleMember).",
        ),
      );
    }
  }
  return result;
}

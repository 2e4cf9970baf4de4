import { readFile } from 'node:fs/promises';
import { basename, dirname, relative } from 'node:path';
import type { Diagnostic, DiscoveredTool } from '@toolpack/core';
import { listModuleFiles } from '../cache/list-module-files.ts';
import type { SourceResult } from '../types.ts';
import { createParseDiagnostics } from './describe-command.ts';
import { describeModuleFunction } from './describe-module.ts';
import { ExternalHelpFinder } from './find-external-help.ts';
import type { EngineAnswer } from './engine-exports.ts';
import { createFileDiagnostic } from './file-diagnostic.ts';
import type { ModuleLoader, StaticReadingGap } from './module-loader.ts';
import { readPowerShell } from './reader.ts';
import type { PowerShellDocument } from './reader.ts';

/**
 * What the static reading said that the engine's answer replaces: its guesses at run-time
 * exports and dot-sources, and its conclusions from them.
 */
const SUPERSEDED_BY_ENGINE = new Set<string>([
  'E_DYNAMIC_EXPORTS',
  'I_DYNAMIC_DOT_SOURCE',
  'W_FUNCTION_NOT_FOUND',
  'W_NO_FUNCTIONS',
  'E_MODULE_NO_TOOLS',
]);

export interface DescribeEngineExportsInput {
  /** The `.psd1`/`.psm1` the tools import. */
  modulePath: string;
  answer: EngineAnswer;
  /** What the static reading could not follow: said in the info line. */
  unresolved: readonly StaticReadingGap[];
  /** The static reading's diagnostics about the module itself. */
  moduleDiagnostics: readonly Diagnostic[];
  /** Where paths in messages are relative to (the project root). */
  cwd: string;
  readFile?: (path: string) => Promise<string>;
}

/**
 * The module's tools from the engine's answer: each exported function described from its own
 * definition, in the file and at the line pwsh says, by the static reader's one description
 * (describeModuleFunction). A function with no definition in a file is refused.
 */
export async function describeEngineExports(
  input: DescribeEngineExportsInput,
): Promise<SourceResult> {
  const read = input.readFile ?? ((path: string) => readFile(path, 'utf8'));
  const { answer, modulePath } = input;
  const diagnostics: Diagnostic[] = input.moduleDiagnostics.filter(
    (diagnostic) => !SUPERSEDED_BY_ENGINE.has(diagnostic.code),
  );
  const first = input.unresolved[0];
  diagnostics.unshift(
    createFileDiagnostic(
      'info',
      'I_ENGINE_EXPORTS',
      `PowerShell ${answer.version} imported ${basename(modulePath)} to learn what it exports, which its files alone do not tell${first === undefined ? '' : ` (${first.construct}, ${relative(input.cwd, first.path)}:${first.line}${input.unresolved.length > 1 ? `, and ${input.unresolved.length - 1} more` : ''})`}: ${answer.exports.length} function(s). The answer is cached until a file of the module changes.`,
      modulePath,
    ),
  );

  const documents = new Map<string, PowerShellDocument | undefined>();
  const classes: ModuleLoader['classes'] = [];
  const externalHelp = new ExternalHelpFinder({ modulePath });
  const readDocument = async (file: string): Promise<PowerShellDocument | undefined> => {
    if (documents.has(file)) return documents.get(file);
    let document: PowerShellDocument | undefined;
    try {
      document = readPowerShell(await read(file));
    } catch (error) {
      diagnostics.push(
        createFileDiagnostic(
          'error',
          'E_MODULE_FILE',
          `Cannot read ${file}, where pwsh found exported functions: ${(error as Error).message}.`,
          file,
        ),
      );
    }
    if (document !== undefined && document.errors.length > 0) {
      diagnostics.push(
        ...createParseDiagnostics(file, document.errors, `the module file ${basename(file)}`),
      );
      document = undefined;
    }
    if (document !== undefined)
      for (const definition of document.classes) classes.push({ definition, path: file });
    documents.set(file, document);
    return document;
  };
  // Classes first: an output type may name a class of any file the module loaded.
  for (const file of answer.files) if (/\.(ps1|psm1)$/i.test(file)) await readDocument(file);

  // In the order the files would be read: by file, then line (never by the locale's collation).
  const order = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
  const exports = [...answer.exports].sort(
    (a, b) =>
      order(a.file ?? '\uffff', b.file ?? '\uffff') ||
      (a.line ?? 0) - (b.line ?? 0) ||
      order(a.name, b.name),
  );
  const tools: DiscoveredTool[] = [];
  const textDefinitions = new TextDefinitions(dirname(modulePath), read);
  let fromText = 0;
  let firstFromText: { name: string; file: string; line: number } | undefined;
  for (const found of exports) {
    let exported = found;
    // A module that loads its files as text (PSFramework's Import-ModuleFile does
    // [scriptblock]::Create(ReadAllText(...))) makes functions pwsh knows no file of: the
    // one function statement of that name among the module's files is their definition.
    if (exported.file === undefined && exported.kind === 'function') {
      const definitions = await textDefinitions.find(exported.name);
      if (definitions.length === 1) {
        exported = { ...exported, ...definitions[0] };
        fromText += 1;
        firstFromText ??= { name: exported.name, ...definitions[0]! };
      } else if (definitions.length > 1) {
        diagnostics.push(
          createFileDiagnostic(
            'error',
            'E_RUNTIME_FUNCTION',
            `${basename(modulePath)} exports ${exported.name}, which it makes from text at run time, and ${definitions.length} files of the module define a function of that name (${definitions.map((d) => `${relative(input.cwd, d.file)}:${d.line}`).join(', ')}): Toolpack cannot tell which one pwsh loaded.`,
            definitions[0]!.file,
            definitions[0]!.line,
            `Keep one definition of ${exported.name} in the module's files.`,
          ),
        );
        continue;
      }
    }
    if (exported.file === undefined || exported.kind !== 'function') {
      diagnostics.push(
        createFileDiagnostic(
          'error',
          'E_RUNTIME_FUNCTION',
          exported.file === undefined
            ? `${basename(modulePath)} exports ${exported.name}, which it makes at run time: no file defines it, so there is no param block or help to describe it from.`
            : `${basename(modulePath)} exports ${exported.name}, which it makes from a script block at ${relative(input.cwd, exported.file)}:${exported.line ?? '?'}, not with a function statement: Toolpack describes functions from their definition.`,
          exported.file ?? modulePath,
          exported.file === undefined ? undefined : exported.line,
          `Define it in a file of the module: function ${exported.name} { <# .SYNOPSIS ... #> param(...) ... }.`,
        ),
      );
      continue;
    }
    const document = await readDocument(exported.file);
    if (document === undefined) continue;
    const lower = exported.name.toLowerCase();
    const fn =
      document.functions.find(
        (candidate) => candidate.line === exported.line && candidate.name.toLowerCase() === lower,
      ) ?? document.functions.find((candidate) => candidate.line === exported.line);
    if (fn === undefined) {
      diagnostics.push(
        createFileDiagnostic(
          'error',
          'E_RUNTIME_FUNCTION',
          `pwsh says ${basename(modulePath)} exports ${exported.name} from this line, but no function statement starts there.`,
          exported.file,
          exported.line,
        ),
      );
      continue;
    }
    // Exported under the engine's name, which is the name callers use.
    const loaded = {
      fn: fn.name === exported.name ? fn : { ...fn, name: exported.name },
      document,
      path: exported.file,
    };
    const described = describeModuleFunction(
      loaded,
      modulePath,
      classes,
      await externalHelp.findFunctionHelp(loaded),
      exported.facts,
    );
    diagnostics.push(...described.diagnostics);
    if (described.tool !== undefined) tools.push(described.tool);
  }
  diagnostics.push(...externalHelp.diagnostics);
  if (firstFromText !== undefined) {
    diagnostics.push(
      createFileDiagnostic(
        'info',
        'I_ENGINE_EXPORTS',
        `${basename(modulePath)} makes ${fromText} of its exported function(s) from its files' text at run time, so pwsh knows no file of them; each was described from the one function statement of its name in the module's files (${firstFromText.name} at ${relative(input.cwd, firstFromText.file)}:${firstFromText.line}${fromText > 1 ? ', and the rest' : ''}).`,
        modulePath,
      ),
    );
  }
  if (answer.exports.length === 0) {
    diagnostics.push(
      createFileDiagnostic(
        'warning',
        'W_NO_FUNCTIONS',
        `pwsh imported ${basename(modulePath)}, and it exports no functions, so it provides no tools.`,
        modulePath,
      ),
    );
  }
  return { tools, diagnostics };
}

/** The top-level function statements of a module's files, by lower-cased name, read once on first need. */
class TextDefinitions {
  private index: Map<string, Array<{ file: string; line: number }>> | undefined;

  private readonly folder: string;
  private readonly read: (path: string) => Promise<string>;

  constructor(folder: string, read: (path: string) => Promise<string>) {
    this.folder = folder;
    this.read = read;
  }

  async find(name: string): Promise<Array<{ file: string; line: number }>> {
    this.index ??= await this.build();
    return this.index.get(name.toLowerCase()) ?? [];
  }

  private async build(): Promise<Map<string, Array<{ file: string; line: number }>>> {
    const index = new Map<string, Array<{ file: string; line: number }>>();
    for (const file of listModuleFiles(this.folder) ?? []) {
      if (!/\.(ps1|psm1)$/i.test(file)) continue;
      let document: PowerShellDocument;
      try {
        document = readPowerShell(await this.read(file));
      } catch {
        continue;
      }
      // A file that does not parse cannot have been made into a script block.
      if (document.errors.length > 0) continue;
      for (const fn of document.functions) {
        if (!fn.topLevel || fn.global === true) continue;
        const key = fn.name.toLowerCase();
        const list = index.get(key) ?? [];
        list.push({ file, line: fn.line });
        index.set(key, list);
      }
    }
    return index;
  }
}

import type { Diagnostic } from '@toolpack/core';
import { evaluateConstant } from './constant-value.ts';
import type { ConstantResult } from './constant-value.ts';
import { createParseDiagnostics } from './describe-command.ts';
import { readPowerShell } from './reader.ts';
import type { Token } from './tokenizer.ts';
import { createFileDiagnostic } from './file-diagnostic.ts';

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
        createFileDiagnostic(
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
      createFileDiagnostic(
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
      createFileDiagnostic(
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

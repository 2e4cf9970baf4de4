import { LineCounter, isMap, isPair, isScalar, isSeq, parseDocument } from 'yaml';
import type { Document, Node } from 'yaml';
import { createDiagnostic } from '@toolpack/core';
import type { Diagnostic } from '@toolpack/core';

/** A parsed YAML (or JSON) file that can say on which line any of its values is. */
export interface LocatedDocument {
  /** The plain value; undefined when the file could not be read as YAML. */
  value: unknown;
  /** Syntax errors, each with its line. */
  diagnostics: Diagnostic[];
  /**
   * The 1-based line of the value at `path` (keys and indexes), or of its nearest parent
   * that exists. A key's own line is preferred over its value's, which may start later.
   */
  lineOf(path: readonly (string | number)[]): number | undefined;
}

/**
 * Parses YAML 1.2 with line numbers. JSON is read the same way (it is YAML), so `.json`
 * metadata gets lines too. Duplicate keys are errors, aliases are capped so a hostile file
 * cannot expand without end.
 */
export function parseLocatedDocument(content: string, path: string): LocatedDocument {
  const lineCounter = new LineCounter();
  let document: Document.Parsed | undefined;
  const diagnostics: Diagnostic[] = [];
  try {
    document = parseDocument(content, { lineCounter, uniqueKeys: true, prettyErrors: true });
  } catch (error) {
    diagnostics.push(syntaxDiagnostic(path, `cannot be read as YAML: ${(error as Error).message}`));
    return { value: undefined, diagnostics, lineOf: () => undefined };
  }
  const doc = document;
  for (const error of doc.errors) {
    const line = error.linePos?.[0]?.line ?? lineCounter.linePos(error.pos[0]).line;
    const message = (error.message.split('\n')[0] ?? error.message).replace(
      / at line \d+, column \d+:?$/,
      '',
    );
    diagnostics.push(syntaxDiagnostic(path, `is not valid YAML: ${message}.`, line));
  }
  const lineAt = (offset: number): number => lineCounter.linePos(offset).line;
  const lineOf = (segments: readonly (string | number)[]): number | undefined => {
    let node: unknown = doc.contents;
    let line = rangeLine(node, lineAt);
    for (const segment of segments) {
      if (isMap(node)) {
        const pair = node.items.find(
          (item) =>
            isPair(item) && isScalar(item.key) && String(item.key.value) === String(segment),
        );
        if (pair === undefined) return line;
        line = rangeLine(pair.key, lineAt) ?? rangeLine(pair.value, lineAt) ?? line;
        node = pair.value;
      } else if (isSeq(node) && typeof segment === 'number') {
        const item = node.items[segment];
        if (item === undefined) return line;
        line = rangeLine(item, lineAt) ?? line;
        node = item;
      } else {
        return line;
      }
    }
    return line;
  };
  if (diagnostics.length > 0) return { value: undefined, diagnostics, lineOf };
  let value: unknown;
  try {
    value = doc.toJS({ maxAliasCount: 100 });
  } catch (error) {
    diagnostics.push(syntaxDiagnostic(path, `cannot be read: ${(error as Error).message}.`));
    return { value: undefined, diagnostics, lineOf };
  }
  return { value, diagnostics, lineOf };
}

function rangeLine(node: unknown, lineAt: (offset: number) => number): number | undefined {
  const range = (node as Node | null | undefined)?.range;
  return range === undefined || range === null ? undefined : lineAt(range[0]);
}

function syntaxDiagnostic(path: string, message: string, line?: number): Diagnostic {
  return createDiagnostic(
    'error',
    'E_YAML_SYNTAX',
    `${path.split(/[\\/]/).pop() ?? path} ${message}`,
    line === undefined ? { path } : { path, line },
    'Fix the syntax at that line; YAML indents with spaces, never tabs.',
  );
}

import { LineCounter, isMap, isPair, isScalar, isSeq, parseDocument } from 'yaml';
import type { Document, Node } from 'yaml';

/** A YAML file read with the line of every value, for diagnostics that point at it. */
export interface LocatedYaml {
  /** The plain value; undefined when the text is not YAML. */
  value: unknown;
  /** Syntax problems: message and 1-based line. */
  errors: { message: string; line?: number }[];
  /** The line of the value at `path`, or of its nearest parent that exists. */
  lineOf(path: readonly PropertyKey[]): number | undefined;
  /** The keys of the mapping at `path` with their lines (for unknown-key warnings). */
  keysOf(path: readonly PropertyKey[]): { key: string; line?: number }[];
}

export function parseLocatedYaml(text: string): LocatedYaml {
  const lineCounter = new LineCounter();
  let document: Document.Parsed;
  try {
    document = parseDocument(text, { lineCounter, uniqueKeys: true, prettyErrors: true });
  } catch (error) {
    return {
      value: undefined,
      errors: [{ message: (error as Error).message }],
      lineOf: () => undefined,
      keysOf: () => [],
    };
  }
  const lineAt = (node: unknown): number | undefined => {
    const range = (node as Node | null | undefined)?.range;
    return range === undefined || range === null ? undefined : lineCounter.linePos(range[0]).line;
  };
  const walk = (path: readonly PropertyKey[]): { node: unknown; line: number | undefined } => {
    let node: unknown = document.contents;
    let line = lineAt(node);
    for (const segment of path) {
      if (isMap(node)) {
        const pair = node.items.find(
          (item) =>
            isPair(item) && isScalar(item.key) && String(item.key.value) === String(segment),
        );
        if (pair === undefined) return { node: undefined, line };
        line = lineAt(pair.key) ?? lineAt(pair.value) ?? line;
        node = pair.value;
      } else if (isSeq(node) && typeof segment === 'number') {
        const item = node.items[segment];
        if (item === undefined) return { node: undefined, line };
        line = lineAt(item) ?? line;
        node = item;
      } else {
        return { node: undefined, line };
      }
    }
    return { node, line };
  };
  const lineOf = (path: readonly PropertyKey[]) => walk(path).line;
  const keysOf = (path: readonly PropertyKey[]) => {
    const { node } = walk(path);
    if (!isMap(node)) return [];
    return node.items.flatMap((item) =>
      isPair(item) && isScalar(item.key)
        ? [
            {
              key: String(item.key.value),
              ...(lineAt(item.key) === undefined ? {} : { line: lineAt(item.key) }),
            },
          ]
        : [],
    );
  };
  const errors = document.errors.map((error) => {
    const line = error.linePos?.[0]?.line ?? lineCounter.linePos(error.pos[0]).line;
    const message = (error.message.split('\n')[0] ?? error.message).replace(
      / at line \d+, column \d+:?$/,
      '',
    );
    return { message, line };
  });
  if (errors.length > 0) return { value: undefined, errors, lineOf, keysOf };
  try {
    // Aliases are capped so a hostile file (a registry's pack) cannot expand without end.
    return { value: document.toJS({ maxAliasCount: 100 }), errors, lineOf, keysOf };
  } catch (error) {
    return { value: undefined, errors: [{ message: (error as Error).message }], lineOf, keysOf };
  }
}

import { createRequire } from 'node:module';
import type * as Yaml from 'yaml';
import type { Document, Node } from 'yaml';

// Required on the first parse, not with @toolpack/core: yaml's 72 files (~8 ms) are loaded by
// every command otherwise, and a start that reads no YAML (scripts given as flags) needs none.
// yaml's Node build is CommonJS, so this is the very module an `import` of it would give.
const require = createRequire(import.meta.url);
let yaml: typeof Yaml | undefined;
const loadYaml = (): typeof Yaml => (yaml ??= require('yaml') as typeof Yaml);

/**
 * Why a YAML text could not be read: `unreadable` when the parser itself threw, `syntax` for
 * each syntax error (with its line), `unconvertible` when the document could not become a
 * plain value (too many aliases, for one).
 */
export type YamlProblemKind = 'unreadable' | 'syntax' | 'unconvertible';

export interface YamlProblem {
  kind: YamlProblemKind;
  /** The parser's message, on one line and without its own "at line N, column M". */
  message: string;
  /** 1-based. */
  line?: number;
}

/** A YAML (or JSON) text read with the line of every value, for diagnostics that point at it. */
export interface LocatedYaml {
  /** The plain value; undefined when there are problems. */
  value: unknown;
  problems: YamlProblem[];
  /**
   * The 1-based line of the value at `path` (keys and indexes), or of its nearest parent
   * that exists. A key's own line is preferred over its value's, which may start later.
   */
  lineOf(path: readonly PropertyKey[]): number | undefined;
  /** The keys of the mapping at `path` with their lines (for unknown-key warnings). */
  keysOf(path: readonly PropertyKey[]): { key: string; line?: number }[];
}

/**
 * Parses YAML 1.2 with line numbers. JSON is read the same way (it is YAML), so JSON files
 * get lines too. Duplicate keys are errors, and aliases are capped so a hostile file (a
 * registry's pack, a downloaded tool) cannot expand without end.
 */
export function parseLocatedYaml(text: string): LocatedYaml {
  const lineCounter = new (loadYaml().LineCounter)();
  let document: Document.Parsed;
  try {
    document = loadYaml().parseDocument(text, {
      lineCounter,
      uniqueKeys: true,
      prettyErrors: true,
    });
  } catch (error) {
    return {
      value: undefined,
      problems: [{ kind: 'unreadable', message: (error as Error).message }],
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
      if (loadYaml().isMap(node)) {
        const pair = node.items.find(
          (item) =>
            loadYaml().isPair(item) &&
            loadYaml().isScalar(item.key) &&
            String(item.key.value) === String(segment),
        );
        if (pair === undefined) return { node: undefined, line };
        line = lineAt(pair.key) ?? lineAt(pair.value) ?? line;
        node = pair.value;
      } else if (loadYaml().isSeq(node) && typeof segment === 'number') {
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
    if (!loadYaml().isMap(node)) return [];
    return node.items.flatMap((item) => {
      if (!loadYaml().isPair(item) || !loadYaml().isScalar(item.key)) return [];
      const line = lineAt(item.key);
      return [{ key: String(item.key.value), ...(line === undefined ? {} : { line }) }];
    });
  };
  const problems = document.errors.map((error): YamlProblem => {
    const line = error.linePos?.[0]?.line ?? lineCounter.linePos(error.pos[0]).line;
    const message = (error.message.split('\n')[0] ?? error.message).replace(
      / at line \d+, column \d+:?$/,
      '',
    );
    return { kind: 'syntax', message, line };
  });
  // A key that is itself a mapping or a list (`? [a, b]: x`, or a JSON object missing a quote
  // read as YAML) has no plain-object form: yaml would stringify it and print a process warning
  // on the user's terminal. It is refused here, with its line, like any other syntax error.
  loadYaml().visit(document, {
    Pair(_, pair) {
      if (loadYaml().isCollection(pair.key))
        problems.push({
          kind: 'syntax',
          message: 'A mapping key is itself a mapping or a list; keys must be plain text',
          line: lineAt(pair.key),
        });
    },
  });
  if (problems.length > 0) return { value: undefined, problems, lineOf, keysOf };
  try {
    return { value: document.toJS({ maxAliasCount: 100 }), problems, lineOf, keysOf };
  } catch (error) {
    return {
      value: undefined,
      problems: [{ kind: 'unconvertible', message: (error as Error).message }],
      lineOf,
      keysOf,
    };
  }
}

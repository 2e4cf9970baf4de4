import type { Document, Node, Pair, YAMLMap } from 'yaml';
import { ToolpackError } from '@toolpack/core';
import { loadYaml } from '../lazy-dependencies.ts';
import { writePackDependency, type PackDependency } from '../names/pack-names.ts';

/**
 * Returns `text` with `dependency` recorded under `packs:`. The file is edited as text at
 * the places yaml's parser located, so everything else (comments, their alignment, quoting,
 * blank lines) stays byte for byte; only flow mappings (`packs: { a: ^1 }`) and an empty
 * `packs:` are rewritten through yaml's Document API. A missing file becomes
 * `packs:\n  <name>: <range>\n`. `replaceKey` drops an older key for the same alias.
 */
export function setManifestPack(
  text: string | undefined,
  dependency: PackDependency,
  options: { replaceKey?: string } = {},
): string {
  const { key, value } = writePackDependency(dependency);
  if (text === undefined || text.trim() === '')
    return loadYaml().stringify({ packs: { [key]: value } });
  let source = text;
  if (options.replaceKey !== undefined && options.replaceKey !== key)
    source = removeManifestPack(source, options.replaceKey).text;
  const document = parseEditable(source);
  const packs = document.get('packs', true) as unknown;
  if (packs === undefined) {
    const separator = source.endsWith('\n') ? '' : '\n';
    return `${source}${separator}${loadYaml().stringify({ packs: { [key]: value } })}`;
  }
  if (!loadYaml().isMap(packs) || packs.flow === true || packs.items.length === 0)
    return editWithDocument(document, (map) => map.set(key, value));
  const existing = findPair(packs, key);
  const valueNode = existing?.value as Node | null | undefined;
  if (existing !== undefined && loadYaml().isScalar(valueNode) && valueNode.range) {
    return `${source.slice(0, valueNode.range[0])}${formatScalar(value)}${source.slice(valueNode.range[1])}`;
  }
  const last = packs.items.at(-1) as Pair<Node, Node | null>;
  const firstKey = (packs.items[0] as Pair<Node, unknown>).key;
  const lastEnd = (last.value?.range ?? last.key?.range)?.[1];
  const keyStart = firstKey?.range?.[0];
  if (lastEnd === undefined || keyStart === undefined)
    return editWithDocument(document, (map) => map.set(key, value));
  const indent = source.slice(lineStart(source, keyStart), keyStart);
  const at = lineEnd(source, lastEnd);
  return `${source.slice(0, at)}\n${indent}${formatScalar(key)}: ${formatScalar(value)}${source.slice(at)}`;
}

/**
 * Returns `text` without the `packs:` entry `key` (its whole line, with its comment). `empty`
 * says the file then holds nothing of the user's (no other keys, no comments): the command
 * may delete it, so adding then removing a pack leaves the folder as it was.
 */
export function removeManifestPack(text: string, key: string): { text: string; empty: boolean } {
  const document = parseEditable(text);
  const packs = document.get('packs', true) as unknown;
  let result = text;
  if (loadYaml().isMap(packs)) {
    const pair = findPair(packs, key);
    const keyNode = pair?.key as Node | undefined;
    const valueNode = pair?.value as Node | null | undefined;
    if (pair !== undefined && packs.flow !== true && keyNode?.range && valueNode?.range) {
      const start = lineStart(text, keyNode.range[0]);
      const end = Math.min(text.length, lineEnd(text, valueNode.range[1]) + 1);
      result = text.slice(0, start) + text.slice(end);
    } else if (pair !== undefined) {
      result = editWithDocument(document, (map) => map.delete(key));
    }
  }
  const after = parseEditable(result);
  const contents = after.contents;
  const left = after.get('packs', true) as unknown;
  const onlyPacks =
    loadYaml().isMap(contents) &&
    contents.items.length === 1 &&
    loadYaml().isScalar(contents.items[0]?.key) &&
    (contents.items[0].key as { value: unknown }).value === 'packs';
  const packsEmpty =
    left === null ||
    (loadYaml().isScalar(left) && left.value === null) ||
    (loadYaml().isMap(left) && left.items.length === 0);
  const hasComments = /(^|\s)#/.test(result);
  return { text: result, empty: onlyPacks && packsEmpty && !hasComments };
}

/** A source `mcp new` registers: `{ scripts: scripts }`, `{ tools: . }`, `{ module: src/x.ts }`. */
export interface ManifestSourceEntry {
  key: 'tools' | 'scripts' | 'module';
  /** Relative to the manifest's folder, with `/` separators. */
  path: string;
}

/**
 * Returns `text` with `source` appended to `sources:`, edited as `setManifestPack` edits
 * `packs:`: a new line under the last block entry (same indent, so comments and layout stay
 * byte for byte), `sources:` appended when absent, and yaml's Document API only for a flow
 * or empty list. A missing file becomes `sources:\n  - <key>: <path>\n`.
 */
export function addManifestSource(text: string | undefined, source: ManifestSourceEntry): string {
  const entry = { [source.key]: source.path };
  if (text === undefined || text.trim() === '') return loadYaml().stringify({ sources: [entry] });
  const document = parseEditable(text);
  const sources = document.get('sources', true) as unknown;
  if (sources === undefined) {
    const separator = text.endsWith('\n') ? '' : '\n';
    return `${text}${separator}${loadYaml().stringify({ sources: [entry] })}`;
  }
  const yaml = loadYaml();
  const addWithDocument = (): string => {
    if (yaml.isSeq(sources) && sources.items.length > 0) sources.add(document.createNode(entry));
    else document.set('sources', document.createNode([entry]));
    return document.toString();
  };
  if (!yaml.isSeq(sources) || sources.flow === true || sources.items.length === 0)
    return addWithDocument();
  const first = (sources.items[0] as Node | null)?.range?.[0];
  const lastEnd = findContentEnd(sources.items.at(-1) as Node | null);
  if (first === undefined || lastEnd === undefined) return addWithDocument();
  // The first entry's line up to its content: `  - ` (the dash and the indent around it).
  const prefix = text.slice(lineStart(text, first), first);
  if (!/^[ \t]*-[ \t]+$/.test(prefix)) return addWithDocument();
  const at = lineEnd(text, lastEnd);
  return `${text.slice(0, at)}\n${prefix}${formatScalar(source.key)}: ${formatScalar(source.path)}${text.slice(at)}`;
}

/**
 * Where a node's own text ends. A block collection's range runs on over the blank lines and
 * comments after it (they may introduce the next key), so it ends where its last value does.
 */
function findContentEnd(node: Node | null | undefined): number | undefined {
  const yaml = loadYaml();
  if ((yaml.isMap(node) || yaml.isSeq(node)) && node.flow !== true && node.items.length > 0) {
    const last = node.items.at(-1) as Pair<Node, Node | null> | Node | null;
    return yaml.isPair(last) ? findContentEnd(last.value ?? last.key) : findContentEnd(last);
  }
  return node?.range?.[1];
}

function parseEditable(text: string): Document.Parsed {
  const document = loadYaml().parseDocument(text);
  if (document.errors.length > 0) {
    throw new ToolpackError(
      'E_MANIFEST',
      'toolpack.yaml is not valid YAML, so it was not changed.',
      {
        hint: 'Fix the file (mcp check shows where), then run the command again.',
      },
    );
  }
  if (document.contents !== null && !loadYaml().isMap(document.contents))
    throw new ToolpackError(
      'E_MANIFEST',
      'toolpack.yaml is not a mapping of keys, so it was not changed.',
    );
  return document;
}

function editWithDocument(document: Document.Parsed, edit: (map: YAMLMap) => void): string {
  let packs = document.get('packs', true) as unknown;
  if (!loadYaml().isMap(packs)) {
    document.set('packs', document.createNode({}));
    packs = document.get('packs', true);
  }
  edit(packs as YAMLMap);
  return document.toString();
}

function findPair(map: YAMLMap, key: string): Pair | undefined {
  return map.items.find(
    (item) =>
      loadYaml().isPair(item) && loadYaml().isScalar(item.key) && String(item.key.value) === key,
  ) as Pair | undefined;
}

function formatScalar(value: string): string {
  return loadYaml().stringify(value).replace(/\n$/, '');
}

function lineStart(text: string, offset: number): number {
  return text.lastIndexOf('\n', offset - 1) + 1;
}

function lineEnd(text: string, offset: number): number {
  const end = text.indexOf('\n', offset);
  return end === -1 ? text.length : end;
}

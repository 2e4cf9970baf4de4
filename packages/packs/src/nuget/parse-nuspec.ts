import { createRequire } from 'node:module';
import type * as FastXmlParser from 'fast-xml-parser';

const require = createRequire(import.meta.url);
let xml: typeof FastXmlParser | undefined;
/** fast-xml-parser, loaded on first use; also what reads a v2 feed's Atom answers. */
export function loadXmlParser(): typeof FastXmlParser {
  return (xml ??= require('fast-xml-parser') as typeof FastXmlParser);
}

const DECLARATION = /<!DOCTYPE|<!ENTITY/i;

export interface NuspecDependency {
  id: string;
  /** A NuGet version range (`[1.0.0, )`, `1.0.0`), or undefined for any version. */
  range?: string;
}

/** What toolpack reads of a package's `.nuspec` (NuGet's own manifest of the package). */
export interface Nuspec {
  id: string;
  version: string;
  description: string;
  /** Space-separated in the file. */
  tags: string[];
  /** Every `<dependency>`, in any target-framework `<group>` too, first of each id kept. */
  dependencies: NuspecDependency[];
}

/**
 * Parses a `.nuspec`; undefined when it has no `<metadata>` with an `<id>` and `<version>`, or
 * declares a DOCTYPE or entities: a package never needs one, and refusing it before parsing
 * means no entity but XML's five predefined ones is ever expanded.
 */
export function parseNuspec(text: string): Nuspec | undefined {
  if (DECLARATION.test(text)) return undefined;
  const parser = new (loadXmlParser().XMLParser)({
    ignoreAttributes: false,
    attributeNamePrefix: '@_',
    removeNSPrefix: true,
    parseTagValue: false,
    parseAttributeValue: false,
    trimValues: true,
    isArray: (name) => name === 'dependency' || name === 'group',
  });
  let document: unknown;
  try {
    document = parser.parse(text.replace(/^\uFEFF/, ''), true);
  } catch {
    return undefined;
  }
  const metadata = (document as { package?: { metadata?: Record<string, unknown> } }).package
    ?.metadata;
  if (metadata === undefined || typeof metadata !== 'object') return undefined;
  const id = textOf(metadata.id);
  const version = textOf(metadata.version);
  if (id === '' || version === '') return undefined;
  const dependencies: NuspecDependency[] = [];
  const deps = metadata.dependencies as
    | {
        dependency?: Record<string, unknown>[];
        group?: { dependency?: Record<string, unknown>[] }[];
      }
    | undefined;
  const all = [
    ...(deps?.dependency ?? []),
    ...(deps?.group ?? []).flatMap((group) => group.dependency ?? []),
  ];
  for (const dependency of all) {
    const depId = textOf(dependency['@_id']);
    if (depId === '' || dependencies.some((d) => d.id.toLowerCase() === depId.toLowerCase()))
      continue;
    const range = textOf(dependency['@_version']);
    dependencies.push({ id: depId, ...(range === '' ? {} : { range }) });
  }
  return {
    id,
    version,
    description: textOf(metadata.description),
    // NuGet separates tags with spaces; some packers write commas.
    tags: textOf(metadata.tags)
      .split(/[\s,]+/)
      .filter(Boolean),
    dependencies,
  };
}

/** An XML element's or attribute's text as fast-xml-parser gives it ('' when absent). */
export function textOf(value: unknown): string {
  if (typeof value === 'string') return value.trim();
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (value !== null && typeof value === 'object' && '#text' in value)
    return textOf((value as { '#text': unknown })['#text']);
  return '';
}

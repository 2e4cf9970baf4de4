import { createRequire } from 'node:module';
import type * as FastXmlParser from 'fast-xml-parser';

const require = createRequire(import.meta.url);
const DECLARATION = /<!DOCTYPE|<!ENTITY/i;
let xml: typeof FastXmlParser | undefined;
const loadXmlParser = (): typeof FastXmlParser =>
  (xml ??= require('fast-xml-parser') as typeof FastXmlParser);

/**
 * A NuGet XML document (a `.nuspec`, a v2 feed's Atom answer) as fast-xml-parser gives it:
 * attributes as `@_name`, namespace prefixes dropped, every value text, the elements named in
 * `arrays` always arrays. Undefined when it is not well-formed or declares a DOCTYPE or
 * entities: NuGet never needs one, and refusing it before parsing means no entity but XML's
 * five predefined ones is ever expanded.
 */
export function parseNuGetXml(text: string, arrays: readonly string[]): unknown {
  if (DECLARATION.test(text)) return undefined;
  const parser = new (loadXmlParser().XMLParser)({
    ignoreAttributes: false,
    attributeNamePrefix: '@_',
    removeNSPrefix: true,
    parseTagValue: false,
    parseAttributeValue: false,
    trimValues: true,
    isArray: (name) => arrays.includes(name),
  });
  try {
    return parser.parse(text.replace(/^\uFEFF/, ''), true) as unknown;
  } catch {
    return undefined;
  }
}

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
 * `parseNuGetXml` refuses it (not well-formed, a DOCTYPE).
 */
export function parseNuspec(text: string): Nuspec | undefined {
  const document = parseNuGetXml(text, ['dependency', 'group']);
  if (document === undefined) return undefined;
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

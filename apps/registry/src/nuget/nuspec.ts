import { XMLParser } from 'fast-xml-parser';

/** The nuspec fields the gallery writes and reads. */
export interface NuspecMetadata {
  id: string;
  version: string;
  description: string;
  authors: string;
  tags: string[];
  projectUrl?: string;
}

const NUSPEC_NAMESPACE = 'http://schemas.microsoft.com/packaging/2013/05/nuspec.xsd';

/** A `.nuspec` document for `metadata`, every value escaped as XML text. */
export function renderNuspec(metadata: NuspecMetadata): string {
  const lines = [
    '<?xml version="1.0" encoding="utf-8"?>',
    `<package xmlns="${NUSPEC_NAMESPACE}">`,
    '  <metadata>',
    `    <id>${escapeXml(metadata.id)}</id>`,
    `    <version>${escapeXml(metadata.version)}</version>`,
    `    <authors>${escapeXml(metadata.authors)}</authors>`,
    `    <description>${escapeXml(metadata.description)}</description>`,
  ];
  if (metadata.projectUrl !== undefined)
    lines.push(`    <projectUrl>${escapeXml(metadata.projectUrl)}</projectUrl>`);
  lines.push(
    `    <tags>${escapeXml(metadata.tags.join(' '))}</tags>`,
    '  </metadata>',
    '</package>',
    '',
  );
  return lines.join('\n');
}

export type ParseNuspecResult =
  { ok: true; metadata: NuspecMetadata } | { ok: false; message: string };

/**
 * Reads the fields a pack needs from a `.nuspec`. A DOCTYPE is refused before parsing, so no
 * entity but XML's five predefined ones is ever expanded, and only text values are taken.
 */
export function parseNuspec(text: string): ParseNuspecResult {
  if (/<!DOCTYPE|<!ENTITY/i.test(text))
    return {
      ok: false,
      message: 'the .nuspec declares a DOCTYPE or entities, which a package never needs',
    };
  let document: unknown;
  try {
    document = new XMLParser({
      ignoreAttributes: true,
      removeNSPrefix: true,
      processEntities: true,
      parseTagValue: false,
      trimValues: true,
    }).parse(text, true);
  } catch (error) {
    return {
      ok: false,
      message: `the .nuspec is not well-formed XML (${(error as Error).message})`,
    };
  }
  const metadata = readObject(readObject(document)?.['package'])?.['metadata'];
  const fields = readObject(metadata);
  if (fields === undefined) return { ok: false, message: 'the .nuspec has no <package><metadata>' };
  const id = readText(fields['id']);
  const version = readText(fields['version']);
  if (id === undefined || version === undefined)
    return { ok: false, message: 'the .nuspec has no <id> or no <version>' };
  const projectUrl = readText(fields['projectUrl']);
  return {
    ok: true,
    metadata: {
      id,
      version,
      description: readText(fields['description']) ?? '',
      authors: readText(fields['authors']) ?? '',
      tags: (readText(fields['tags']) ?? '').split(/[\s,]+/).filter((tag) => tag !== ''),
      ...(projectUrl === undefined ? {} : { projectUrl }),
    },
  };
}

function readObject(value: unknown): Record<string, unknown> | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}

function readText(value: unknown): string | undefined {
  if (typeof value === 'string') return value.trim() === '' ? undefined : value.trim();
  if (typeof value === 'number') return String(value);
  return undefined;
}

/** `text` as XML character data or an attribute value. */
export function escapeXml(text: string): string {
  return (
    text
      // Characters XML 1.0 cannot carry at all.
      // eslint-disable-next-line no-control-regex -- those are control characters
      .replace(/[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]/g, '')
      .replace(/&/g, '&amp;')
      .replace(/</g, '&lt;')
      .replace(/>/g, '&gt;')
      .replace(/"/g, '&quot;')
      .replace(/'/g, '&apos;')
  );
}

import type { NuspecDependency } from '@toolpack/packs';

/** The nuspec fields the gallery writes (`parseNuspec` of @toolpack/packs reads them). */
export interface NuspecMetadata {
  id: string;
  version: string;
  description: string;
  authors: string;
  tags: string[];
  projectUrl?: string;
  /** A module's RequiredModules, as Publish-PSResource wrote them into its own .nuspec. */
  dependencies?: readonly NuspecDependency[];
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
  lines.push(`    <tags>${escapeXml(metadata.tags.join(' '))}</tags>`);
  if (metadata.dependencies !== undefined && metadata.dependencies.length > 0) {
    lines.push('    <dependencies>');
    for (const dependency of metadata.dependencies) {
      const version =
        dependency.range === undefined ? '' : ` version="${escapeXml(dependency.range)}"`;
      lines.push(`      <dependency id="${escapeXml(dependency.id)}"${version} />`);
    }
    lines.push('    </dependencies>');
  }
  lines.push('  </metadata>', '</package>', '');
  return lines.join('\n');
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

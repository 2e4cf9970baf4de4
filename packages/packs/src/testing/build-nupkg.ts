import { ZipFile } from 'yazl';

/** One entry of a hand-made .nupkg; anything a hostile package could hold. */
export interface RawZipEntry {
  /** Written as given, also absolute or with `..` (which yazl itself refuses to write). */
  path: string;
  data?: string | Buffer;
  /** Unix mode with its file type: `0o120777` makes a symbolic link whose target is `data`. */
  mode?: number;
  /** Stored without compression. */
  store?: boolean;
}

/**
 * Builds a zip from raw entries with yazl, for tests of what a .nupkg reader must refuse.
 * yazl refuses absolute and `..` names, so those are written under a placeholder of the same
 * length, then put in place in the local and central headers (a name is outside the data's CRC).
 */
export async function buildZip(entries: readonly RawZipEntry[]): Promise<Buffer> {
  const zip = new ZipFile();
  const renames: [Buffer, Buffer][] = [];
  entries.forEach((entry, index) => {
    const wanted = Buffer.from(entry.path);
    const hostile = /^([A-Za-z]:|\/)/.test(entry.path) || entry.path.split('/').includes('..');
    const placeholder = hostile ? Buffer.from(`q${index}`.padEnd(wanted.length, 'Q')) : wanted;
    if (hostile) renames.push([placeholder, wanted]);
    zip.addBuffer(Buffer.from(entry.data ?? ''), placeholder.toString(), {
      mtime: new Date(Date.UTC(2020, 0, 1)),
      ...(entry.mode === undefined ? {} : { mode: entry.mode }),
      ...(entry.store ? { compress: false } : {}),
    });
  });
  zip.end();
  const chunks: Buffer[] = [];
  for await (const chunk of zip.outputStream) chunks.push(chunk as Buffer);
  const bytes = Buffer.concat(chunks);
  for (const [from, to] of renames) {
    for (let at = bytes.indexOf(from); at !== -1; at = bytes.indexOf(from, at + to.length))
      to.copy(bytes, at);
  }
  return bytes;
}

/** The `.nuspec` of a package, as NuGet writes it. */
export function nuspecText(options: {
  id: string;
  version: string;
  description?: string;
  tags?: string[];
  dependencies?: { id: string; version?: string }[];
}): string {
  const escape = (text: string) =>
    text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('"', '&quot;');
  const dependencies = (options.dependencies ?? [])
    .map(
      (d) =>
        `      <dependency id="${escape(d.id)}"${d.version === undefined ? '' : ` version="${escape(d.version)}"`} />\n`,
    )
    .join('');
  return `<?xml version="1.0" encoding="utf-8"?>
<package xmlns="http://schemas.microsoft.com/packaging/2010/07/nuspec.xsd">
  <metadata>
    <id>${escape(options.id)}</id>
    <version>${escape(options.version)}</version>
    <authors>Toolpack tests</authors>
    <description>${escape(options.description ?? `The ${options.id} module.`)}</description>
    <tags>${escape((options.tags ?? ['PSModule', 'MCPTools']).join(' '))}</tags>
${dependencies ? `    <dependencies>\n${dependencies}    </dependencies>\n` : ''}  </metadata>
</package>
`;
}

/** A module's .nupkg as Publish-PSResource lays it out, plus `extra` entries. */
export async function buildModuleNupkg(options: {
  id: string;
  version: string;
  nuspec?: { id?: string; version?: string };
  /** Its RequiredModules, as the .nuspec's dependencies (the .psd1 does not name them). */
  dependencies?: { id: string; version?: string }[];
  functions?: Record<string, string>;
  extra?: readonly RawZipEntry[];
}): Promise<Buffer> {
  const functions = options.functions ?? { 'Get-Echo': '"echo: $Message"' };
  const psm1 = Object.entries(functions)
    .map(
      ([name, body]) =>
        `function ${name} {\n    <#\n    .SYNOPSIS\n    ${name} for tests.\n    .PARAMETER Message\n    The message.\n    #>\n    [CmdletBinding()]\n    param([Parameter(Mandatory)][string]$Message)\n    ${body}\n}\n`,
    )
    .join('\n');
  const psd1 = `@{\n    RootModule = '${options.id}.psm1'\n    ModuleVersion = '${options.version}'\n    GUID = '0b7c9a0e-2f4b-4c43-9a57-5a0d3f7f8a11'\n    Description = 'Tools for tests.'\n    FunctionsToExport = @(${Object.keys(
    functions,
  )
    .map((name) => `'${name}'`)
    .join(', ')})\n    PrivateData = @{ PSData = @{ Tags = @('MCPTools') } }\n}\n`;
  return buildZip([
    {
      path: '_rels/.rels',
      data: '<?xml version="1.0" encoding="utf-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships" />',
    },
    {
      path: `${options.id}.nuspec`,
      data: nuspecText({
        id: options.nuspec?.id ?? options.id,
        version: options.nuspec?.version ?? options.version,
        ...(options.dependencies ? { dependencies: options.dependencies } : {}),
      }),
    },
    { path: `${options.id}.psm1`, data: psm1 },
    { path: `${options.id}.psd1`, data: psd1 },
    { path: '[Content_Types].xml', data: '<?xml version="1.0" encoding="utf-8"?><Types />' },
    ...(options.extra ?? []),
  ]);
}

import path from 'node:path';
import { getSourceLocation, type PackPermissions } from '@toolpack/core';
import { MANIFEST_FILE, parseManifest, type TarballFile } from '@toolpack/packs';
import { getDefaultInterpreters } from '@toolpack/runners';
import type { RegistryContext } from '../http/registry-context.ts';
import { readStoredPackFiles } from '../nuget/read-stored-pack.ts';
import type { StoredVersion } from '../storage/metadata-store.ts';

/** What the pack page shows from inside a version's tarball. */
export interface PackDetails {
  /** The README's text, when the pack has one at its root. */
  readme?: string;
  /** What a machine needs to run its tools, one line each; `code` in backticks. */
  requirements: string[];
}

/** Details by blob key; a blob never changes, so an entry never goes stale. */
const CACHE_SIZE = 200;
const cache = new Map<string, PackDetails>();

const README = /^readme(?:\.md|\.markdown|\.txt)?$/i;
const POWERSHELL = new Set(['.ps1', '.psm1', '.psd1']);

/** The README and requirements of a published version, read from its tarball once. */
export async function readPackDetails(
  context: RegistryContext,
  stored: StoredVersion,
): Promise<PackDetails> {
  const known = cache.get(stored.blobKey);
  if (known !== undefined) return known;
  const read = await readStoredPackFiles(context, stored);
  const details: PackDetails =
    read === undefined
      ? { requirements: describeRequirements({ files: [], permissions: stored.doc.permissions }) }
      : {
          ...readReadme(read.files),
          requirements: describeRequirements({
            files: read.files,
            permissions: stored.doc.permissions,
            interpreters: stored.doc.interpreters,
            isModule: read.identity.module !== undefined,
          }),
        };
  cache.set(stored.blobKey, details);
  if (cache.size > CACHE_SIZE) {
    const oldest = cache.keys().next().value;
    if (oldest !== undefined) cache.delete(oldest);
  }
  return details;
}

function readReadme(files: readonly TarballFile[]): { readme?: string } {
  const file = files.find((f) => !f.path.includes('/') && README.test(f.path));
  return file === undefined ? {} : { readme: file.data.toString('utf8') };
}

export interface RequirementsInput {
  files: readonly TarballFile[];
  permissions: PackPermissions | undefined;
  /** The pack's own `interpreters:` (extension -> argv). */
  interpreters?: Record<string, string[]> | undefined;
  /** The pack is a PowerShell module (a .psd1 beside its manifest). */
  isModule?: boolean;
}

/**
 * What a pack needs besides `mcp`, from what its tools are: PowerShell for PowerShell tools,
 * the interpreter each script's extension runs with (the runner's defaults, or the pack's own
 * `interpreters:`), and the sandbox that holds its tools to their permissions.
 */
export function describeRequirements(input: RequirementsInput): string[] {
  const sources = readSourceFiles(input.files);
  const extensions = new Set(sources.map((file) => path.extname(file).toLowerCase()));
  const lines: string[] = [];
  if (input.isModule === true || [...extensions].some((ext) => POWERSHELL.has(ext)))
    lines.push('PowerShell 7.2 or later (`pwsh` on PATH): its tools are PowerShell.');
  const own = Object.fromEntries(
    Object.entries(input.interpreters ?? {}).map(([ext, argv]) => [ext.toLowerCase(), argv]),
  );
  const defaults = getDefaultInterpreters();
  const byCommand = new Map<string, string[]>();
  for (const ext of [...extensions].sort()) {
    const argv = own[ext] ?? defaults[ext];
    const command = argv?.[0];
    if (command === undefined) continue;
    const name = command === process.execPath ? 'node' : path.basename(command);
    byCommand.set(name, [...(byCommand.get(name) ?? []), ext]);
  }
  for (const [name, exts] of byCommand) {
    lines.push(
      name === 'node'
        ? `Nothing more for its ${exts.join(', ')} tools: \`mcp\` runs them with its own Node.js.`
        : `\`${name}\` on PATH, for its ${exts.join(', ')} tools${exts.some((ext) => own[ext] !== undefined) ? ' (an interpreter of its own)' : ''}.`,
    );
  }
  if (input.permissions?.subprocess === true)
    lines.push('The programs its tools start (its README names them).');
  lines.push(
    'On Linux, bubblewrap (`bwrap`) for the sandbox that holds its tools to their permissions; without it they run unconfined, with a warning, or not at all with `--require-sandbox`.',
  );
  return lines;
}

/** The files its manifest's sources point at: script folders and modules, not docs or tests. */
function readSourceFiles(files: readonly TarballFile[]): string[] {
  const manifestFile = files.find((file) => file.path === MANIFEST_FILE);
  if (manifestFile === undefined) return [];
  const { manifest } = parseManifest(manifestFile.data.toString('utf8'), {
    path: MANIFEST_FILE,
    kind: 'pack',
  });
  if (manifest === undefined) return [];
  const roots = manifest.sources.map((source) =>
    path.posix.normalize(getSourceLocation(source).location).replace(/\/$/, ''),
  );
  return files
    .map((file) => file.path)
    .filter((file) => roots.some((root) => file === root || file.startsWith(`${root}/`)));
}

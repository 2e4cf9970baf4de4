import { ToolpackError } from '@toolpack/core';
import { loadYaml } from '../lazy-dependencies.ts';
import { MANIFEST_FILE } from '../manifest/parse-manifest.ts';
import type { PackLimits } from '../tarball/limits.ts';
import type { TarballFile } from '../tarball/read-tarball.ts';
import { toPackNameFromNuGetId, toSemverFromNuGetVersion } from './nuget-names.ts';
import type { Nuspec } from './parse-nuspec.ts';
import { readNupkgContent } from './read-nupkg.ts';

const TAG = /^[A-Za-z0-9][A-Za-z0-9+#._-]{0,49}$/;
/** Where a Toolpack gallery's `.nupkg` of a module pack keeps the pack itself. */
const EMBEDDED_PACK_FOLDER = 'pack';

export interface NupkgPack {
  /** The pack's files: its generated toolpack.yaml, and the module under `<Id>/`. */
  files: TarballFile[];
  nuspec: Nuspec;
}

/** A required module's package, downloaded and checked against toolpack.lock's `modules`. */
export interface ModulePackage {
  /** The NuGet id as the feed (and lock) spell it. */
  id: string;
  /** Semver. */
  version: string;
  bytes: Uint8Array;
}

export interface ReadNupkgAsPackOptions {
  /** The pack asked for, and its semver. */
  name: string;
  version: string;
  /** A module's required modules (toolpack.lock's `modules`), installed beside it. */
  modules?: readonly ModulePackage[];
  limits?: Partial<PackLimits>;
  label?: string;
}

/**
 * A PowerShell module's `.nupkg` as the files of a pack, checked like a tarball first
 * (`inspectNupkg`), then held to what was asked: its `.nuspec` must name the id (any case)
 * and version the feed listed (`E_TARBALL_MISMATCH`), and the package must be a module (a
 * `<Id>.psd1` at its root, `E_NUPKG_NOT_MODULE`). The module keeps its own folder name, so
 * pwsh imports it as `<Id>`; the toolpack.yaml beside it is written from the nuspec (a module
 * declares no permissions, so the pack asks for the least) and is the same for the same bytes.
 * Its required modules (`modules`, resolved from the same feed) sit beside it, each in its
 * own `<Id>/` folder, where pwsh finds them by name (the pack folder is on a confined tool's
 * PSModulePath).
 */
export async function readNupkgAsPack(
  bytes: Uint8Array,
  options: ReadNupkgAsPackOptions,
): Promise<NupkgPack> {
  const label = options.label ?? `The package of ${options.name}@${options.version}`;
  const main = await readNupkgAsModule(bytes, {
    matches: (id) => toPackNameFromNuGetId(id) === options.name,
    version: options.version,
    asked: `${options.name}@${options.version}`,
    label,
    ...(options.limits ? { limits: options.limits } : {}),
  });
  const { nuspec } = main;
  const embedded = readEmbeddedPack(main, options, label);
  const files = [...(embedded ?? main).files];
  const folders = new Set(files.map((file) => file.path.split('/')[0]!.toLowerCase()));
  for (const module of options.modules ?? []) {
    const read = await readNupkgAsModule(module.bytes, {
      matches: (id) => id.toLowerCase() === module.id.toLowerCase(),
      version: module.version,
      asked: `${module.id} ${module.version}`,
      label: `The package of ${module.id} ${module.version} (required by ${options.name})`,
      ...(options.limits ? { limits: options.limits } : {}),
    });
    // Two modules of one name cannot both be imported (the resolver keeps the first), and a
    // folder of the pack itself is not replaced.
    if (folders.has(read.nuspec.id.toLowerCase())) continue;
    folders.add(read.nuspec.id.toLowerCase());
    files.push(...read.files);
  }
  if (embedded !== undefined) return { files, nuspec };
  const manifest = {
    name: options.name,
    version: options.version,
    description: nuspec.description || `The PowerShell module ${nuspec.id}.`,
    tags: nuspec.tags.filter((tag) => TAG.test(tag)),
    sources: [{ module: `${nuspec.id}/${nuspec.id}.psd1` }],
  };
  return {
    files: [{ path: MANIFEST_FILE, data: Buffer.from(loadYaml().stringify(manifest)) }, ...files],
    nuspec,
  };
}

/**
 * A Toolpack gallery serves a module pack to PowerShell users as a `.nupkg` whose module
 * wraps the pack, with the pack itself unchanged under `pack/`. Read as a plain module it
 * gives no tools (its functions are made when it is imported), so the pack under `pack/` is
 * taken as it is: its own toolpack.yaml, with the permissions it declares shown at approval
 * like any pack's. Its name must be the one asked for, as a tarball's must. Its required
 * modules (the .nuspec's dependencies, which the gallery keeps from the module's publish) are
 * put beside it as for any module.
 */
function readEmbeddedPack(
  main: NupkgPack,
  options: { name: string; version: string },
  label: string,
): NupkgPack | undefined {
  const prefix = `${main.nuspec.id}/${EMBEDDED_PACK_FOLDER}/`;
  const manifest = main.files.find((file) => file.path === `${prefix}${MANIFEST_FILE}`);
  if (manifest === undefined) return undefined;
  const written = loadYaml().parse(manifest.data.toString('utf8')) as unknown;
  const stated =
    typeof written === 'object' && written !== null
      ? (written as { name?: unknown; version?: unknown })
      : {};
  if (stated.name !== options.name || stated.version !== options.version) {
    throw new ToolpackError(
      'E_TARBALL_MISMATCH',
      `${label} holds a pack under ${EMBEDDED_PACK_FOLDER}/ that calls itself ${String(stated.name)}@${String(stated.version)}, not ${options.name}@${options.version}; nothing was installed.`,
      { hint: 'The feed served another package than it listed; tell its owner.' },
    );
  }
  return {
    files: main.files
      .filter((file) => file.path.startsWith(prefix))
      .map((file) => ({ path: file.path.slice(prefix.length), data: file.data })),
    nuspec: main.nuspec,
  };
}

/**
 * One module's package, checked (`readNupkgContent`, then its .nuspec against what was asked, a
 * `<Id>.psd1` at its root, and the ModuleVersion that states against the .nuspec's), as files
 * under `<Id>/` without NuGet's packaging files.
 */
export async function readNupkgAsModule(
  bytes: Uint8Array,
  options: {
    matches: (id: string) => boolean;
    version: string;
    /** What was asked, for messages: `echotools@1.2.0`. */
    asked: string;
    label: string;
    limits?: Partial<PackLimits>;
  },
): Promise<NupkgPack> {
  const { label } = options;
  const read = await readNupkgContent(bytes, {
    label,
    ...(options.limits ? { limits: options.limits } : {}),
  });
  if (read.content === undefined) {
    throw new ToolpackError(
      'E_TARBALL_UNSAFE',
      `${label} was refused and nothing was installed:\n${read.problems.map((p) => `  - ${p.message}`).join('\n')}`,
      { hint: 'Tell the module author or the feed owner; do not unpack it by hand.' },
    );
  }
  const { nuspec, files: content } = read.content;
  if (!options.matches(nuspec.id) || toSemverFromNuGetVersion(nuspec.version) !== options.version) {
    throw new ToolpackError(
      'E_TARBALL_MISMATCH',
      `${label} holds ${nuspec.id} ${nuspec.version} by its .nuspec, not ${options.asked}; nothing was installed.`,
      { hint: 'The feed served another package than it listed; tell its owner.' },
    );
  }
  if (!content.some((file) => file.path === `${nuspec.id}.psd1`)) {
    throw new ToolpackError(
      'E_NUPKG_NOT_MODULE',
      `${label} has no module manifest ${nuspec.id}.psd1 at its root, so it is not a PowerShell module Toolpack can serve. Nothing was installed.`,
      {
        hint: 'Only PowerShell modules (Publish-PSResource of a module folder) become packs; scripts and .NET libraries do not.',
      },
    );
  }
  const stated = readModuleVersion(content.find((f) => f.path === `${nuspec.id}.psd1`)!.data);
  // A prerelease label is PSData.Prerelease, not part of ModuleVersion: Publish-PSResource
  // makes 1.2.0-preview1 of ModuleVersion 1.2.0 and Prerelease 'preview1'.
  const release = options.version.replace(/-.*$/, '');
  if (stated !== undefined && toSemverFromNuGetVersion(stated) !== release) {
    throw new ToolpackError(
      'E_TARBALL_MISMATCH',
      `${label} is ${nuspec.id} ${nuspec.version} by its .nuspec, but its module manifest ${nuspec.id}.psd1 says ModuleVersion ${stated}; nothing was installed.`,
      {
        hint: 'The package was not made by Publish-PSResource from this module, or was changed since; tell its author.',
      },
    );
  }
  return {
    files: content.map((file) => ({ path: `${nuspec.id}/${file.path}`, data: file.data })),
    nuspec,
  };
}

/**
 * The `ModuleVersion = '<version>'` a module manifest states as a literal on its own line (as
 * New-ModuleManifest writes it); undefined when it states none that way. Publish-PSResource
 * takes the package's version from it, so a package whose two disagree was not made from
 * this module as it is.
 */
function readModuleVersion(psd1: Buffer): string | undefined {
  const text = psd1.toString('utf8').replace(/<#[\s\S]*?#>/g, '');
  return /^\s*ModuleVersion\s*=\s*['"]([^'"\r\n]+)['"]\s*;?\s*(?:#.*)?$/im.exec(text)?.[1]?.trim();
}

/** A zip's first bytes (`PK\3\4`): a `.nupkg`, where a pack tarball starts with gzip's. */
export function isZipArchive(bytes: Uint8Array): boolean {
  return bytes[0] === 0x50 && bytes[1] === 0x4b && bytes[2] === 0x03 && bytes[3] === 0x04;
}

import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { createDiagnostic, type Diagnostic } from '@toolpack/core';
import {
  MANIFEST_FILE,
  createPackTarball,
  writePackFiles,
  type NupkgContent,
  parseNuspec,
  toSemverFromNuGetVersion,
  type NuspecDependency,
  type PackLimits,
} from '@toolpack/packs';
import { toPackName } from './nuget-ids.ts';
import { renderNuspec } from './render-nuspec.ts';

/** Tags PowerShellGet and PSResourceGet add on their own (kinds of package and command lists). */
const DERIVED_TAG =
  /^PS(Module|Script|Includes_.*|Function_.*|Command_.*|Cmdlet_.*|DscResource_.*|RoleCapability_.*|Workflow_.*|Edition_.*)$/i;
const PACK_TAG = /^[A-Za-z0-9][A-Za-z0-9+#._-]{0,49}$/;
const MAX_TAGS = 20;

export type NupkgPackResult = { ok: true; tarball: Buffer } | { ok: false; problems: Diagnostic[] };

/**
 * A published PowerShell module as a pack tarball: the module's files in a folder named after
 * it (`Clocks/Clocks.psd1`, as `mcp pack add --source` lays out a module from any feed) and a
 * `toolpack.yaml` naming its manifest as the one source, with the package's id (lower case;
 * `acme.widgets` is the pack `acme/widgets`), version, description and tags (without the
 * ones PSResourceGet derives), and the least permissions, which is all a module can be said
 * to ask for. The tarball is made by the same code as `mcp pack publish`'s; the caller then
 * publishes it like any upload.
 */
export async function convertNupkgToPack(
  content: NupkgContent,
  options: { workDir: string; limits: PackLimits },
): Promise<NupkgPackResult> {
  const { nuspec, files } = content;
  const problem = (message: string, hint: string): NupkgPackResult => ({
    ok: false,
    problems: [
      createDiagnostic('error', 'E_PACK_INVALID', message, { path: `${nuspec.id}.nuspec` }, hint),
    ],
  });
  const name = toPackName(nuspec.id);
  if (name === undefined) {
    return problem(
      `The package id "${nuspec.id}" cannot name a pack: a pack name is letters, digits and "-" (at most 64), optionally "owner." before it.`,
      'Rename the module (its .psd1 file and folder).',
    );
  }
  const version = toSemverFromNuGetVersion(nuspec.version);
  if (version === undefined) {
    return problem(
      `The version "${nuspec.version}" cannot be a pack version: a pack needs major.minor.patch (a fourth part only when it is 0).`,
      'Set ModuleVersion to three parts, such as 1.2.0.',
    );
  }
  const manifestFile = files.find(
    (file) => file.path.toLowerCase() === `${nuspec.id.toLowerCase()}.psd1`,
  );
  if (manifestFile === undefined) {
    return problem(
      `The package has no ${nuspec.id}.psd1 at its root, so it is not a PowerShell module; only modules are published through the NuGet endpoint.`,
      'Publish the module folder (the one holding its .psd1) with Publish-PSResource, or a pack with mcp pack publish.',
    );
  }
  if (files.some((file) => file.path === MANIFEST_FILE)) {
    return problem(
      `The package holds its own ${MANIFEST_FILE}; a pack is published with mcp pack publish, a module through this endpoint.`,
      `Leave ${MANIFEST_FILE} out of the module, or publish the pack with mcp pack publish.`,
    );
  }
  const tags = [
    ...new Set(nuspec.tags.filter((tag) => !DERIVED_TAG.test(tag) && PACK_TAG.test(tag))),
  ].slice(0, MAX_TAGS);
  const manifest = [
    `# Made by the Toolpack gallery from the PowerShell module ${nuspec.id} ${nuspec.version}.`,
    `name: ${JSON.stringify(name)}`,
    `version: ${JSON.stringify(version)}`,
    ...(nuspec.description === '' ? [] : [`description: ${JSON.stringify(nuspec.description)}`]),
    `tags: ${JSON.stringify(tags)}`,
    'sources:',
    `  - module: ${JSON.stringify(`${nuspec.id}/${manifestFile.path}`)}`,
    'permissions: {}',
    '',
  ].join('\n');

  await mkdir(options.workDir, { recursive: true });
  const dir = await mkdtemp(path.join(options.workDir, 'nupkg-'));
  try {
    await writePackFiles(
      files.map((file) => ({ path: `${nuspec.id}/${file.path}`, data: file.data })),
      dir,
    );
    await writeFile(path.join(dir, MANIFEST_FILE), manifest, { flag: 'wx' });
    // The package's RequiredModules, kept where the gallery's .nupkg of the pack reads them
    // (`readKeptDependencies`): the pack's toolpack.yaml has no field for them.
    if (nuspec.dependencies.length > 0) {
      await writeFile(
        path.join(dir, keptNuspecPath(`${nuspec.id}/${manifestFile.path}`)),
        renderNuspec({
          id: nuspec.id,
          version: nuspec.version,
          authors: '',
          description: nuspec.description,
          tags: nuspec.tags,
          dependencies: nuspec.dependencies,
        }),
        { flag: 'wx' },
      );
    }
    const packed = await createPackTarball({ dir, limits: options.limits });
    const errors = packed.diagnostics.filter((d) => d.severity === 'error');
    if (packed.tarball === undefined || errors.length > 0) return { ok: false, problems: errors };
    return { ok: true, tarball: packed.tarball };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/**
 * Where a pack made from a published module keeps that package's `.nuspec`: beside the
 * module manifest, named like it (`Clocks/Clocks.psd1` keeps `Clocks/Clocks.nuspec`).
 */
export function keptNuspecPath(modulePath: string): string {
  return modulePath.replace(/\.(psd1|psm1)$/i, '.nuspec');
}

/**
 * The RequiredModules a module pack's kept `.nuspec` names (none when it keeps none, or one
 * that does not read), for the gallery's own `.nupkg` of the pack.
 */
export function readKeptDependencies(
  files: readonly { path: string; data: Buffer }[],
  modulePath: string,
): NuspecDependency[] {
  const kept = files.find((file) => file.path === keptNuspecPath(modulePath));
  return kept === undefined ? [] : (parseNuspec(kept.data.toString('utf8'))?.dependencies ?? []);
}

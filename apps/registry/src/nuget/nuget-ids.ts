import type { NuspecDependency, PackManifest } from '@toolpack/packs';

/**
 * How a pack is a PowerShell module: its own module (a `.psd1`/`.psm1`), or a folder of
 * `.ps1` scripts that the gallery makes into one (each script a function).
 */
export type PowerShellModule =
  { kind: 'module'; path: string } | { kind: 'scripts'; paths: string[] };

/** What a pack is to a NuGet client: its package id, and the module it serves when it is one. */
export interface NugetIdentity {
  /** `jira`, `acme.widgets` (pack names hold no dots, so the mapping goes both ways). */
  id: string;
  /** Absent for a pack that is no PowerShell module (JS modules, other scripts, workflows). */
  module?: PowerShellModule;
  /** A module's RequiredModules, kept from its publish (`readKeptDependencies`); absent when none. */
  dependencies?: NuspecDependency[];
}

/** Script kinds discovery serves from a `scripts:` folder; a folder holding any but `.ps1` is no module. */
const OTHER_SCRIPT = /\.(sh|bash|py|js|mjs|cjs|ts|mts|bas)$/i;

/**
 * The package id of a pack: `owner/name` becomes `owner.name`. When the pack's module file is
 * named like the id in another case (`JiraTools.psd1` of the pack `jiratools`), the id takes the
 * file's case, so `Import-Module JiraTools` finds what Install-PSResource put on disk.
 */
export function describeNugetIdentity(
  manifest: PackManifest,
  filePaths: readonly string[],
): NugetIdentity {
  const lowerId = manifest.name.replace('/', '.');
  const module = findPowerShellModule(manifest, filePaths);
  if (module === undefined) return { id: lowerId };
  if (module.kind === 'scripts') return { id: lowerId, module };
  const base = module.path.slice(module.path.lastIndexOf('/') + 1).replace(/\.(psd1|psm1)$/i, '');
  return { id: base.toLowerCase() === lowerId ? base : lowerId, module };
}

/** The pack a package id names, or undefined for an id no pack can have. */
export function toPackName(id: string): string | undefined {
  const lower = id.toLowerCase();
  const parts = lower.split('.');
  if (parts.length > 2 || parts.some((part) => !/^[a-z0-9][a-z0-9-]{0,63}$/.test(part)))
    return undefined;
  return parts.join('/');
}

/**
 * A pack is a PowerShell module to NuGet clients when its one source is a `.psd1` or `.psm1`
 * file inside it, or when its sources are all `scripts:` folders holding `.ps1` scripts and no
 * other kind; anything else is installed with `mcp pack add`.
 */
function findPowerShellModule(
  manifest: PackManifest,
  filePaths: readonly string[],
): PowerShellModule | undefined {
  const [first] = manifest.sources;
  if (manifest.sources.length === 1 && first !== undefined && 'module' in first) {
    const path = first.module.replace(/^\.\//, '');
    if (!/\.(psd1|psm1)$/i.test(path) || path.startsWith('/') || path.split('/').includes('..'))
      return undefined;
    return filePaths.includes(path) ? { kind: 'module', path } : undefined;
  }
  if (manifest.sources.length === 0) return undefined;
  const paths: string[] = [];
  for (const source of manifest.sources) {
    if (!('scripts' in source)) return undefined;
    const folder = source.scripts.replace(/^\.\//, '').replace(/\/+$/, '');
    const inFolder = filePaths.filter((file) => {
      const rest =
        folder === '' || folder === '.'
          ? file
          : file.startsWith(`${folder}/`)
            ? file.slice(folder.length + 1)
            : undefined;
      return rest !== undefined && !rest.includes('/');
    });
    if (inFolder.some((file) => OTHER_SCRIPT.test(file))) return undefined;
    paths.push(...inFolder.filter((file) => /\.ps1$/i.test(file)));
  }
  return paths.length === 0 ? undefined : { kind: 'scripts', paths: [...new Set(paths)].sort() };
}

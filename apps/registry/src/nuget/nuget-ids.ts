import type { PackManifest } from '@toolpack/packs';

/** What a pack is to a NuGet client: its package id, and the module it serves when it is one. */
export interface NugetIdentity {
  /** `jira`, `acme.widgets` (pack names hold no dots, so the mapping goes both ways). */
  id: string;
  /** The pack's PowerShell module (`.psd1`/`.psm1`, relative to the pack root), when its one source is one. */
  modulePath?: string;
}

/**
 * The package id of a pack: `owner/name` becomes `owner.name`. When the pack's module file is
 * named like the id in another case (`JiraTools.psd1` of the pack `jiratools`), the id takes the
 * file's case, so `Import-Module JiraTools` finds what Install-PSResource put on disk.
 */
export function describeNugetIdentity(manifest: PackManifest): NugetIdentity {
  const lowerId = manifest.name.replace('/', '.');
  const modulePath = findModulePath(manifest);
  if (modulePath === undefined) return { id: lowerId };
  const base = modulePath.slice(modulePath.lastIndexOf('/') + 1).replace(/\.(psd1|psm1)$/i, '');
  const id = base.toLowerCase() === lowerId ? base : lowerId;
  return { id, modulePath };
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
 * file inside it; anything else (scripts, JS modules, workflows, several sources) is installed
 * with `mcp pack add`.
 */
function findModulePath(manifest: PackManifest): string | undefined {
  if (manifest.sources.length !== 1) return undefined;
  const source = manifest.sources[0];
  if (source === undefined || !('module' in source)) return undefined;
  const modulePath = source.module.replace(/^\.\//, '');
  if (!/\.(psd1|psm1)$/i.test(modulePath)) return undefined;
  if (modulePath.startsWith('/') || modulePath.split('/').includes('..')) return undefined;
  return modulePath;
}

import {
  addPack,
  parsePackSpecifier,
  type ApprovePack,
  type DownloadListener,
  type InstalledPackReport,
} from '@toolpack/packs';
import type { CommandContext } from '../../../io.ts';
import { createStagedPackCheck } from '../check-staged-packs.ts';
import {
  createCommandCache,
  openCommandRegistry,
  openCommandSource,
  parseFeedSpecifier,
} from '../project-registry.ts';
import { withPackNameSuggestion } from '../suggest-pack-name.ts';

export interface AddProjectPackOptions extends CommandContext {
  /** The pack, optionally with a semver range: jira, jira@^1.2.0, acme/jira@1.x. */
  specifier: string;
  /** Serve the pack's tools as `<alias>_<tool>` (default: the pack's name). */
  as?: string;
  /** A registry URL or a folder of packs (default: as `resolveRegistryLocation` documents). */
  registry?: string;
  /** A NuGet feed of PowerShell modules instead of the registry (`--source`). */
  source?: string;
  onDownload?: DownloadListener;
  /** Asked before anything is installed; without it a pack that needs approval is refused. */
  approve?: ApprovePack;
}

/**
 * Adds a pack to the project and installs it, refusing one whose unpacked tools would
 * collide with the project's; nothing changes when anything fails.
 */
export async function addProjectPack(options: AddProjectPackOptions): Promise<InstalledPackReport> {
  const { name, range } =
    options.source === undefined
      ? parsePackSpecifier(options.specifier)
      : parseFeedSpecifier(options.specifier);
  const feed =
    options.source === undefined ? undefined : await openCommandSource(options, options.source);
  const registry = feed?.registry ?? (await openCommandRegistry(options, options.registry));
  return withPackNameSuggestion(
    {
      registry,
      name,
      retry: (closest) =>
        `mcp pack add ${closest}${range === undefined ? '' : `@${range}`}${options.as === undefined ? '' : ` --as ${options.as}`}${options.source === undefined ? '' : ` --source ${options.source}`}`,
    },
    () =>
      addPack({
        projectDir: options.cwd,
        name,
        ...(range === undefined ? {} : { range }),
        ...(options.as === undefined ? {} : { alias: options.as }),
        registry,
        ...(feed === undefined ? {} : { source: feed.source }),
        cache: createCommandCache(options),
        checkTools: createStagedPackCheck(options),
        ...(options.onDownload === undefined ? {} : { onDownload: options.onDownload }),
        ...(options.approve === undefined ? {} : { approve: options.approve }),
        env: options.env,
      }),
  );
}

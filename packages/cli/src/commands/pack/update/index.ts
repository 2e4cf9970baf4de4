import {
  updatePacks,
  type ApprovePack,
  type DownloadListener,
  type UpdatePacksReport,
} from '@toolpack/packs';
import type { CommandContext } from '../../../io.ts';
import { createStagedPackCheck } from '../check-staged-packs.ts';
import {
  createCommandCache,
  createSourceOpener,
  openCommandRegistry,
} from '../project-registry.ts';

export interface UpdateProjectPacksOptions extends CommandContext {
  /** Aliases or names; empty updates every pack. */
  names: string[];
  /** A registry URL or a folder of packs (default: as `resolveRegistryLocation` documents). */
  registry?: string;
  onDownload?: DownloadListener;
  /** Asked when a new version asks for more or changes its tools. */
  approve?: ApprovePack;
}

/** Moves packs to the highest version their toolpack.yaml range allows. */
export async function updateProjectPacks(
  options: UpdateProjectPacksOptions,
): Promise<UpdatePacksReport> {
  const registry = await openCommandRegistry(options, options.registry);
  return updatePacks({
    projectDir: options.cwd,
    only: options.names,
    registry,
    // A module from a NuGet feed is updated from that feed.
    openSource: (await createSourceOpener(options)).open,
    cache: createCommandCache(options),
    ...(options.onDownload === undefined ? {} : { onDownload: options.onDownload }),
    checkTools: createStagedPackCheck(options),
    ...(options.approve === undefined ? {} : { approve: options.approve }),
  });
}

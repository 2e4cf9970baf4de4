import {
  installPacks,
  type ApprovePack,
  type DownloadListener,
  type InstallPacksReport,
  type RegistryClient,
} from '@toolpack/packs';
import type { CommandContext } from '../../../io.ts';
import { createStagedPackCheck } from '../check-staged-packs.ts';
import {
  createCommandCache,
  createSourceOpener,
  openCommandRegistry,
} from '../project-registry.ts';

export interface InstallProjectPacksOptions extends CommandContext {
  /** Fail when toolpack.lock does not match toolpack.yaml (for CI). */
  frozen?: boolean;
  /** Use only the pack cache; never download. */
  offline?: boolean;
  /** A registry URL or a folder of packs (default: as `resolveRegistryLocation` documents). */
  registry?: string;
  onDownload?: DownloadListener;
  /** Asked when a pack asks for more than toolpack.lock approved or its tools changed. */
  approve?: ApprovePack;
}

/** Installs exactly the packs toolpack.lock names into .toolpack/packs/. */
export async function installProjectPacks(
  options: InstallProjectPacksOptions,
): Promise<InstallPacksReport> {
  return installPacks({
    projectDir: options.cwd,
    ...(options.frozen ? { frozen: true } : {}),
    ...(options.offline ? { offline: true } : {}),
    cache: createCommandCache(options),
    ...(options.onDownload === undefined ? {} : { onDownload: options.onDownload }),
    env: options.env,
    checkTools: createStagedPackCheck(options, { collisions: false }),
    ...(options.approve === undefined ? {} : { approve: options.approve }),
    ...(await registryFor(options)),
    // A module from a NuGet feed is resolved and downloaded through that feed (its login).
    openSource: (await createSourceOpener(options)).open,
  });
}

/**
 * The registry, for packs toolpack.lock does not name yet. A registry that cannot be opened
 * is an error only then: installing what the lock names needs none.
 */
async function registryFor(
  options: InstallProjectPacksOptions,
): Promise<{ registry: () => RegistryClient }> {
  const opened = await openCommandRegistry(options, options.registry).then(
    (registry) => ({ registry }),
    (error: unknown) => ({ error }),
  );
  return {
    registry: () => {
      if ('error' in opened) throw opened.error;
      return opened.registry;
    },
  };
}

import {
  createPackCache,
  openRegistry,
  readManifest,
  resolveRegistryLocation,
  type PackCache,
  type RegistryClient,
} from '@toolpack/packs';
import type { CommandContext } from '../../io.ts';
import { describePackTools } from './discover-pack-tools.ts';

/** The other origins a registry may serve tarballs from (`TOOLPACK_TARBALL_ORIGINS`, comma-separated). */
export function readTarballOrigins(env: NodeJS.ProcessEnv): string[] {
  return (env.TOOLPACK_TARBALL_ORIGINS ?? '')
    .split(',')
    .map((origin) => origin.trim())
    .filter((origin) => origin !== '');
}

/** The registry a command talks to, chosen as `resolveRegistryLocation` documents. */
export async function openCommandRegistry(
  context: CommandContext,
  flag: string | undefined,
): Promise<RegistryClient> {
  const manifest = await readManifest(context.cwd);
  const { location } = resolveRegistryLocation({
    flag,
    env: context.env,
    manifestRegistry: manifest.manifest?.registry,
    cwd: context.cwd,
    projectDir: context.cwd,
  });
  const origins = readTarballOrigins(context.env);
  return openRegistry({
    location,
    describeTools: describePackTools,
    ...(origins.length === 0 ? {} : { tarballOrigins: origins }),
  });
}

/** The content-addressed tarball cache ($TOOLPACK_CACHE_DIR, else ~/.cache/toolpack). */
export function createCommandCache(context: CommandContext): PackCache {
  return createPackCache({ env: context.env });
}

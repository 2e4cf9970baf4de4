import { ToolpackError } from '@toolpack/core';
import {
  createPackCache,
  openNuGetFeed,
  openRegistry,
  parsePackSpecifier,
  readManifest,
  resolveFeed,
  resolveRegistryLocation,
  toNuGetIdFromPackName,
  toPackNameFromNuGetId,
  type OpenSource,
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

/**
 * The NuGet feed `--source` names (a `feeds:` name in toolpack.yaml, a URL or a folder), and
 * what toolpack.lock records as its `source`.
 */
export async function openCommandSource(
  context: CommandContext,
  source: string,
): Promise<{ registry: RegistryClient; source: string }> {
  return createSourceOpener(context).then((open) => open.withSource(source));
}

/** Opens the feeds lock entries name (`source`), for install and update. */
export async function createSourceOpener(context: CommandContext): Promise<{
  open: OpenSource;
  withSource: (source: string) => { registry: RegistryClient; source: string };
}> {
  const manifest = await readManifest(context.cwd);
  const withSource = (source: string) => {
    const feed = resolveFeed({
      source,
      feeds: manifest.manifest?.feeds,
      env: context.env,
      cwd: context.cwd,
      projectDir: context.cwd,
    });
    return { registry: openNuGetFeed(feed), source: feed.source };
  };
  return { open: (source) => withSource(source).registry, withSource };
}

/**
 * What the user typed with `--source` (`EchoTools`, `Az.Accounts@^2.1`, or the pack name
 * `az--accounts`) as a pack specifier: a NuGet id in any case is the pack
 * `toPackNameFromNuGetId` names (`echotools`, `az--accounts`).
 */
export function parseFeedSpecifier(specifier: string): { name: string; range?: string } {
  const at = specifier.indexOf('@');
  const id = at === -1 ? specifier : specifier.slice(0, at);
  const name =
    toPackNameFromNuGetId(id) ?? (toNuGetIdFromPackName(id) === undefined ? undefined : id);
  if (name === undefined) {
    throw new ToolpackError(
      'E_USAGE',
      `The NuGet id ${JSON.stringify(id)} cannot be a pack name: a pack name writes "." as "--" and "_" as "---", so an id that starts with "_", has "_" next to ".", "-" or another "_", or is longer than 64 characters once written so has none.`,
      {
        hint: 'Give the module id as the feed lists it (e.g. Az.Accounts), or copy the module into your project as a module: source.',
      },
    );
  }
  return parsePackSpecifier(`${name}${at === -1 ? '' : specifier.slice(at)}`);
}

import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ToolpackError } from '@toolpack/core';
import type { FeedSpec } from '../manifest/manifest-schema.ts';
import { isHttpUrl } from '../registry/open-registry.ts';
import type { NuGetFeedOptions } from './nuget-feed.ts';

export interface ResolvedFeed extends NuGetFeedOptions {
  /**
   * What toolpack.lock records as the pack's `source`: the feed's name in toolpack.yaml, else
   * its URL, else its folder relative to the project.
   */
  source: string;
}

/**
 * `--source` (or a lock entry's `source`): the name of a `feeds:` entry of toolpack.yaml, else
 * a URL, else a folder (relative to `cwd`). A named feed's login is read from the variables it
 * names, and a missing one is an error here, before anything is asked of the feed.
 */
export function resolveFeed(options: {
  source: string;
  feeds?: Record<string, FeedSpec> | undefined;
  env: NodeJS.ProcessEnv;
  cwd: string;
  projectDir: string;
}): ResolvedFeed {
  const named = options.feeds?.[options.source];
  if (named !== undefined && Object.hasOwn(options.feeds ?? {}, options.source)) {
    const location = toLocation(named.url, options.projectDir);
    if (named.passwordEnv === undefined) return { location, source: options.source };
    const password = options.env[named.passwordEnv];
    const username = named.usernameEnv === undefined ? 'toolpack' : options.env[named.usernameEnv];
    const missing = [
      ...(password ? [] : [named.passwordEnv]),
      ...(username ? [] : [named.usernameEnv!]),
    ];
    if (missing.length > 0) {
      throw new ToolpackError(
        'E_USAGE',
        `The feed ${options.source} in toolpack.yaml logs in with ${missing.join(' and ')}, which ${missing.length === 1 ? 'is' : 'are'} not set.`,
        {
          hint: `Set ${missing.join(' and ')} (the feed's user name and token), then run the command again.`,
        },
      );
    }
    return {
      location,
      source: options.source,
      credentials: { username: username!, password: password! },
    };
  }
  if (isHttpUrl(options.source)) return { location: options.source, source: options.source };
  const location = toLocation(options.source, options.cwd);
  const relative = path.relative(options.projectDir, location).split(path.sep).join('/');
  return { location, source: relative === '' ? '.' : relative };
}

function toLocation(value: string, base: string): string {
  if (isHttpUrl(value)) return value;
  return value.startsWith('file://')
    ? fileURLToPath(value)
    : path.resolve(base, value.replace(/^file:/, ''));
}

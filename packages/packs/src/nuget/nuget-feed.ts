import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { ToolpackError } from '@toolpack/core';
import { computeIntegrity } from '../integrity/integrity.ts';
import { loadSemver } from '../lazy-dependencies.ts';
import { isHttpUrl } from '../registry/open-registry.ts';
import type { DownloadOptions, RegistryClient } from '../registry/registry-client.ts';
import type {
  PackDist,
  PackDoc,
  SearchQuery,
  SearchResponse,
  VersionDoc,
} from '../registry/registry-types.ts';
import { sortVersionsDescending } from '../resolve/resolve-version.ts';
import type { PackLimits } from '../tarball/limits.ts';
import { createFeedHttp, type FeedCredentials } from './feed-http.ts';
import type { FeedEntry, FeedProtocol } from './feed-entry.ts';
import { createFolderFeed } from './folder-feed.ts';
import {
  toNuGetIdFromPackName,
  toPackNameFromNuGetId,
  toSemverFromNuGetVersion,
} from './nuget-names.ts';
import { createV2Feed } from './v2-feed.ts';
import { createV3Feed } from './v3-feed.ts';

export interface NuGetFeedOptions {
  /** A v3 service index (`.../index.json`), a v2 feed (`.../api/v2`), or a folder of .nupkg files. */
  location: string;
  credentials?: FeedCredentials;
  fetch?: typeof fetch;
  limits?: Partial<PackLimits>;
}

export interface NuGetFeedClient extends RegistryClient {
  readonly kind: 'nuget';
  readonly protocol: FeedProtocol['kind'];
  /** What toolpack.lock records as `resolved`: the package's URL, or `file:` its path from `projectDir`. */
  resolveDownload(dist: PackDist, projectDir: string): string;
  /**
   * The highest listed version of the module `id` (any case) within `range` (semver; stable
   * versions only unless the range names a prerelease), downloaded, with its own SHA-512
   * checked against what the feed states: what a module's RequiredModules resolve to.
   */
  fetchModule(id: string, range: string): Promise<FetchedModule>;
  /**
   * The NuGet id of the pack `name` as the feed spells it (`Az.Accounts` for `az--accounts`),
   * once the pack has been listed (`getPack`, `getVersion`); what the lock and `mcp pack info`
   * show, since the pack name keeps neither its case nor its dots.
   */
  packageIdOf(name: string): string | undefined;
}

export interface FetchedModule {
  /** As the feed spells it. */
  id: string;
  /** Semver. */
  version: string;
  dist: PackDist;
  bytes: Buffer;
}

/**
 * A NuGet feed as a registry of packs: each PowerShell module is the pack its id names
 * (`toPackNameFromNuGetId`: `EchoTools` is `echotools`, `Az.Accounts` is `az--accounts`), its
 * versions those of the feed that semver can spell. A listing names no tools
 * (they are discovered once the module is unpacked) and has an integrity only where the feed
 * states the package's hash; `getVersion` downloads the package and gives its own SHA-512
 * (as NuGet computes it), checked against what the feed stated, and `download` then hands
 * those very bytes on.
 */
export function openNuGetFeed(options: NuGetFeedOptions): NuGetFeedClient {
  const http = isHttpUrl(options.location)
    ? createFeedHttp({
        feed: options.location,
        ...(options.credentials ? { credentials: options.credentials } : {}),
        ...(options.fetch ? { fetch: options.fetch } : {}),
      })
    : undefined;
  const protocol: FeedProtocol =
    http === undefined
      ? createFolderFeed({
          dir: options.location,
          ...(options.limits ? { limits: options.limits } : {}),
        })
      : /\/index\.json$/i.test(new URL(options.location).pathname)
        ? createV3Feed({ url: options.location, http })
        : createV2Feed({ url: options.location, http });
  const downloaded = new Map<string, Buffer>();
  const packageIds = new Map<string, string>();
  const fetchPackage = async (
    where: string,
    downloadOptions: DownloadOptions = {},
  ): Promise<Buffer> => {
    const known = downloaded.get(where);
    if (known !== undefined) return known;
    if (http === undefined) {
      const bytes = await readFile(where);
      downloadOptions.onProgress?.(bytes.length, bytes.length);
      return bytes;
    }
    if (new URL(where).origin !== new URL(options.location).origin) {
      throw new ToolpackError(
        'E_TARBALL_ORIGIN',
        `The NuGet feed ${options.location} names a package at ${where.slice(0, 120)}, which is not on its own origin; nothing was downloaded.`,
        { hint: "A feed's packages come from its own origin; tell the feed's owner." },
      );
    }
    return http.download(where, {
      ...downloadOptions,
      ...(options.limits ? { limits: options.limits } : {}),
    });
  };
  const listPack = async (
    name: string,
  ): Promise<{ doc: PackDoc; entries: Map<string, FeedEntry> }> => {
    const entries = new Map<string, FeedEntry>();
    const id = toNuGetIdFromPackName(name);
    for (const entry of id === undefined ? [] : await protocol.listVersions(id)) {
      const version = toSemverFromNuGetVersion(entry.version);
      if (version !== undefined && toPackNameFromNuGetId(entry.id) === name)
        entries.set(version, entry);
    }
    if (entries.size === 0) {
      throw new ToolpackError(
        'E_PACK_NOT_FOUND',
        `The NuGet feed ${options.location} has no package ${id ?? name} (NuGet ids are matched in any case; versions semver cannot spell, such as 1.0.0.1, are left out).`,
        { hint: `Find one with mcp pack search --tag MCPTools --source ${options.location}.` },
      );
    }
    const versions: Record<string, VersionDoc> = {};
    for (const [version, entry] of entries) versions[version] = toVersionDoc(name, version, entry);
    const newest = sortVersionsDescending(Object.keys(versions))[0]!;
    packageIds.set(name, entries.get(newest)!.id);
    const latest = sortVersionsDescending(Object.keys(versions)).find(
      (v) => !v.includes('-') && versions[v]?.yanked !== true,
    );
    const shown = versions[latest ?? sortVersionsDescending(Object.keys(versions))[0]!]!;
    return {
      doc: {
        name,
        description: shown.description,
        tags: shown.tags,
        ...(latest === undefined ? {} : { latest }),
        versions,
      },
      entries,
    };
  };
  return {
    kind: 'nuget',
    protocol: protocol.kind,
    location: options.location,
    async search(query: SearchQuery): Promise<SearchResponse> {
      const limit = query.limit ?? 20;
      const found = await protocol.search({
        tags: query.tags ?? [],
        words: (query.q ?? '').split(/\s+/).filter(Boolean),
        limit,
      });
      const latest = new Map<string, { version: string; entry: FeedEntry }>();
      // Listed matches that no `mcp pack add <name>` installs, by id, with why: a search names
      // them rather than hide them (unlisted versions are hidden on purpose, as NuGet does).
      const passedOver = new Map<string, { id: string; version: string; reason: string }>();
      for (const entry of found) {
        if (!entry.listed) continue;
        const name = toPackNameFromNuGetId(entry.id);
        const version = toSemverFromNuGetVersion(entry.version);
        // A search shows what `mcp pack add <name>` would install: the latest stable version.
        if (name === undefined || version === undefined || version.includes('-')) {
          const reason =
            name === undefined
              ? 'its NuGet id cannot be a pack name'
              : version === undefined
                ? `version ${entry.version} has no semver form`
                : `only a prerelease: add it as ${name}@${version}`;
          passedOver.set(entry.id.toLowerCase(), { id: entry.id, version: entry.version, reason });
          continue;
        }
        const current = latest.get(name);
        if (
          current === undefined ||
          sortVersionsDescending([current.version, version])[0] === version
        )
          latest.set(name, { version, entry });
      }
      for (const name of latest.keys()) passedOver.delete(toNuGetIdFromPackName(name) ?? name);
      const packs = [...latest.entries()]
        .sort(([a], [b]) => a.localeCompare(b))
        .slice(0, limit)
        .map(([name, { version, entry }]) => ({
          name,
          version,
          description: entry.description,
          tags: entry.tags,
          toolCount: 0,
        }));
      return {
        packs,
        metadata: {
          count: packs.length,
          ...(passedOver.size === 0
            ? {}
            : {
                passedOver: [...passedOver.values()].sort((a, b) => a.id.localeCompare(b.id)),
              }),
        },
      };
    },
    async getPack(name) {
      return (await listPack(name)).doc;
    },
    async getVersion(name, version) {
      const { entries } = await listPack(name);
      const entry = entries.get(version);
      if (entry === undefined) {
        throw new ToolpackError(
          'E_PACK_NOT_FOUND',
          `The NuGet feed ${options.location} has no version ${version} of ${name}.`,
        );
      }
      const bytes = await fetchPackage(entry.download);
      const integrity = computeIntegrity(bytes);
      if (entry.integrity !== undefined && entry.integrity !== integrity) {
        throw new ToolpackError(
          'E_INTEGRITY',
          `The package of ${name}@${version} from ${options.location} does not match the hash the feed states for it; nothing was installed.`,
          { hint: 'The feed or something between is serving another file; tell its owner.' },
        );
      }
      downloaded.set(entry.download, bytes);
      const doc = toVersionDoc(name, version, entry);
      return { ...doc, dist: { ...doc.dist, integrity, size: bytes.length } };
    },
    download(dist, downloadOptions) {
      return fetchPackage(dist.tarball, downloadOptions);
    },
    async fetchModule(id, range) {
      const found = new Map<string, FeedEntry>();
      for (const entry of await protocol.listVersions(id)) {
        const version = toSemverFromNuGetVersion(entry.version);
        if (version !== undefined && entry.listed && entry.id.toLowerCase() === id.toLowerCase())
          found.set(version, entry);
      }
      const version = loadSemver().maxSatisfying([...found.keys()], range);
      const entry = version === null ? undefined : found.get(version);
      if (version === null || entry === undefined) {
        throw new ToolpackError(
          'E_PACK_NOT_FOUND',
          `The NuGet feed ${options.location} has no module ${id} in ${range === '*' ? 'any version' : range}${found.size === 0 ? '' : ` (it has ${[...found.keys()].join(', ')})`}.`,
          {
            hint: "A module's RequiredModules are installed from the feed the module came from: publish them there.",
          },
        );
      }
      const bytes = await fetchPackage(entry.download);
      const integrity = computeIntegrity(bytes);
      if (entry.integrity !== undefined && entry.integrity !== integrity) {
        throw new ToolpackError(
          'E_INTEGRITY',
          `The package of ${entry.id} ${version} from ${options.location} does not match the hash the feed states for it; nothing was installed.`,
          { hint: 'The feed or something between is serving another file; tell its owner.' },
        );
      }
      return {
        id: entry.id,
        version,
        dist: { tarball: entry.download, integrity, size: bytes.length, fileCount: 0 },
        bytes,
      };
    },
    packageIdOf(name) {
      return packageIds.get(name);
    },
    resolveDownload(dist, projectDir) {
      if (http !== undefined) return dist.tarball;
      return `file:${path.relative(projectDir, dist.tarball).split(path.sep).join('/')}`;
    },
  };
}

function toVersionDoc(name: string, version: string, entry: FeedEntry): VersionDoc {
  return {
    name,
    version,
    description: entry.description,
    tags: entry.tags,
    tools: [],
    env: [],
    dist: { tarball: entry.download, integrity: entry.integrity ?? '', size: 0, fileCount: 0 },
    ...(entry.listed ? {} : { yanked: true }),
  };
}

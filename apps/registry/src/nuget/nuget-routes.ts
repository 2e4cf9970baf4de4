import { createHash } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { describePermissions } from '@toolpack/core';
import type { StoredPack, StoredVersion } from '../storage/metadata-store.ts';
import { compareVersions } from '../storage/pack-versions.ts';
import {
  countDownload,
  sendMethodNotAllowed,
  sendSeeding,
  takeSearchToken,
} from '../http/api-routes.ts';
import { sendError, sendJson } from '../http/http-io.ts';
import type { RegistryContext } from '../http/registry-context.ts';
import { MAX_PAGE_SIZE } from '../http/search-params.ts';
import { buildModuleNupkg } from './build-module-nupkg.ts';
import { toPackName, type NugetIdentity } from './nuget-ids.ts';
import { handleNugetPublish } from './nuget-publish.ts';
import { readNugetIdentity, readStoredPackFiles } from './read-stored-pack.ts';

/** The NuGet v3 face of the gallery: what PSResourceGet, `dotnet` and NuGet clients read. */
export const NUGET_PREFIX = '/nuget/v3/';

const MAX_QUERY_LENGTH = 512;

interface NugetUrls {
  base: string;
  registration(id: string): string;
  leaf(id: string, version: string): string;
  content(id: string, version: string): string;
  packPage(name: string): string;
}

function buildUrls(context: RegistryContext): NugetUrls {
  const root = context.publicUrl();
  const base = `${root}/nuget/v3`;
  const lower = (text: string) => encodeURIComponent(text.toLowerCase());
  return {
    base,
    registration: (id) => `${base}/registration/${lower(id)}/index.json`,
    leaf: (id, version) => `${base}/registration/${lower(id)}/${lower(version)}.json`,
    content: (id, version) =>
      `${base}/flatcontainer/${lower(id)}/${lower(version)}/${lower(id)}.${lower(version)}.nupkg`,
    packPage: (name) => getPackPageUrl(context, name),
  };
}

/**
 * `/nuget/v3/index.json` (the service index), `search`, `registration/{id}/index.json`,
 * `flatcontainer/{id}/index.json`, `flatcontainer/{id}/{version}/{id}.{version}.nupkg` and
 * `package` (PUT: publish a module). Ids are matched without regard to case.
 */
export async function handleNuget(
  context: RegistryContext,
  request: IncomingMessage,
  response: ServerResponse,
  url: URL,
): Promise<void> {
  const rest = url.pathname.slice(NUGET_PREFIX.length);
  const method = request.method ?? 'GET';
  const reading = method === 'GET' || method === 'HEAD';
  if (rest === 'package' || rest === 'package/') {
    if (method === 'PUT') return handleNugetPublish(context, request, response);
    return sendMethodNotAllowed(response, 'PUT');
  }
  if (!reading) return sendMethodNotAllowed(response, 'GET, HEAD');
  const urls = buildUrls(context);
  if (rest === 'index.json') return sendServiceIndex(response, urls);
  if (rest === 'search') return handleSearch(context, request, response, url, urls);
  if (context.isSeeding()) {
    return sendSeeding(response);
  }
  const parts = rest.split('/').map((part) => safeDecode(part));
  if (parts[0] === 'registration' && parts.length === 3 && parts[1] !== undefined) {
    if (parts[2] === 'index.json') return handleRegistration(context, response, urls, parts[1]);
    const version = /^(.+)\.json$/.exec(parts[2] ?? '')?.[1];
    if (version !== undefined)
      return handleRegistrationLeaf(context, response, urls, parts[1], version);
  }
  if (parts[0] === 'flatcontainer' && parts[1] !== undefined) {
    if (parts.length === 3 && parts[2] === 'index.json')
      return handleVersionList(context, response, parts[1]);
    if (parts.length === 4 && parts[2] !== undefined)
      return handleNupkg(context, request, response, parts[1], parts[2], parts[3] ?? '');
  }
  sendError(response, 404, { code: 'E_NOT_FOUND', message: `Nothing at ${url.pathname}.` });
}

function sendServiceIndex(response: ServerResponse, urls: NugetUrls): void {
  const resource = (id: string, type: string, comment: string) => ({
    '@id': id,
    '@type': type,
    comment,
  });
  const search = `${urls.base}/search`;
  const registration = `${urls.base}/registration/`;
  sendJson(response, 200, {
    version: '3.0.0',
    resources: [
      ...[
        'SearchQueryService',
        'SearchQueryService/3.0.0-beta',
        'SearchQueryService/3.0.0-rc',
        'SearchQueryService/3.5.0',
      ].map((type) => resource(search, type, 'Packs by words and tags (q=tags:MCPTools).')),
      ...[
        'RegistrationsBaseUrl',
        'RegistrationsBaseUrl/3.0.0-beta',
        'RegistrationsBaseUrl/3.0.0-rc',
        'RegistrationsBaseUrl/3.6.0',
      ].map((type) => resource(registration, type, 'Every version of a pack, with its metadata.')),
      resource(
        `${urls.base}/flatcontainer/`,
        'PackageBaseAddress/3.0.0',
        'PowerShell module packs as .nupkg.',
      ),
      resource(
        `${urls.base}/package`,
        'PackagePublish/2.0.0',
        'Publish a PowerShell module as a pack (X-NuGet-ApiKey: a gallery token).',
      ),
    ],
  });
}

/** `search?q=&skip=&take=&prerelease=`: `tags:T` (or `tag:T`) narrows by tag, other words search. */
async function handleSearch(
  context: RegistryContext,
  request: IncomingMessage,
  response: ServerResponse,
  url: URL,
  urls: NugetUrls,
): Promise<void> {
  if (!takeSearchToken(context, request, response)) return;
  const params = url.searchParams;
  const skip = readCount(params.get('skip'), 0);
  const take = Math.min(MAX_PAGE_SIZE, Math.max(1, readCount(params.get('take'), 20)));
  const prerelease = (params.get('prerelease') ?? 'false').toLowerCase() === 'true';
  const words: string[] = [];
  const tags: string[] = [];
  let exactName: string | undefined;
  for (const term of (params.get('q') ?? '').slice(0, MAX_QUERY_LENGTH).split(/\s+/)) {
    const field = /^(tags?|packageid|id):(.*)$/i.exec(term);
    const value = field?.[2] ?? term;
    if (value === '') continue;
    const kind = field?.[1]?.toLowerCase();
    if (kind === 'tag' || kind === 'tags') tags.push(value.toLowerCase());
    else {
      // A package id names a pack (`acme.widgets` is `acme/widgets`); search finds it by name.
      const name = toPackName(value) ?? value;
      if (kind !== undefined) exactName = name;
      words.push(name);
    }
  }
  if (context.isSeeding()) {
    return sendSeeding(response);
  }
  const page = await context.store.search({
    words,
    tags: [...new Set(tags)].slice(0, 10),
    offset: skip,
    limit: take,
    ...(exactName === undefined && words.length === 0
      ? {}
      : { exactName: exactName ?? words.join(' ') }),
  });
  const data = [];
  for (const summary of page.packs) {
    const pack = await context.store.getPack(summary.name);
    if (pack === undefined) continue;
    const versions = pack.versions
      .filter((version) => version.doc.yanked !== true)
      .filter((version) => prerelease || !version.doc.version.includes('-'))
      .sort((a, b) => compareVersions(a.doc.version, b.doc.version));
    const latest = versions.at(-1);
    if (latest === undefined) continue;
    const identity = await readNugetIdentity(context, latest);
    data.push({
      '@id': urls.registration(identity.id),
      '@type': 'Package',
      registration: urls.registration(identity.id),
      id: identity.id,
      version: latest.doc.version,
      description: describeForNuget(latest, identity),
      summary: latest.doc.description,
      title: identity.id,
      projectUrl: urls.packPage(pack.name),
      tags: latest.doc.tags,
      authors: [pack.owner],
      owners: [pack.owner],
      totalDownloads: 0,
      verified: false,
      packageTypes: [{ name: 'Dependency' }],
      versions: versions.map((version) => ({
        version: version.doc.version,
        downloads: 0,
        '@id': urls.leaf(identity.id, version.doc.version),
      })),
    });
  }
  // The store does not count every match; one past what was seen tells a client to page on.
  const totalHits = skip + page.packs.length + (page.hasMore ? 1 : 0);
  sendJson(response, 200, { totalHits, data });
}

export async function findPack(
  context: RegistryContext,
  id: string,
): Promise<StoredPack | undefined> {
  const name = toPackName(id);
  return name === undefined ? undefined : context.store.getPack(name);
}

/** `registration/{id}/index.json`: one page holding every version, oldest first. */
async function handleRegistration(
  context: RegistryContext,
  response: ServerResponse,
  urls: NugetUrls,
  id: string,
): Promise<void> {
  const pack = await findPack(context, id);
  if (pack === undefined || pack.versions.length === 0) return sendPackMissing(response, id);
  const versions = [...pack.versions].sort((a, b) => compareVersions(a.doc.version, b.doc.version));
  const leaves = [];
  for (const version of versions) leaves.push(await toLeaf(context, urls, pack, version));
  const identityId = leaves.at(-1)?.catalogEntry.id ?? id;
  const lower = versions[0]?.doc.version ?? '';
  const upper = versions.at(-1)?.doc.version ?? '';
  sendJson(response, 200, {
    '@id': urls.registration(identityId),
    '@type': ['catalog:CatalogRoot', 'PackageRegistration', 'catalog:Permalink'],
    count: 1,
    items: [
      {
        '@id': `${urls.registration(identityId)}#page/${lower}/${upper}`,
        '@type': 'catalog:CatalogPage',
        count: leaves.length,
        lower,
        upper,
        parent: urls.registration(identityId),
        items: leaves,
      },
    ],
  });
}

async function handleRegistrationLeaf(
  context: RegistryContext,
  response: ServerResponse,
  urls: NugetUrls,
  id: string,
  version: string,
): Promise<void> {
  const pack = await findPack(context, id);
  const stored = pack?.versions.find((v) => v.doc.version.toLowerCase() === version.toLowerCase());
  if (pack === undefined || stored === undefined)
    return sendPackMissing(response, `${id} ${version}`);
  sendJson(response, 200, await toLeaf(context, urls, pack, stored));
}

async function toLeaf(
  context: RegistryContext,
  urls: NugetUrls,
  pack: StoredPack,
  stored: StoredVersion,
) {
  const identity = await readNugetIdentity(context, stored);
  const { doc } = stored;
  const content = urls.content(identity.id, doc.version);
  return {
    '@id': urls.leaf(identity.id, doc.version),
    '@type': 'Package',
    catalogEntry: {
      '@id': urls.leaf(identity.id, doc.version),
      '@type': 'PackageDetails',
      id: identity.id,
      version: doc.version,
      description: describeForNuget(stored, identity),
      summary: doc.description,
      title: identity.id,
      tags: identity.module === undefined ? doc.tags : ['PSModule', ...doc.tags],
      authors: pack.owner,
      listed: doc.yanked !== true,
      published: stored.publishedAt,
      projectUrl: urls.packPage(pack.name),
      packageContent: content,
      // What PSResourceGet installs with the module (Install-PSResource's dependency check).
      dependencyGroups:
        identity.dependencies === undefined
          ? []
          : [
              {
                '@type': 'PackageDependencyGroup',
                dependencies: identity.dependencies.map((dependency) => ({
                  '@type': 'PackageDependency',
                  id: dependency.id,
                  ...(dependency.range === undefined ? {} : { range: dependency.range }),
                })),
              },
            ],
      isPrerelease: doc.version.includes('-'),
      ...(doc.deprecated === undefined
        ? {}
        : { deprecation: { reasons: ['Other'], message: doc.deprecated } }),
    },
    packageContent: content,
    registration: urls.registration(identity.id),
  };
}

/** `flatcontainer/{id}/index.json`: the versions a NuGet client can download (module packs only). */
async function handleVersionList(
  context: RegistryContext,
  response: ServerResponse,
  id: string,
): Promise<void> {
  const pack = await findPack(context, id);
  if (pack === undefined) return sendPackMissing(response, id);
  const versions = [];
  for (const stored of [...pack.versions].sort((a, b) =>
    compareVersions(a.doc.version, b.doc.version),
  )) {
    if ((await readNugetIdentity(context, stored)).module !== undefined)
      versions.push(stored.doc.version.toLowerCase());
  }
  if (versions.length === 0) return sendNotAModule(response, pack.name);
  sendJson(response, 200, { versions });
}

async function handleNupkg(
  context: RegistryContext,
  request: IncomingMessage,
  response: ServerResponse,
  id: string,
  version: string,
  file: string,
): Promise<void> {
  if (file.toLowerCase() !== `${id}.${version}.nupkg`.toLowerCase())
    return sendError(response, 404, {
      code: 'E_NOT_FOUND',
      message: `Nothing named ${file} here.`,
    });
  return sendPackNupkg(context, request, response, id, version);
}

/** The `.nupkg` of a module pack's version, made from its tarball; 404 for anything else. */
export async function sendPackNupkg(
  context: RegistryContext,
  request: IncomingMessage,
  response: ServerResponse,
  id: string,
  version: string,
): Promise<void> {
  const pack = await findPack(context, id);
  const stored = pack?.versions.find((v) => v.doc.version.toLowerCase() === version.toLowerCase());
  if (pack === undefined || stored === undefined)
    return sendPackMissing(response, `${id} ${version}`);
  const read = await readStoredPackFiles(context, stored);
  if (read === undefined) return sendPackMissing(response, `${id} ${version}`);
  if (read.identity.module === undefined) return sendNotAModule(response, pack.name);
  const bytes = await buildModuleNupkg({
    id: read.identity.id,
    module: read.identity.module,
    doc: stored.doc,
    files: read.files,
    owner: pack.owner,
    packPageUrl: getPackPageUrl(context, pack.name),
    ...(read.identity.dependencies === undefined
      ? {}
      : { dependencies: read.identity.dependencies }),
  });
  const etag = `"${createHash('sha256').update(bytes).digest('base64url')}"`;
  const headers = {
    'content-type': 'application/octet-stream',
    'cache-control': 'public, max-age=3600',
    etag,
    'x-content-type-options': 'nosniff',
  };
  if (request.headers['if-none-match'] === etag) {
    response.writeHead(304, headers);
    response.end();
    return;
  }
  response.writeHead(200, { ...headers, 'content-length': String(bytes.length) });
  if (request.method !== 'HEAD') countDownload(context, stored.blobKey);
  response.end(request.method === 'HEAD' ? undefined : bytes);
}

export function getPackPageUrl(context: RegistryContext, name: string): string {
  return `${context.publicUrl()}/packs/${name}`;
}

/**
 * The description a NuGet client shows: the pack's own, and for a pack that is not a
 * PowerShell module what it needs and how to install it instead.
 */
export function describeForNuget(stored: StoredVersion, identity: NugetIdentity): string {
  const { doc } = stored;
  if (identity.module !== undefined) return doc.description;
  const needs = doc.env.filter((variable) => variable.required).map((variable) => variable.name);
  const lines = [
    doc.description,
    '',
    `A Toolpack pack of ${doc.tools.length === 1 ? '1 MCP tool' : `${doc.tools.length} MCP tools`}, not a PowerShell module: install it with \`mcp pack add ${doc.name}\`.`,
  ];
  if (needs.length > 0) lines.push(`It needs ${needs.join(', ')} in its environment.`);
  if (doc.permissions !== undefined)
    lines.push(`It asks for ${describePermissions(doc.permissions).join('; ')}.`);
  return lines.join('\n');
}

function sendPackMissing(response: ServerResponse, what: string): void {
  sendError(response, 404, {
    code: 'E_PACK_NOT_FOUND',
    message: `No package ${what} in this gallery.`,
  });
}

function sendNotAModule(response: ServerResponse, name: string): void {
  // NuGet clients print the status line, so it says what to do instead.
  response.statusMessage = `${name} is not a PowerShell module; install it with mcp pack add ${name}`;
  sendError(response, 404, {
    code: 'E_NOT_A_MODULE',
    message: `${name} is a Toolpack pack, not a PowerShell module, so it has no .nupkg.`,
    hint: `Install it with mcp pack add ${name}.`,
  });
}

function readCount(raw: string | null, fallback: number): number {
  return raw !== null && /^\d{1,7}$/.test(raw) ? Number(raw) : fallback;
}

function safeDecode(part: string): string {
  try {
    return decodeURIComponent(part);
  } catch {
    return '';
  }
}

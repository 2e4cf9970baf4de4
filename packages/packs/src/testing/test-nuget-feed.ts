import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { parseNuspec, type Nuspec } from '../nuget/parse-nuspec.ts';
import yauzl from 'yauzl';

export interface TestNuGetFeedOptions {
  /** The .nupkg files it serves; each one's id and version come from its .nuspec. */
  packages: readonly Buffer[];
  /** When set, every request needs this HTTP Basic login (a private feed). */
  credentials?: { username: string; password: string };
  /** Packages are answered with a 302 to `<redirectPackagesTo>/<path>` (a CDN, another feed). */
  redirectPackagesTo?: string;
  /** The v3 index names this search resource instead of its own (nuget.org searches on another host). */
  searchAt?: string;
  /**
   * A v2 answer holds at most this many entries (whatever `$top` asks), and links the rest
   * with `<link rel="next">` at the next `$skip`, as the PowerShell Gallery pages at 100.
   */
  v2PageSize?: number;
}

export interface TestNuGetFeed {
  /** `http://127.0.0.1:<port>` */
  url: string;
  /** The v2 (OData) feed, the PowerShell Gallery's API shape: `<url>/api/v2`. */
  v2: string;
  /** The v3 service index: `<url>/v3/index.json`. */
  v3: string;
  /** Every request's method and path (with query), in order. */
  requests: string[];
  /** The paths of the requests that carried an Authorization header. */
  authorized: string[];
  /**
   * Serves `bytes` for the package `id` `version` from now on, while its listing still states
   * the hash of the package it was started with (a feed, or something between, that swapped it).
   */
  serveInstead(id: string, version: string, bytes: Buffer): void;
  close(): Promise<void>;
}

interface Served {
  nuspec: Nuspec;
  bytes: Buffer;
  /** SHA-512, base64, of the package the feed was started with. */
  hash: string;
}

/**
 * A NuGet feed on 127.0.0.1, written from NuGet's protocol documentation (not from any
 * server's code), speaking both protocols a PowerShell user's feeds do:
 * - v2, the OData (Atom) API of the PowerShell Gallery: `FindPackagesById()?id='<id>'`,
 *   `Packages(Id='<id>',Version='<version>')`, `Search()` with `searchTerm` and a `$filter` of
 *   `IsLatestVersion` and `substringof('<tag>', Tags) eq true` (what PSResourceGet sends for
 *   `Find-PSResource -Tag`), `$skip`/`$top`, and `package/<id>/<version>` for the .nupkg;
 * - v3: a service index naming `PackageBaseAddress/3.0.0` (`<id>/index.json`, the .nupkg and
 *   its .nuspec, all lower case), `RegistrationsBaseUrl/3.6.0` (one page, inlined) and
 *   `SearchQueryService/3.5.0` (`q` with `tags:<tag>` and words, `skip`, `take`, `prerelease`).
 * A package's hash is its SHA-512, base64, as NuGet states it. It serves hostile packages
 * too: it reads only their .nuspec.
 */
export async function startTestNuGetFeed(options: TestNuGetFeedOptions): Promise<TestNuGetFeed> {
  const served: Served[] = [];
  for (const bytes of options.packages) {
    const text = await readNuspecUnchecked(bytes);
    const nuspec = text === undefined ? undefined : parseNuspec(text);
    if (nuspec === undefined)
      throw new Error('startTestNuGetFeed: a package without a readable .nuspec');
    served.push({ nuspec, bytes, hash: createHash('sha512').update(bytes).digest('base64') });
  }
  const requests: string[] = [];
  const authorized: string[] = [];
  let base = '';
  const find = (id: string) => served.filter((s) => s.nuspec.id.toLowerCase() === id.toLowerCase());
  /** IsLatestVersion: the last stable version (the feed lists them in order). */
  const latestOf = (list: Served[]) =>
    list.filter((s) => !s.nuspec.version.includes('-')).at(-1) ?? list.at(-1);
  const server = createServer((request, response) => {
    requests.push(`${request.method} ${request.url}`);
    if (request.headers.authorization !== undefined) authorized.push(request.url ?? '');
    try {
      handle(request, response);
    } catch (error) {
      response.writeHead(500).end(String(error));
    }
  });
  const handle = (request: IncomingMessage, response: ServerResponse): void => {
    if (options.credentials !== undefined) {
      const expected = `Basic ${Buffer.from(`${options.credentials.username}:${options.credentials.password}`).toString('base64')}`;
      if (request.headers.authorization !== expected) {
        response.writeHead(401, { 'www-authenticate': 'Basic realm="feed"' }).end();
        return;
      }
    }
    const url = new URL(request.url ?? '/', base);
    const route = decodeURIComponent(url.pathname);
    const json = (value: unknown) =>
      response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(value));
    const atom = (entries: Served[]) => {
      const skip = Number(url.searchParams.get('$skip') ?? 0);
      const top = Math.min(
        Number(url.searchParams.get('$top') ?? Infinity),
        options.v2PageSize ?? Infinity,
      );
      const page = entries.slice(skip, skip + top);
      let next: string | undefined;
      if (skip + top < entries.length) {
        const following = new URL(url);
        following.searchParams.set('$skip', String(skip + top));
        next = following.href;
      }
      response
        .writeHead(200, { 'content-type': 'application/atom+xml;type=feed;charset=utf-8' })
        .end(atomFeed(base, page, { count: entries.length, next }));
    };
    const nupkg = (entry: Served | undefined) =>
      entry === undefined
        ? response.writeHead(404).end()
        : options.redirectPackagesTo !== undefined
          ? response
              .writeHead(302, { location: `${options.redirectPackagesTo}${url.pathname}` })
              .end()
          : response
              .writeHead(200, {
                'content-type': 'application/octet-stream',
                'content-length': entry.bytes.length,
              })
              .end(entry.bytes);
    // v2
    if (route === '/api/v2' || route === '/api/v2/') {
      response
        .writeHead(200, { 'content-type': 'application/xml' })
        .end(
          `<?xml version="1.0" encoding="utf-8"?><service xml:base="${base}/api/v2/" xmlns="http://www.w3.org/2007/app" xmlns:atom="http://www.w3.org/2005/Atom"><workspace><atom:title>Default</atom:title><collection href="Packages"><atom:title>Packages</atom:title></collection></workspace></service>`,
        );
      return;
    }
    if (route === '/api/v2/FindPackagesById()') {
      const filter = readFilter(url.searchParams.get('$filter') ?? '');
      if (filter === undefined) {
        response.writeHead(400).end('unsupported $filter');
        return;
      }
      const list = find(unquote(url.searchParams.get('id') ?? ''));
      atom((filter.latest ? list.slice(-1) : list).filter((s) => filter.matches(s.nuspec)));
      return;
    }
    const single = /^\/api\/v2\/Packages\(Id='([^']*)',Version='([^']*)'\)$/.exec(route);
    if (single) {
      const hit = find(single[1]!).filter((s) => s.nuspec.version === single[2]);
      if (hit.length === 0) response.writeHead(404).end();
      else atom(hit);
      return;
    }
    if (
      route === '/api/v2/Search()' ||
      route === '/api/v2/Packages()' ||
      route === '/api/v2/Packages'
    ) {
      const term = unquote(url.searchParams.get('searchTerm') ?? '');
      const filter = readFilter(url.searchParams.get('$filter') ?? '');
      if (filter === undefined) {
        response.writeHead(400).end('unsupported $filter');
        return;
      }
      const ids = [...new Set(served.map((s) => s.nuspec.id.toLowerCase()))];
      const hits = ids
        .flatMap((id) => (filter.latest ? [latestOf(find(id))!] : find(id)))
        .filter((s) => matchesTerm(s.nuspec, term) && filter.matches(s.nuspec));
      atom(hits);
      return;
    }
    const download = /^\/api\/v2\/package\/([^/]+)\/([^/]+)\/?$/.exec(route);
    if (download) {
      nupkg(find(download[1]!).find((s) => s.nuspec.version === download[2]));
      return;
    }
    // v3
    if (route === '/v3/index.json') {
      json({
        version: '3.0.0',
        resources: [
          { '@id': `${base}/v3/flatcontainer/`, '@type': 'PackageBaseAddress/3.0.0' },
          { '@id': `${base}/v3/registration/`, '@type': 'RegistrationsBaseUrl/3.6.0' },
          { '@id': options.searchAt ?? `${base}/v3/search`, '@type': 'SearchQueryService/3.5.0' },
          { '@id': options.searchAt ?? `${base}/v3/search`, '@type': 'SearchQueryService' },
        ],
      });
      return;
    }
    const flatIndex = /^\/v3\/flatcontainer\/([^/]+)\/index\.json$/.exec(route);
    if (flatIndex) {
      const list = find(flatIndex[1]!);
      if (list.length === 0) response.writeHead(404).end();
      else json({ versions: list.map((s) => s.nuspec.version.toLowerCase()) });
      return;
    }
    const flatFile = /^\/v3\/flatcontainer\/([^/]+)\/([^/]+)\/([^/]+)$/.exec(route);
    if (flatFile) {
      const entry = find(flatFile[1]!).find((s) => s.nuspec.version.toLowerCase() === flatFile[2]);
      const lower = `${flatFile[1]}.${flatFile[2]}`;
      if (entry !== undefined && flatFile[3] === `${lower}.nupkg`) nupkg(entry);
      else if (entry !== undefined && flatFile[3] === `${flatFile[1]}.nuspec`)
        response.writeHead(200, { 'content-type': 'application/xml' }).end(nuspecOf(entry));
      else response.writeHead(404).end();
      return;
    }
    const registration = /^\/v3\/registration\/([^/]+)\/index\.json$/.exec(route);
    if (registration) {
      const list = find(registration[1]!);
      if (list.length === 0) {
        response.writeHead(404).end();
        return;
      }
      const lower = registration[1]!.toLowerCase();
      json({
        '@id': `${base}/v3/registration/${lower}/index.json`,
        count: 1,
        items: [
          {
            '@id': `${base}/v3/registration/${lower}/index.json#page`,
            count: list.length,
            lower: list[0]!.nuspec.version,
            upper: list.at(-1)!.nuspec.version,
            items: list.map((s) => ({
              '@id': `${base}/v3/registration/${lower}/${s.nuspec.version.toLowerCase()}.json`,
              catalogEntry: {
                '@id': `${base}/v3/catalog/${lower}.${s.nuspec.version.toLowerCase()}.json`,
                id: s.nuspec.id,
                version: s.nuspec.version,
                description: s.nuspec.description,
                tags: s.nuspec.tags,
                listed: true,
                dependencyGroups: s.nuspec.dependencies.length
                  ? [
                      {
                        dependencies: s.nuspec.dependencies.map((d) => ({
                          id: d.id,
                          ...(d.range ? { range: d.range } : {}),
                        })),
                      },
                    ]
                  : [],
              },
              packageContent: `${base}/v3/flatcontainer/${lower}/${s.nuspec.version.toLowerCase()}/${lower}.${s.nuspec.version.toLowerCase()}.nupkg`,
            })),
          },
        ],
      });
      return;
    }
    if (route === '/v3/search') {
      const words = (url.searchParams.get('q') ?? '').split(/\s+/).filter(Boolean);
      const skip = Number(url.searchParams.get('skip') ?? 0);
      const take = Number(url.searchParams.get('take') ?? 20);
      const ids = [...new Set(served.map((s) => s.nuspec.id.toLowerCase()))];
      const hits = ids
        .map((id) => find(id))
        .filter((list) => matchesTerm(latestOf(list)!.nuspec, words.join(' ')));
      json({
        totalHits: hits.length,
        data: hits.slice(skip, skip + take).map((list) => {
          const latest = latestOf(list)!.nuspec;
          return {
            '@id': `${base}/v3/registration/${latest.id.toLowerCase()}/index.json`,
            '@type': 'Package',
            registration: `${base}/v3/registration/${latest.id.toLowerCase()}/index.json`,
            id: latest.id,
            version: latest.version,
            description: latest.description,
            tags: latest.tags,
            versions: list.map((s) => ({
              version: s.nuspec.version,
              downloads: 0,
              '@id': `${base}/v3/registration/${latest.id.toLowerCase()}/${s.nuspec.version.toLowerCase()}.json`,
            })),
          };
        }),
      });
      return;
    }
    response.writeHead(404).end();
  };
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: base,
    v2: `${base}/api/v2`,
    v3: `${base}/v3/index.json`,
    requests,
    authorized,
    serveInstead(id, version, bytes) {
      const entry = find(id).find((s) => s.nuspec.version === version);
      if (entry === undefined) throw new Error(`startTestNuGetFeed: no ${id} ${version}`);
      entry.bytes = bytes;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/**
 * The part of OData's `$filter` a NuGet v2 client sends (`and` of: `IsLatestVersion`,
 * `IsAbsoluteLatestVersion`, `... eq true`, `substringof('<text>', Tags) eq true`,
 * `Id eq '<id>'`); undefined for anything else, which the feed answers 400.
 */
function readFilter(
  filter: string,
): { latest: boolean; matches: (nuspec: Nuspec) => boolean } | undefined {
  const tests: ((nuspec: Nuspec) => boolean)[] = [];
  let latest = false;
  for (const clause of filter
    .split(/\s+and\s+/i)
    .map((c) => c.trim())
    .filter(Boolean)) {
    if (/^Is(Absolute)?LatestVersion( eq true)?$/i.test(clause)) {
      latest = true;
      continue;
    }
    const tag = /^substringof\('((?:[^']|'')*)',\s*Tags\) eq true$/i.exec(clause);
    if (tag) {
      const text = unquote(`'${tag[1]}'`).toLowerCase();
      tests.push((nuspec) => nuspec.tags.join(' ').toLowerCase().includes(text));
      continue;
    }
    const id = /^Id eq '((?:[^']|'')*)'$/i.exec(clause);
    if (id) {
      const wanted = unquote(`'${id[1]}'`).toLowerCase();
      tests.push((nuspec) => nuspec.id.toLowerCase() === wanted);
      continue;
    }
    return undefined;
  }
  return { latest, matches: (nuspec) => tests.every((test) => test(nuspec)) };
}

/** An OData string literal's value: `'a''b'` is `a'b`. */
function unquote(text: string): string {
  return /^'.*'$/s.test(text) ? text.slice(1, -1).replaceAll("''", "'") : text;
}

/** `tag:<tag>` / `tags:<tag>` must be a tag; other words appear in the id, description or tags. */
function matchesTerm(nuspec: Nuspec, term: string): boolean {
  const tags = nuspec.tags.map((t) => t.toLowerCase());
  const text = `${nuspec.id} ${nuspec.description} ${nuspec.tags.join(' ')}`.toLowerCase();
  return term
    .split(/\s+/)
    .filter(Boolean)
    .every((word) => {
      const tag = /^tags?:(.+)$/i.exec(word);
      return tag ? tags.includes(tag[1]!.toLowerCase()) : text.includes(word.toLowerCase());
    });
}

function escapeXml(text: string): string {
  return text
    .replaceAll('&', '&amp;')
    .replaceAll('<', '&lt;')
    .replaceAll('>', '&gt;')
    .replaceAll('"', '&quot;');
}

function nuspecOf(entry: Served): string {
  return `<?xml version="1.0" encoding="utf-8"?><package xmlns="http://schemas.microsoft.com/packaging/2013/05/nuspec.xsd"><metadata><id>${escapeXml(entry.nuspec.id)}</id><version>${escapeXml(entry.nuspec.version)}</version><description>${escapeXml(entry.nuspec.description)}</description><tags>${escapeXml(entry.nuspec.tags.join(' '))}</tags></metadata></package>`;
}

/** An Atom page of `entries`; `count` is every hit's (OData's inline count), `next` the following page. */
function atomFeed(
  base: string,
  entries: Served[],
  paging: { count: number; next: string | undefined },
): string {
  const { next } = paging;
  const latest = new Map<string, string>();
  for (const { nuspec } of entries)
    if (!nuspec.version.includes('-')) latest.set(nuspec.id.toLowerCase(), nuspec.version);
  const body = entries
    .map(({ nuspec, bytes, hash }) => {
      const id = escapeXml(nuspec.id);
      const version = escapeXml(nuspec.version);
      const isLatest = latest.get(nuspec.id.toLowerCase()) === nuspec.version;
      return `<entry>
  <id>${base}/api/v2/Packages(Id='${id}',Version='${version}')</id>
  <category term="NuGetGallery.OData.V2FeedPackage" scheme="http://schemas.microsoft.com/ado/2007/08/dataservices/scheme" />
  <link rel="edit" href="${base}/api/v2/Packages(Id='${id}',Version='${version}')" />
  <title type="text">${id}</title>
  <updated>2026-01-01T00:00:00Z</updated>
  <author><name>Toolpack tests</name></author>
  <content type="application/zip" src="${base}/api/v2/package/${id}/${version}" />
  <m:properties>
    <d:Id>${id}</d:Id>
    <d:Version>${version}</d:Version>
    <d:NormalizedVersion>${version}</d:NormalizedVersion>
    <d:Authors>Toolpack tests</d:Authors>
    <d:Description>${escapeXml(nuspec.description)}</d:Description>
    <d:Tags>${escapeXml(nuspec.tags.join(' '))}</d:Tags>
    <d:Dependencies>${escapeXml(nuspec.dependencies.map((d) => `${d.id}:${d.range ?? ''}:`).join('|'))}</d:Dependencies>
    <d:PackageHash>${hash}</d:PackageHash>
    <d:PackageHashAlgorithm>SHA512</d:PackageHashAlgorithm>
    <d:PackageSize m:type="Edm.Int64">${bytes.length}</d:PackageSize>
    <d:IsLatestVersion m:type="Edm.Boolean">${isLatest}</d:IsLatestVersion>
    <d:IsAbsoluteLatestVersion m:type="Edm.Boolean">${isLatest}</d:IsAbsoluteLatestVersion>
    <d:IsPrerelease m:type="Edm.Boolean">${nuspec.version.includes('-')}</d:IsPrerelease>
    <d:Published m:type="Edm.DateTime">2026-01-01T00:00:00</d:Published>
    <d:DownloadCount m:type="Edm.Int32">0</d:DownloadCount>
  </m:properties>
</entry>`;
    })
    .join('\n');
  return `<?xml version="1.0" encoding="utf-8"?>
<feed xml:base="${base}/api/v2/" xmlns="http://www.w3.org/2005/Atom" xmlns:d="http://schemas.microsoft.com/ado/2007/08/dataservices" xmlns:m="http://schemas.microsoft.com/ado/2007/08/dataservices/metadata">
<id>${base}/api/v2/Packages</id>
<title type="text">Packages</title>
<updated>2026-01-01T00:00:00Z</updated>
<m:count>${paging.count}</m:count>
${body}${next === undefined ? '' : `\n<link rel="next" href="${escapeXml(next)}" />`}
</feed>
`;
}

/** The root .nuspec of a package, read without checking anything else in it. */
function readNuspecUnchecked(bytes: Buffer): Promise<string | undefined> {
  return new Promise((resolve, reject) => {
    yauzl.fromBuffer(bytes, { lazyEntries: true }, (error, zip) => {
      if (error) return reject(error);
      zip.on('entry', (entry: yauzl.Entry) => {
        if (!/^[^/]+\.nuspec$/i.test(entry.fileName)) return zip.readEntry();
        zip.openReadStream(entry, (streamError, stream) => {
          if (streamError) return reject(streamError);
          const chunks: Buffer[] = [];
          stream.on('data', (chunk: Buffer) => chunks.push(chunk));
          stream.once('end', () => {
            zip.close();
            resolve(Buffer.concat(chunks).toString('utf8'));
          });
        });
      });
      zip.once('end', () => resolve(undefined));
      zip.once('error', reject);
      zip.readEntry();
    });
  });
}

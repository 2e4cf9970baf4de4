import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { computeIntegrity } from '../integrity/integrity.ts';
import { buildModuleNupkg } from '../testing/build-nupkg.ts';
import { startTestNuGetFeed, type TestNuGetFeed } from '../testing/test-nuget-feed.ts';
import { openNuGetFeed } from './nuget-feed.ts';

const echo = () => readFile(path.join(import.meta.dirname, 'fixtures/EchoTools.1.2.0.nupkg'));
const feeds: TestNuGetFeed[] = [];
const temps: string[] = [];
afterEach(async () => {
  await Promise.all(feeds.splice(0).map((feed) => feed.close()));
  await Promise.all(temps.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

async function startFeed(options: Parameters<typeof startTestNuGetFeed>[0]) {
  const feed = await startTestNuGetFeed(options);
  feeds.push(feed);
  return feed;
}

async function packagesFolder(packages: Buffer[]): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), 'toolpack-feed-'));
  temps.push(dir);
  await Promise.all(packages.map((bytes, i) => writeFile(path.join(dir, `p${i}.nupkg`), bytes)));
  return dir;
}

async function threeFeeds() {
  const packages = [
    await echo(),
    await buildModuleNupkg({ id: 'EchoTools', version: '1.3.0-beta' }),
    await buildModuleNupkg({ id: 'Other', version: '2.0.0' }),
    await buildModuleNupkg({ id: 'Legacy', version: '1.0.0.1' }),
    // A valid NuGet id (`_` beside `.`) that no pack name can stand for.
    await buildModuleNupkg({ id: 'Odd_.Name', version: '1.0.0' }),
  ];
  const feed = await startFeed({ packages });
  return [
    ['v3', feed.v3],
    ['v2', feed.v2],
    ['a folder', await packagesFolder(packages)],
  ] as const;
}

describe('openNuGetFeed', () => {
  it.each(['v3', 'v2', 'a folder'])('lists, finds by tag and installs from %s', async (which) => {
    const location = (await threeFeeds()).find(([name]) => name === which)![1];
    const feed = openNuGetFeed({ location });

    const pack = await feed.getPack('echotools');
    expect(Object.keys(pack.versions).sort()).toEqual(['1.2.0', '1.3.0-beta']);
    expect(pack.latest).toBe('1.2.0');
    expect(pack.description).toBe('Echo tools for MCP.');

    const doc = await feed.getVersion('echotools', '1.2.0');
    const bytes = await feed.download(doc.dist);
    expect(bytes.equals(await echo())).toBe(true);
    // The package's own hash, as NuGet computes it.
    expect(doc.dist.integrity).toBe(computeIntegrity(await echo()));

    const found = await feed.search({ tags: ['mcptools'] });
    expect(found.packs.map((p) => `${p.name}@${p.version}`)).toEqual([
      'echotools@1.2.0',
      'other@2.0.0',
    ]);
    // Named with why, not silently dropped (the CLI prints them under the table).
    expect(found.metadata.passedOver).toEqual([
      { id: 'Legacy', version: '1.0.0.1', reason: 'version 1.0.0.1 has no semver form' },
      { id: 'Odd_.Name', version: '1.0.0', reason: 'its NuGet id cannot be a pack name' },
    ]);
    expect((await feed.search({ tags: ['MCPTools'], q: 'echo' })).packs.map((p) => p.name)).toEqual(
      ['echotools'],
    );
    expect((await feed.search({ tags: ['NoSuchTag'] })).packs).toEqual([]);
  });

  it.each(['v3', 'v2', 'a folder'])(
    '%s: an unknown id, and a version semver cannot spell',
    async (which) => {
      const location = (await threeFeeds()).find(([name]) => name === which)![1];
      const feed = openNuGetFeed({ location });
      await expect(feed.getPack('nosuchmodule')).rejects.toMatchObject({
        code: 'E_PACK_NOT_FOUND',
      });
      await expect(feed.getPack('legacy')).rejects.toThrow(/versions semver cannot spell/);
    },
  );

  it('a v2 feed serving another file than the one it states the hash of is refused', async () => {
    const feed = await startFeed({ packages: [await echo()] });
    const swapped = await buildModuleNupkg({ id: 'EchoTools', version: '1.2.0' });
    feed.serveInstead('EchoTools', '1.2.0', swapped);
    const client = openNuGetFeed({ location: feed.v2 });
    // What the feed hands out is the other file...
    const listed = (await client.getPack('echotools')).versions['1.2.0']!;
    expect((await client.download(listed.dist)).equals(swapped)).toBe(true);
    expect(listed.dist.integrity).toBe(computeIntegrity(await echo()));
    // ...and getVersion, which gives the integrity an install records, refuses it.
    await expect(client.getVersion('echotools', '1.2.0')).rejects.toMatchObject({
      code: 'E_INTEGRITY',
    });
  });

  it('a private feed: the credentials go to it, never elsewhere; without them, E_FEED', async () => {
    const credentials = { username: 'me', password: 's3cret' };
    const feed = await startFeed({ packages: [await echo()], credentials });
    await expect(openNuGetFeed({ location: feed.v3 }).getPack('echotools')).rejects.toMatchObject({
      code: 'E_FEED',
      hint: expect.stringMatching(/passwordEnv/),
    });
    const seen: string[] = [];
    const client = openNuGetFeed({
      location: feed.v3,
      credentials,
      fetch: (url, init) => {
        seen.push(`${String(url)} ${new Headers(init?.headers).get('authorization') ?? '-'}`);
        return fetch(url, init);
      },
    });
    const doc = await client.getVersion('echotools', '1.2.0');
    expect(doc.dist.integrity).toBe(computeIntegrity(await echo()));
    expect(
      seen.every((line) => line.startsWith(feed.url) && line.endsWith(' Basic bWU6czNjcmV0')),
    ).toBe(true);
  });

  it('a package the feed redirects to another host (a CDN) is downloaded there without the login', async () => {
    const cdn = await startFeed({ packages: [await echo()] });
    const credentials = { username: 'me', password: 's3cret' };
    const feed = await startFeed({
      packages: [await echo()],
      credentials,
      redirectPackagesTo: cdn.url,
    });
    const client = openNuGetFeed({ location: feed.v2, credentials });
    const doc = await client.getVersion('echotools', '1.2.0');
    expect(doc.dist.integrity).toBe(computeIntegrity(await echo()));
    expect(cdn.requests).toEqual(['GET /api/v2/package/EchoTools/1.2.0']);
    expect(cdn.authorized).toEqual([]);
    expect(feed.authorized).toContain('/api/v2/package/EchoTools/1.2.0');
  });

  it("a v3 feed's answers come from the hosts its service index names, and no others", async () => {
    const search = await startFeed({ packages: [await echo()] });
    const feed = await startFeed({ packages: [await echo()], searchAt: `${search.url}/v3/search` });
    const found = await openNuGetFeed({ location: feed.v3 }).search({ tags: ['MCPTools'] });
    expect(found.packs.map((p) => p.name)).toEqual(['echotools']);
    expect(search.requests).toEqual([
      expect.stringMatching(/^GET \/v3\/search\?q=tags%3AMCPTools/),
    ]);
    const other = await startFeed({ packages: [await echo()] });
    await expect(
      openNuGetFeed({ location: feed.v3 }).download({
        tarball: `${other.url}/v3/flatcontainer/echotools/1.2.0/echotools.1.2.0.nupkg`,
        integrity: '',
        size: 0,
        fileCount: 0,
      }),
    ).rejects.toMatchObject({ code: 'E_TARBALL_ORIGIN' });
    expect(other.requests).toEqual([]);
  });

  it('a package on another origin is not downloaded', async () => {
    const feed = await startFeed({ packages: [await echo()] });
    const other = await startFeed({ packages: [await echo()] });
    const client = openNuGetFeed({ location: feed.v2 });
    const doc = await client.getPack('echotools');
    await expect(
      client.download({
        ...doc.versions['1.2.0']!.dist,
        tarball: `${other.v2}/package/EchoTools/1.2.0`,
      }),
    ).rejects.toMatchObject({ code: 'E_TARBALL_ORIGIN' });
    expect(other.requests).toEqual([]);
  });
});

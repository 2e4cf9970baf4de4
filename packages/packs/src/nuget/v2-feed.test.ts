import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { buildModuleNupkg } from '../testing/build-nupkg.ts';
import { startTestNuGetFeed, type TestNuGetFeed } from '../testing/test-nuget-feed.ts';
import { openNuGetFeed } from './nuget-feed.ts';
import { MAX_V2_PAGES } from './v2-feed.ts';

const feeds: TestNuGetFeed[] = [];
const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(feeds.splice(0).map((feed) => feed.close()));
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

/** A v2 feed of the PowerShell Gallery's shape that answers `pageSize` entries a page. */
async function pagedFeed(packages: Buffer[], pageSize: number): Promise<TestNuGetFeed> {
  const feed = await startTestNuGetFeed({ packages, v2PageSize: pageSize });
  feeds.push(feed);
  return feed;
}

const pages = (feed: TestNuGetFeed, route: string) =>
  feed.requests.filter((request) => request.startsWith(`GET /api/v2/${route}`));

describe('a v2 feed that answers in pages', () => {
  it('follows the next links of a search until it has the packs asked for, and of a listing to its end', async () => {
    const modules = await Promise.all(
      Array.from({ length: 8 }, (_, i) => buildModuleNupkg({ id: `Tools${i}`, version: '1.0.0' })),
    );
    const versions = await Promise.all(
      ['1.0.0', '1.1.0', '1.2.0', '2.0.0', '2.1.0', '3.0.0', '3.0.1'].map((version) =>
        buildModuleNupkg({ id: 'Many', version }),
      ),
    );
    const feed = await pagedFeed([...modules, ...versions], 3);
    const client = openNuGetFeed({ location: feed.v2 });

    // 9 packs tagged MCPTools, 3 a page: 5 need two pages, all need three.
    const five = await client.search({ tags: ['MCPTools'], limit: 5 });
    expect(five.packs).toHaveLength(5);
    expect(pages(feed, 'Search()')).toHaveLength(2);
    expect(pages(feed, 'Search()')[1]).toMatch(/(\$|%24)skip=3&/);

    const all = await client.search({ tags: ['MCPTools'], limit: 50 });
    expect(all.packs.map((pack) => pack.name)).toEqual([
      'many',
      ...modules.map((_, i) => `tools${i}`),
    ]);
    expect(pages(feed, 'Search()')).toHaveLength(2 + 3);

    // An id with more versions than a page holds (dbatools has hundreds on the gallery).
    const many = await client.getPack('many');
    expect(Object.keys(many.versions)).toHaveLength(7);
    expect(many.latest).toBe('3.0.1');
    expect(pages(feed, 'FindPackagesById()')).toHaveLength(3);
  });

  it('stops at MAX_V2_PAGES on a feed that links on forever, and at a link back to a page it read', async () => {
    let served = 0;
    const server = createServer((request, response) => {
      served++;
      const url = new URL(request.url ?? '/', 'http://127.0.0.1');
      const skip = Number(url.searchParams.get('$skip') ?? 0);
      // Every page links to the next, and the loop page links to itself.
      const next = url.pathname.endsWith('/loop/Search()')
        ? url.href.replace('http://127.0.0.1', base)
        : `${base}/api/v2/Search()?$skip=${skip + 1}`;
      response
        .writeHead(200, { 'content-type': 'application/atom+xml' })
        .end(
          `<?xml version="1.0" encoding="utf-8"?><feed xmlns="http://www.w3.org/2005/Atom" xmlns:d="http://schemas.microsoft.com/ado/2007/08/dataservices" xmlns:m="http://schemas.microsoft.com/ado/2007/08/dataservices/metadata"><entry><title>Other${skip}</title><content type="application/zip" src="${base}/api/v2/package/Other${skip}/1.0.0" /><m:properties><d:Id>Other${skip}</d:Id><d:Version>1.0.0</d:Version><d:Tags>MCPToolsX</d:Tags></m:properties></entry><link rel="next" href="${next}" /></feed>`,
        );
    });
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

    // Without the bound there is no end: page 1000 still links to another.
    const far = await (await fetch(`${base}/api/v2/Search()?$skip=1000`)).text();
    expect(far).toContain(`$skip=1001`);
    served = 0;

    // MCPToolsX only contains the tag asked for, so no page ever gives enough.
    const endless = openNuGetFeed({ location: `${base}/api/v2` });
    expect((await endless.search({ tags: ['MCPTools'] })).packs).toEqual([]);
    expect(served).toBe(MAX_V2_PAGES);

    served = 0;
    const loop = openNuGetFeed({ location: `${base}/loop` });
    expect((await loop.search({ tags: ['MCPTools'] })).packs).toEqual([]);
    expect(served).toBe(1);
  });
});

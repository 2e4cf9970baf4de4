import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import yauzl from 'yauzl';
import { startRegistry, type RunningRegistry } from '../start-registry.ts';
import { makeTempDir, packFolder, removeTempDirs } from '../testing/registry-fixtures.ts';
import { parseV2Filter } from './nuget-v2-routes.ts';

const repo = path.resolve(import.meta.dirname, '..', '..', '..', '..');

let registry: RunningRegistry;
let v2: string;

beforeAll(async () => {
  registry = await startRegistry({
    port: 0,
    dataDir: await makeTempDir(),
    seedDir: path.join(import.meta.dirname, 'fixtures', 'packs'),
    rateLimits: false,
  });
  const { token } = await registry.createToken({ owner: 'acme' });
  v2 = `${registry.url}/nuget/v2`;
  for (const [pack, version] of [
    ['sysinfo', '1.1.0'],
    ['jira', '1.1.0'],
    ['sysinfo', '1.2.0-beta.1'],
  ] as const) {
    const published = await fetch(`${registry.url}/v0/packs`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/gzip' },
      body: new Uint8Array(
        await packFolder(path.join(repo, 'registry', 'packs', pack), { version }),
      ),
    });
    expect(published.status, await published.clone().text()).toBe(201);
  }
}, 60_000);

afterAll(async () => {
  await registry?.close();
  await removeTempDirs();
});

/** The ids and versions of a feed, in order, and its m:count. */
async function readFeed(
  query: string,
): Promise<{ count: number; entries: string[]; text: string }> {
  const response = await fetch(`${v2}/${query}`);
  const text = await response.text();
  expect(response.status, text).toBe(200);
  expect(response.headers.get('content-type')).toMatch(/^application\/atom\+xml/);
  const ids = [...text.matchAll(/<d:Id>([^<]*)<\/d:Id>/g)].map((m) => m[1]);
  const versions = [...text.matchAll(/<d:Version>([^<]*)<\/d:Version>/g)].map((m) => m[1]);
  return {
    count: Number(/<m:count>(\d+)<\/m:count>/.exec(text)?.[1]),
    entries: ids.map((id, index) => `${id}@${versions[index]}`),
    text,
  };
}

describe('parseV2Filter', () => {
  it('reads the criteria PSResourceGet sends', () => {
    expect(
      parseV2Filter(
        "IsLatestVersion and substringof('PSModule', Tags) eq true and substringof('MCP''Tools', Tags) eq true",
      ),
    ).toEqual({
      ok: true,
      filter: { latest: 'stable', tags: ['PSModule', "MCP'Tools"], bounds: [] },
    });
    expect(
      parseV2Filter(
        "NormalizedVersion ge '1.0.0' and NormalizedVersion lt '2.0.0' and IsPrerelease eq false and Id eq 'Greetings'",
      ),
    ).toEqual({
      ok: true,
      filter: {
        tags: [],
        bounds: [
          ['ge', '1.0.0'],
          ['lt', '2.0.0'],
        ],
        isPrerelease: false,
        id: 'Greetings',
      },
    });
    expect(parseV2Filter("startswith(Id, 'jira') and IsAbsoluteLatestVersion")).toEqual({
      ok: true,
      filter: { tags: [], bounds: [], idStarts: 'jira', latest: 'absolute' },
    });
  });

  it('refuses what it does not read, rather than answer the wrong packages', () => {
    const parsed = parseV2Filter("IsLatestVersion or Id eq 'x'");
    expect(parsed.ok).toBe(false);
    expect(parseV2Filter("tolower(Id) eq 'x'")).toMatchObject({ ok: false });
  });
});

describe('the v2 feed', () => {
  it('finds module packs by tag, as Find-PSResource -Tag asks', async () => {
    const feed = await readFeed(
      "Search()?$filter=IsLatestVersion and substringof('PSModule', Tags) eq true and substringof('MCPTools', Tags) eq true&$inlinecount=allpages&$skip=0&$top=6000",
    );
    expect(feed.entries).toEqual(['Greetings@1.0.0', 'sysinfo@1.1.0']);
    expect(feed.count).toBe(2);
    expect(feed.text).toContain(
      `<content type="application/zip" src="${v2}/package/sysinfo/1.1.0"/>`,
    );
    const withPrerelease = await readFeed(
      "Search()?$filter=IsAbsoluteLatestVersion and substringof('PSModule', Tags) eq true and substringof('powershell', Tags) eq true&includePrerelease=true",
    );
    expect(withPrerelease.entries).toEqual(['Greetings@1.0.0', 'sysinfo@1.2.0-beta.1']);
  });

  it('finds by name pattern and by id, every version newest first, within version bounds', async () => {
    expect(
      (await readFeed("Search()?$filter=startswith(Id, 'JI') and IsLatestVersion")).entries,
    ).toEqual(['jira@1.1.0']);
    expect(
      (await readFeed("Search()?$filter=endswith(Id, 'info') and IsLatestVersion")).entries,
    ).toEqual(['sysinfo@1.1.0']);
    expect(
      (await readFeed("FindPackagesById()?id='sysinfo'&includePrerelease=true")).entries,
    ).toEqual(['sysinfo@1.2.0-beta.1', 'sysinfo@1.1.0']);
    expect(
      (
        await readFeed(
          "FindPackagesById()?id='sysinfo'&$filter=NormalizedVersion ge '1.0.0' and NormalizedVersion lt '1.2.0' and IsPrerelease eq false",
        )
      ).entries,
    ).toEqual(['sysinfo@1.1.0']);
    const jira = await readFeed("FindPackagesById()?id='jira'");
    expect(jira.text).toContain('install it with `mcp pack add jira`');
    expect(jira.text).not.toContain('PSModule');
  });

  it('answers 400 for a filter it cannot read and 404 for an unknown path', async () => {
    expect((await fetch(`${v2}/Search()?$filter=Id ne 'x'`)).status).toBe(400);
    expect((await fetch(`${v2}/Packages/../x`)).status).toBe(404);
  });

  it('serves a scripts pack as a module whose scripts are its functions, the same bytes as v3', async () => {
    const v2Bytes = Buffer.from(await (await fetch(`${v2}/package/sysinfo/1.1.0`)).arrayBuffer());
    const v3Bytes = Buffer.from(
      await (
        await fetch(`${registry.url}/nuget/v3/flatcontainer/sysinfo/1.1.0/sysinfo.1.1.0.nupkg`)
      ).arrayBuffer(),
    );
    expect(v2Bytes.equals(v3Bytes)).toBe(true);
    const names = await listZip(v2Bytes);
    expect(names).toEqual(
      expect.arrayContaining(['sysinfo.psd1', 'sysinfo.psm1', 'pack/scripts/Get-OsInfo.ps1']),
    );
    expect((await fetch(`${v2}/package/jira/1.1.0`)).status).toBe(404);
  });
});

function listZip(bytes: Buffer): Promise<string[]> {
  return new Promise((resolve, reject) =>
    yauzl.fromBuffer(bytes, { lazyEntries: true }, (error, zip) => {
      if (error) return reject(error);
      const names: string[] = [];
      zip.on('entry', (entry: yauzl.Entry) => {
        names.push(entry.fileName);
        zip.readEntry();
      });
      zip.on('end', () => resolve(names));
      zip.on('error', reject);
      zip.readEntry();
    }),
  );
}

// Test support: the behaviour every MetadataStore promises (never imported by the registry).
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { fuzzRuns } from '@toolpack/fuzz-runs';
import type { VersionDoc } from '../documents.ts';
import type { BlobClaimResult, MetadataStore, NewVersionRecord } from './metadata-store.ts';

export interface MetadataStoreUnderTest {
  /** A store on an empty database of this test's own. */
  store: MetadataStore;
  /**
   * Another store on the same database, as another registry instance would open it (its
   * own connections). The contract closes every store it is given.
   */
  openAnother(): Promise<MetadataStore>;
}

export function makeDoc(
  name: string,
  version: string,
  extra: Partial<VersionDoc> = {},
): VersionDoc {
  return {
    name,
    version,
    description: `The ${name} pack.`,
    tags: ['MCPTools'],
    tools: [
      {
        name: `${name.replace(/\W/g, '_')}_run`,
        description: 'Runs.',
        inputSchema: { type: 'object' },
      },
    ],
    env: [],
    dist: { tarball: '', integrity: 'sha512-x', size: 1, fileCount: 1 },
    ...extra,
  };
}

export function makeRecord(
  doc: VersionDoc,
  owner = 'acme',
  extra: Partial<NewVersionRecord> = {},
): NewVersionRecord {
  return {
    owner,
    doc,
    blobKey: `sha512/${'a'.repeat(128)}`,
    publishedAt: '2026-01-01T00:00:00.000Z',
    publishedBy: 'test',
    ...extra,
  };
}

/** The five packs the search tests (and the search parity test) run on. */
export const SEARCH_CATALOGUE: readonly VersionDoc[] = [
  makeDoc('jira', '1.0.0', {
    description: 'Issues and sprints.',
    tags: ['MCPTools', 'Atlassian'],
  }),
  makeDoc('confluence', '1.0.0', {
    description: 'Pages. Works with jira links.',
    tags: ['MCPTools', 'atlassian', 'wiki'],
  }),
  makeDoc('acme/jira', '1.0.0', { description: 'Acme flavoured tracker.', tags: ['mcptools'] }),
  makeDoc('jira-reports', '1.0.0', { description: 'Charts.', tags: ['reports'] }),
  makeDoc('tracker', '1.0.0', {
    description: 'Tracks time.',
    tags: ['time'],
    tools: [{ name: 'jira_sync', description: 'Sync.', inputSchema: { type: 'object' } }],
  }),
];

/** Search as the HTTP API asks: words split on spaces, the whole text as the exact name. */
export async function searchNames(
  store: MetadataStore,
  words: string,
  tags: string[] = [],
  page = { offset: 0, limit: 20 },
): Promise<string[]> {
  const result = await store.search({
    words: words === '' ? [] : words.split(' '),
    tags,
    ...(words === '' ? {} : { exactName: words.toLowerCase() }),
    ...page,
  });
  return result.packs.map((pack) => pack.name);
}

/**
 * Runs the MetadataStore contract against one store: what the HTTP, publish and blob code
 * rely on whichever store a registry runs on. `setup` gives each test a store on an empty
 * database of its own.
 */
export function describeMetadataStoreContract(
  title: string,
  setup: () => Promise<MetadataStoreUnderTest>,
): void {
  describe(`${title}: the MetadataStore contract`, () => {
    let store: MetadataStore;
    let opened: MetadataStore[] = [];
    let openAnother: () => Promise<MetadataStore>;

    beforeEach(async () => {
      const made = await setup();
      store = made.store;
      opened = [store];
      openAnother = async () => {
        const another = await made.openAnother();
        opened.push(another);
        return another;
      };
    });
    afterEach(async () => {
      await Promise.all(opened.map((each) => each.close()));
    });

    const search = (words: string, tags: string[] = [], page = { offset: 0, limit: 20 }) =>
      searchNames(store, words, tags, page);

    describe('addVersion', () => {
      it('claims a name for its first owner and refuses other owners and existing versions', async () => {
        expect((await store.addVersion(makeRecord(makeDoc('jira', '1.0.0')))).status).toBe(
          'created',
        );
        expect(await store.getPackOwner('jira')).toBe('acme');
        expect(await store.addVersion(makeRecord(makeDoc('jira', '1.1.0'), 'bob'))).toEqual({
          status: 'owned-by-other',
          owner: 'acme',
        });
        expect(await store.addVersion(makeRecord(makeDoc('jira', '1.0.0')))).toEqual({
          status: 'exists',
        });
        expect((await store.getPack('jira'))?.versions.map((v) => v.doc.version)).toEqual([
          '1.0.0',
        ]);
        expect(await store.getPackOwner('nope')).toBeUndefined();
        expect(await store.getPack('nope')).toBeUndefined();
        expect(await store.getVersion('jira', '9.9.9')).toBeUndefined();
      });

      it('stores the record as given and serves it back whole', async () => {
        const doc = makeDoc('acme/notes', '1.2.3-rc.1', {
          description: 'Notes \u0000 with odd text: "quotes", \\ and 東京.',
          deprecated: 'Use 2.x',
        });
        const created = await store.addVersion(
          makeRecord(doc, 'acme', {
            blobKey: `sha512/${'c'.repeat(128)}`,
            publishedAt: '2026-03-04T05:06:07.890Z',
            publishedBy: 'tok1',
          }),
        );
        const expected = {
          doc,
          blobKey: `sha512/${'c'.repeat(128)}`,
          publishedAt: '2026-03-04T05:06:07.890Z',
          publishedBy: 'tok1',
          updatedAt: '2026-03-04T05:06:07.890Z',
        };
        expect(created).toEqual({ status: 'created', version: expected });
        expect(await store.getVersion('acme/notes', '1.2.3-rc.1')).toEqual(expected);
        expect(await store.getPack('acme/notes')).toEqual({
          name: 'acme/notes',
          owner: 'acme',
          createdAt: '2026-03-04T05:06:07.890Z',
          versions: [expected],
        });
        expect((await store.search({ words: [], tags: [], offset: 0, limit: 5 })).packs).toEqual([
          {
            name: 'acme/notes',
            version: '1.2.3-rc.1',
            description: doc.description,
            tags: ['MCPTools'],
            toolCount: 1,
          },
        ]);
      });

      it('keeps versions in semver order and lists the pack by its latest stable version', async () => {
        for (const version of ['1.10.0', '1.2.0', '2.0.0-beta.1', '1.9.0'])
          await store.addVersion(makeRecord(makeDoc('jira', version)));
        expect((await store.getPack('jira'))?.versions.map((v) => v.doc.version)).toEqual([
          '1.2.0',
          '1.9.0',
          '1.10.0',
          '2.0.0-beta.1',
        ]);
        expect(
          (await store.search({ words: [], tags: [], offset: 0, limit: 5 })).packs[0]?.version,
        ).toBe('1.10.0');
        expect(await store.countPacks()).toEqual({ packs: 1, versions: 4 });
      });

      it('lists a pack with only prereleases by its highest one', async () => {
        await store.addVersion(makeRecord(makeDoc('beta', '0.1.0-rc.1')));
        await store.addVersion(makeRecord(makeDoc('beta', '0.1.0-rc.2')));
        expect(
          (await store.search({ words: ['beta'], tags: [], offset: 0, limit: 5 })).packs[0]
            ?.version,
        ).toBe('0.1.0-rc.2');
      });

      it('creates one version of 20 concurrent publishes of it through separate stores', async () => {
        const stores = [store, ...(await Promise.all(Array.from({ length: 19 }, openAnother)))];
        const results = await Promise.all(
          stores.map((each, i) =>
            each.addVersion(makeRecord(makeDoc('race', '1.0.0'), 'acme', { publishedBy: `t${i}` })),
          ),
        );
        expect(results.filter((result) => result.status === 'created')).toHaveLength(1);
        expect(results.filter((result) => result.status === 'exists')).toHaveLength(19);
        expect((await store.getPack('race'))?.versions).toHaveLength(1);
        expect(await store.countPacks()).toEqual({ packs: 1, versions: 1 });
      });

      it('gives a new name to exactly one of several owners publishing it at once', async () => {
        const stores = [store, ...(await Promise.all(Array.from({ length: 7 }, openAnother)))];
        const results = await Promise.all(
          stores.map((each, i) =>
            each.addVersion(makeRecord(makeDoc('contested', `1.0.${i}`), `owner${i}`)),
          ),
        );
        const created = results.findIndex((result) => result.status === 'created');
        expect(created).not.toBe(-1);
        expect(results.filter((result) => result.status === 'created')).toHaveLength(1);
        for (const [i, result] of results.entries())
          if (i !== created)
            expect(result).toEqual({ status: 'owned-by-other', owner: `owner${created}` });
        expect(await store.getPackOwner('contested')).toBe(`owner${created}`);
      });

      it('lists a pack by its highest version after concurrent publishes of different versions', async () => {
        const stores = [store, ...(await Promise.all(Array.from({ length: 7 }, openAnother)))];
        const versions = ['1.0.0', '1.1.0', '1.2.0', '1.3.0', '2.0.0', '2.1.0', '2.2.0', '3.0.0'];
        await Promise.all(
          stores.map((each, i) =>
            each.addVersion(
              makeRecord(makeDoc('many', versions[i]!, { description: `Version ${i}.` })),
            ),
          ),
        );
        expect((await store.getPack('many'))?.versions.map((v) => v.doc.version)).toEqual(versions);
        expect(
          (await store.search({ words: ['many'], tags: [], offset: 0, limit: 5 })).packs,
        ).toEqual([expect.objectContaining({ version: '3.0.0', description: 'Version 7.' })]);
      });
    });

    describe('updateVersion', () => {
      it('deprecates, yanks and reverses both; an all-yanked pack leaves search', async () => {
        await store.addVersion(makeRecord(makeDoc('jira', '1.0.0')));
        await store.addVersion(makeRecord(makeDoc('jira', '1.1.0', { description: 'Newer.' })));
        expect(
          (await store.updateVersion('jira', '1.1.0', { deprecated: 'Old.' }))?.doc.deprecated,
        ).toBe('Old.');
        expect(
          (await store.updateVersion('jira', '1.1.0', { deprecated: null }))?.doc.deprecated,
        ).toBeUndefined();
        expect((await store.updateVersion('jira', '1.1.0', { yanked: true }))?.doc.yanked).toBe(
          true,
        );
        expect(
          (await store.search({ words: ['jira'], tags: [], offset: 0, limit: 5 })).packs[0],
        ).toMatchObject({ version: '1.0.0', description: 'The jira pack.' });
        await store.updateVersion('jira', '1.0.0', { yanked: true });
        expect(await search('jira')).toEqual([]);
        expect(await search('', ['mcptools'])).toEqual([]);
        expect(await store.listTags(10)).toEqual([]);
        expect((await store.getVersion('jira', '1.0.0'))?.doc.yanked).toBe(true);
        await store.updateVersion('jira', '1.0.0', { yanked: false });
        expect(await search('jira')).toEqual(['jira']);
        expect(await store.updateVersion('jira', '9.9.9', { yanked: true })).toBeUndefined();
        expect(await store.updateVersion('nope', '1.0.0', { yanked: true })).toBeUndefined();
      });

      it('keeps a deprecation message with any characters', async () => {
        await store.addVersion(makeRecord(makeDoc('jira', '1.0.0')));
        const message = 'Use 2.x \u0000 "now" \\ 🎉';
        await store.updateVersion('jira', '1.0.0', { deprecated: message });
        expect((await store.getVersion('jira', '1.0.0'))?.doc.deprecated).toBe(message);
      });

      it('stamps updatedAt at a deprecation, undeprecation and yank, and keeps publishedAt', async () => {
        await store.addVersion(makeRecord(makeDoc('jira', '1.0.0')));
        const before = new Date(Date.now() - 60_000).toISOString();
        const deprecated = await store.updateVersion('jira', '1.0.0', { deprecated: 'Old.' });
        expect(deprecated?.publishedAt).toBe('2026-01-01T00:00:00.000Z');
        expect(deprecated?.updatedAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
        expect(deprecated!.updatedAt > before).toBe(true);
        const yanked = await store.updateVersion('jira', '1.0.0', { yanked: true });
        expect(yanked!.updatedAt >= deprecated!.updatedAt).toBe(true);
        expect((await store.getVersion('jira', '1.0.0'))?.updatedAt).toBe(yanked?.updatedAt);
      });
    });

    describe('search', () => {
      beforeEach(async () => {
        for (const doc of SEARCH_CATALOGUE) await store.addVersion(makeRecord(doc));
      });

      it('ranks the exact name first, then name matches above description and tool matches', async () => {
        const ranked = await search('jira');
        expect(ranked[0]).toBe('jira');
        expect(ranked.slice(1, 3).sort()).toEqual(['acme/jira', 'jira-reports']);
        expect(ranked.slice(3).sort()).toEqual(['confluence', 'tracker']);
        expect((await search('acme/jira'))[0]).toBe('acme/jira');
        expect((await search('JIRA'))[0]).toBe('jira');
      });

      it('ranks the pack of exactly that name before one of that name under an owner', async () => {
        await store.addVersion(
          makeRecord(
            makeDoc('bob/confluence', '1.0.0', {
              description: 'Confluence pages, confluence spaces, confluence search.',
              tags: ['confluence'],
            }),
          ),
        );
        expect((await search('confluence')).slice(0, 2)).toEqual(['confluence', 'bob/confluence']);
      });

      it('requires every word, matching prefixes, single letters too', async () => {
        expect(await search('jira pages')).toEqual(['confluence']);
        expect(await search('spr')).toEqual(['jira']);
        expect(await search('sync')).toEqual(['tracker']);
        expect((await search('j')).sort()).toEqual(
          ['acme/jira', 'confluence', 'jira', 'jira-reports', 'tracker'].sort(),
        );
        expect(await search('nothing-like-this')).toEqual([]);
      });

      it('treats query syntax as words to find', async () => {
        expect(await search('jira OR wiki')).toEqual([]);
        expect(await search('"jira" NEAR(sprints)')).toEqual([]);
        // As operators, these would bring in every other jira pack.
        expect(await search('jira & !sprints')).toEqual(['jira']);
        expect(await search('jira:* | wiki')).toEqual(['confluence']);
        expect(await search('"*()')).toEqual([]);
        expect(await search("'; DROP TABLE packs; --")).toEqual([]);
        expect((await store.countPacks()).packs).toBe(5);
      });

      it('filters tags exactly, case-insensitively, all of them', async () => {
        expect((await search('', ['ATLASSIAN'])).sort()).toEqual(['confluence', 'jira']);
        expect(await search('', ['atlassian', 'wiki'])).toEqual(['confluence']);
        expect(await search('', ['atlas'])).toEqual([]);
        expect(await search('', ['atlassian', 'atlassian'])).toEqual(['confluence', 'jira']);
        expect(await search('jira', ['atlassian'])).toEqual(['jira', 'confluence']);
      });

      it('pages with offset and limit and reports whether more remain', async () => {
        const page1 = await store.search({ words: [], tags: [], offset: 0, limit: 2 });
        const page3 = await store.search({ words: [], tags: [], offset: 4, limit: 2 });
        expect(page1).toMatchObject({ hasMore: true });
        expect(page1.packs.map((p) => p.name)).toEqual(['acme/jira', 'confluence']);
        expect(page3).toMatchObject({ hasMore: false });
        expect(page3.packs.map((p) => p.name)).toEqual(['tracker']);
        const ranked = await search('jira');
        const pages = [
          ...(await search('jira', [], { offset: 0, limit: 2 })),
          ...(await search('jira', [], { offset: 2, limit: 2 })),
          ...(await search('jira', [], { offset: 4, limit: 2 })),
        ];
        expect(pages).toEqual(ranked);
        expect(await search('jira', [], { offset: 50, limit: 2 })).toEqual([]);
        for (const words of ['j', 'jira', 'sync', 'pages jira'])
          for (const limit of [1, 2, 3]) {
            const whole = await search(words);
            const paged: string[] = [];
            for (let offset = 0; offset <= whole.length; offset += limit)
              paged.push(...(await search(words, [], { offset, limit })));
            expect(paged, `${words} by ${limit}`).toEqual(whole);
          }
      });

      it('lists the most used tags, spelled as stored', async () => {
        expect((await store.listTags(3))[0]).toEqual({ tag: 'MCPTools', count: 3 });
        expect(await store.listTags(10)).toContainEqual({ tag: 'Atlassian', count: 2 });
        expect(await store.listTags(2)).toHaveLength(2);
      });

      it('never throws on arbitrary words and tags (fuzz)', async () => {
        await fc.assert(
          fc.asyncProperty(
            fc.array(
              fc.oneof(
                fc.string(),
                fc.string({ unit: 'binary' }),
                fc.constantFrom(
                  '"',
                  '*',
                  'NEAR(',
                  'OR',
                  ')',
                  "'; DROP TABLE packs; --",
                  '\u0000',
                  '&',
                  '|',
                  '!',
                  '<->',
                  ':*',
                  '\\',
                  "'",
                ),
              ),
              { maxLength: 8 },
            ),
            fc.array(fc.oneof(fc.string(), fc.constantFrom('\u0000', "'", 'ATLASSIAN')), {
              maxLength: 4,
            }),
            async (words, tags) => {
              const page = await store.search({
                words,
                tags,
                exactName: words.join(' '),
                offset: 0,
                limit: 5,
              });
              expect(Array.isArray(page.packs)).toBe(true);
            },
          ),
          { numRuns: fuzzRuns(500) },
        );
        expect((await store.countPacks()).packs).toBe(5);
      });
    });

    describe('downloads and sorting', () => {
      const key = (c: string) => `sha512/${c.repeat(128)}`;
      const publishThree = async () => {
        await store.addVersion(
          makeRecord(makeDoc('beta', '1.0.0', { description: 'Beta tools.' }), 'acme', {
            blobKey: key('1'),
            publishedAt: '2026-01-03T00:00:00.000Z',
          }),
        );
        await store.addVersion(
          makeRecord(makeDoc('beta', '1.1.0', { description: 'Beta tools.' }), 'acme', {
            blobKey: key('2'),
            publishedAt: '2026-01-04T00:00:00.000Z',
          }),
        );
        await store.addVersion(
          makeRecord(makeDoc('alpha', '1.0.0', { description: 'Alpha tools.' }), 'acme', {
            blobKey: key('3'),
            publishedAt: '2026-01-05T00:00:00.000Z',
          }),
        );
        await store.addVersion(
          makeRecord(makeDoc('gamma', '1.0.0', { description: 'Gamma tools.' }), 'acme', {
            blobKey: key('4'),
            publishedAt: '2026-01-01T00:00:00.000Z',
          }),
        );
      };
      const sorted = async (
        sort: 'relevance' | 'downloads' | 'updated' | 'name',
        words = '',
        countUpTo = 100,
      ) => {
        const page = await store.search({
          words: words === '' ? [] : words.split(' '),
          tags: [],
          sort,
          offset: 0,
          limit: 2,
          countUpTo,
        });
        return { names: page.packs.map((p) => p.name), total: page.total, more: page.hasMore };
      };

      it('counts downloads per version, durably across instances, and ignores unknown blobs', async () => {
        await publishThree();
        await store.recordDownload(key('1'));
        await store.recordDownload(key('2'));
        await store.recordDownload(key('2'));
        await store.recordDownload(key('f'));
        const other = await openAnother();
        await other.recordDownload(key('3'));
        const counts = await other.countDownloads(['beta', 'alpha', 'gamma', 'nope']);
        expect(counts.get('beta')).toEqual({ total: 3, versions: { '1.0.0': 1, '1.1.0': 2 } });
        expect(counts.get('alpha')).toEqual({ total: 1, versions: { '1.0.0': 1 } });
        expect(counts.has('gamma')).toBe(false);
        expect(counts.has('nope')).toBe(false);
      });

      it('sorts by downloads, latest publish and name, with the total of all pages', async () => {
        await publishThree();
        await store.recordDownload(key('4'));
        await store.recordDownload(key('4'));
        await store.recordDownload(key('1'));
        expect(await sorted('downloads')).toEqual({
          names: ['gamma', 'beta'],
          total: 3,
          more: true,
        });
        expect((await sorted('updated')).names).toEqual(['alpha', 'beta']);
        expect((await sorted('name')).names).toEqual(['alpha', 'beta']);
        expect((await sorted('relevance')).names).toEqual(['alpha', 'beta']);
        // Words filter first, then the sort orders what matched.
        expect(await sorted('downloads', 'tools')).toEqual({
          names: ['gamma', 'beta'],
          total: 3,
          more: true,
        });
        expect(await sorted('updated', 'beta')).toEqual({ names: ['beta'], total: 1, more: false });
        expect((await sorted('relevance', 'nothing-matches')).total).toBe(0);
        // Counting stops at the bound a page asked for, and is not done unasked.
        expect((await sorted('name', '', 2)).total).toBe(2);
        expect(
          (await store.search({ words: [], tags: [], offset: 0, limit: 2 })).total,
        ).toBeUndefined();
      });
    });

    describe('listVersions', () => {
      const page = async (query: Parameters<MetadataStore['listVersions']>[0]) => {
        const result = await store.listVersions(query);
        return {
          ids: result.versions.map((v) => `${v.doc.name}@${v.doc.version}${v.isLatest ? '*' : ''}`),
          hasMore: result.hasMore,
        };
      };

      beforeEach(async () => {
        const at = (day: number) => `2026-01-${String(day).padStart(2, '0')}T00:00:00.000Z`;
        await store.addVersion(makeRecord(makeDoc('ab', '1.9.0'), 'acme', { publishedAt: at(1) }));
        await store.addVersion(makeRecord(makeDoc('ab', '1.10.0'), 'acme', { publishedAt: at(2) }));
        await store.addVersion(makeRecord(makeDoc('a-b', '1.0.0'), 'acme', { publishedAt: at(3) }));
        await store.addVersion(
          makeRecord(makeDoc('acme/AB', '0.1.0'), 'acme', { publishedAt: at(4) }),
        );
        await store.addVersion(
          makeRecord(makeDoc('gone', '1.0.0'), 'acme', { publishedAt: at(5) }),
        );
        await store.updateVersion('gone', '1.0.0', { yanked: true });
      });

      it('orders by name then version as bytes, with yanked versions and unlisted packs', async () => {
        expect(await page({ limit: 10 })).toEqual({
          ids: ['a-b@1.0.0*', 'ab@1.10.0*', 'ab@1.9.0', 'acme/AB@0.1.0*', 'gone@1.0.0'],
          hasMore: false,
        });
        expect((await store.listVersions({ limit: 10 })).versions[4]?.doc.yanked).toBe(true);
      });

      it('pages after an exclusive position', async () => {
        expect(await page({ limit: 2 })).toEqual({
          ids: ['a-b@1.0.0*', 'ab@1.10.0*'],
          hasMore: true,
        });
        expect(await page({ limit: 2, after: { name: 'ab', version: '1.10.0' } })).toEqual({
          ids: ['ab@1.9.0', 'acme/AB@0.1.0*'],
          hasMore: true,
        });
        expect(await page({ limit: 2, after: { name: 'acme/AB', version: '0.1.0' } })).toEqual({
          ids: ['gone@1.0.0'],
          hasMore: false,
        });
        // A position that is no version resumes where it would sort.
        expect(await page({ limit: 1, after: { name: 'ab', version: '1.5.0' } })).toEqual({
          ids: ['ab@1.9.0'],
          hasMore: true,
        });
        expect(await page({ limit: 1, after: { name: 'b', version: '' } })).toEqual({
          ids: ['gone@1.0.0'],
          hasMore: false,
        });
      });

      it('filters by updatedSince (inclusive), latestOnly and nameContains', async () => {
        expect(await page({ limit: 10, updatedSince: '2026-01-03T00:00:00.000Z' })).toEqual({
          ids: ['a-b@1.0.0*', 'acme/AB@0.1.0*', 'gone@1.0.0'],
          hasMore: false,
        });
        expect(await page({ limit: 10, latestOnly: true })).toEqual({
          ids: ['a-b@1.0.0*', 'ab@1.10.0*', 'acme/AB@0.1.0*'],
          hasMore: false,
        });
        expect(await page({ limit: 10, nameContains: 'Ab' })).toEqual({
          ids: ['ab@1.10.0*', 'ab@1.9.0', 'acme/AB@0.1.0*'],
          hasMore: false,
        });
        expect(await page({ limit: 10, nameContains: '' })).toMatchObject({
          ids: expect.arrayContaining(['gone@1.0.0']),
        });
      });

      it('never throws on arbitrary positions and filters (fuzz)', async () => {
        await fc.assert(
          fc.asyncProperty(
            fc.record({
              after: fc.option(fc.record({ name: fc.string(), version: fc.string() }), {
                nil: undefined,
              }),
              updatedSince: fc.option(fc.string(), { nil: undefined }),
              nameContains: fc.option(fc.string(), { nil: undefined }),
              latestOnly: fc.boolean(),
              limit: fc.integer({ min: 1, max: 10 }),
            }),
            async (query) => {
              const { after, updatedSince, nameContains, ...rest } = query;
              const result = await store.listVersions({
                ...rest,
                ...(after === undefined ? {} : { after }),
                ...(updatedSince === undefined ? {} : { updatedSince }),
                ...(nameContains === undefined ? {} : { nameContains }),
              });
              expect(result.versions.length).toBeLessThanOrEqual(query.limit);
            },
          ),
          { numRuns: fuzzRuns(200) },
        );
      });
    });

    describe('blob claims', () => {
      const key = `sha512/${'b'.repeat(128)}`;
      const claim = (
        id: string,
        purpose: 'publish' | 'delete',
        at = new Date(),
        on: MetadataStore = store,
      ): Promise<BlobClaimResult> =>
        on.claimBlob({ key, id, purpose, at, expiresAt: new Date(at.getTime() + 60_000) });

      it('refuses a delete claim while a version references the blob or a publish holds it', async () => {
        expect(await claim('p1', 'publish')).toBe('granted');
        expect(await claim('p2', 'publish')).toBe('granted');
        expect(await claim('d1', 'delete')).toBe('held');
        await store.releaseBlobClaim(key, 'p1');
        expect(await claim('d1', 'delete')).toBe('held');
        await store.releaseBlobClaim(key, 'p2');
        await store.addVersion(makeRecord(makeDoc('jira', '1.0.0'), 'acme', { blobKey: key }));
        expect(await claim('d1', 'delete')).toBe('referenced');
        expect(await store.isBlobReferenced(key)).toBe(true);
        expect(await store.isBlobReferenced(`sha512/${'c'.repeat(128)}`)).toBe(false);
      });

      it('refuses publish claims while a delete claim is held, and forgets expired claims', async () => {
        expect(await claim('d1', 'delete')).toBe('granted');
        expect(await claim('p1', 'publish')).toBe('held');
        expect(await claim('d2', 'delete')).toBe('held');
        // An expired delete claim (its deleter died) protects nothing.
        const later = new Date(Date.now() + 120_000);
        expect(await claim('p1', 'publish', later)).toBe('granted');
        expect(await store.pruneBlobClaims(new Date(Date.now() + 70_000))).toBe(1);
        await store.releaseBlobClaim(key, 'p1');
        await store.releaseBlobClaim(key, 'never-claimed');
        expect(await claim('d3', 'delete')).toBe('granted');
      });

      it('grants one of many delete claims made at once through separate stores', async () => {
        const stores = [store, ...(await Promise.all(Array.from({ length: 9 }, openAnother)))];
        const results = await Promise.all(
          stores.map((each, i) => claim(`d${i}`, 'delete', new Date(), each)),
        );
        expect(results.filter((result) => result === 'granted')).toHaveLength(1);
        expect(results.filter((result) => result === 'held')).toHaveLength(9);
      });
    });

    describe('tokens', () => {
      it('stores, finds, lists and revokes token records', async () => {
        await store.addToken({
          id: 'a1',
          owner: 'acme',
          salt: 's',
          hash: 'h',
          createdAt: '2026-01-01',
          label: 'ci',
        });
        await store.addToken({
          id: 'b1',
          owner: 'bob',
          salt: 's',
          hash: 'h',
          createdAt: '2025-12-31',
        });
        await store.addToken({
          id: 'a0',
          owner: 'acme',
          salt: 's',
          hash: 'h',
          createdAt: '2026-01-01',
        });
        expect(await store.getToken('a1')).toEqual({
          id: 'a1',
          owner: 'acme',
          salt: 's',
          hash: 'h',
          createdAt: '2026-01-01',
          label: 'ci',
        });
        expect(await store.getToken('zz')).toBeUndefined();
        expect((await store.listTokens()).map((token) => token.id)).toEqual(['b1', 'a0', 'a1']);
        expect((await store.listTokens('acme')).map((token) => token.id)).toEqual(['a0', 'a1']);
        expect(await store.listTokens('carol')).toEqual([]);
        expect(await store.revokeToken('a1', '2026-02-02')).toBe(true);
        expect(await store.revokeToken('a1', '2026-02-03')).toBe(false);
        expect(await store.revokeToken('zz', '2026-02-03')).toBe(false);
        expect((await store.getToken('a1'))?.revokedAt).toBe('2026-02-02');
      });
    });

    describe('withLock', () => {
      it('runs one holder of a name at a time, and lets go when the work fails', async () => {
        const events: string[] = [];
        let release: (() => void) | undefined;
        const first = store.withLock('seed', async () => {
          events.push('first in');
          await new Promise<void>((resolve) => {
            release = resolve;
          });
          events.push('first out');
          return 1;
        });
        const second = store.withLock('seed', async () => {
          events.push('second in');
          return 2;
        });
        const other = store.withLock('other', async () => {
          events.push('other in');
          return 3;
        });
        expect(await other).toBe(3);
        // Bounded: the second holder must still be waiting while the first holds the lock.
        for (let i = 0; i < 20 && release === undefined; i += 1)
          await new Promise((resolve) => setTimeout(resolve, 10));
        await new Promise((resolve) => setTimeout(resolve, 50));
        expect([...events].sort()).toEqual(['first in', 'other in']);
        release?.();
        expect(await Promise.all([first, second])).toEqual([1, 2]);
        expect(events.filter((event) => event !== 'other in')).toEqual([
          'first in',
          'first out',
          'second in',
        ]);
        await expect(
          store.withLock('seed', () => Promise.reject(new Error('seeding failed'))),
        ).rejects.toThrow('seeding failed');
        expect(await store.withLock('seed', async () => 'again')).toBe('again');
      });
    });
  });
}

import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { VersionDoc } from '../documents.ts';
import type { MetadataStore, NewVersionRecord } from './metadata-store.ts';
import { createSqliteMetadataStore } from './sqlite-metadata-store.ts';
import { fuzzRuns } from '@toolpack/fuzz-runs';

function makeDoc(name: string, version: string, extra: Partial<VersionDoc> = {}): VersionDoc {
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

function record(doc: VersionDoc, owner = 'acme'): NewVersionRecord {
  return {
    owner,
    doc,
    blobKey: `sha512/${'a'.repeat(128)}`,
    publishedAt: '2026-01-01T00:00:00.000Z',
    publishedBy: 'test',
  };
}

let store: MetadataStore;
beforeEach(() => {
  store = createSqliteMetadataStore({ file: ':memory:' });
});
afterEach(() => store.close());

const search = async (words: string, tags: string[] = [], page = { offset: 0, limit: 20 }) =>
  (
    await store.search({
      words: words === '' ? [] : words.split(' '),
      tags,
      ...(words === '' ? {} : { exactName: words.toLowerCase() }),
      ...page,
    })
  ).packs.map((p) => p.name);

describe('addVersion', () => {
  it('claims a name for its first owner and refuses other owners and existing versions', async () => {
    expect((await store.addVersion(record(makeDoc('jira', '1.0.0')))).status).toBe('created');
    expect(await store.getPackOwner('jira')).toBe('acme');
    expect(await store.addVersion(record(makeDoc('jira', '1.1.0'), 'bob'))).toEqual({
      status: 'owned-by-other',
      owner: 'acme',
    });
    expect(await store.addVersion(record(makeDoc('jira', '1.0.0')))).toEqual({ status: 'exists' });
    expect((await store.getPack('jira'))?.versions.map((v) => v.doc.version)).toEqual(['1.0.0']);
  });

  it('keeps versions in semver order and lists the pack by its latest stable version', async () => {
    for (const version of ['1.10.0', '1.2.0', '2.0.0-beta.1', '1.9.0'])
      await store.addVersion(record(makeDoc('jira', version)));
    expect((await store.getPack('jira'))?.versions.map((v) => v.doc.version)).toEqual([
      '1.2.0',
      '1.9.0',
      '1.10.0',
      '2.0.0-beta.1',
    ]);
    expect(
      (await store.search({ words: [], tags: [], offset: 0, limit: 5 })).packs[0]?.version,
    ).toBe('1.10.0');
  });

  it('lists a pack with only prereleases by its highest one', async () => {
    await store.addVersion(record(makeDoc('beta', '0.1.0-rc.1')));
    await store.addVersion(record(makeDoc('beta', '0.1.0-rc.2')));
    expect(
      (await store.search({ words: ['beta'], tags: [], offset: 0, limit: 5 })).packs[0]?.version,
    ).toBe('0.1.0-rc.2');
  });
});

describe('updateVersion', () => {
  it('deprecates, yanks and reverses both; an all-yanked pack leaves search', async () => {
    await store.addVersion(record(makeDoc('jira', '1.0.0')));
    await store.addVersion(record(makeDoc('jira', '1.1.0', { description: 'Newer.' })));
    expect(
      (await store.updateVersion('jira', '1.1.0', { deprecated: 'Old.' }))?.doc.deprecated,
    ).toBe('Old.');
    expect(
      (await store.updateVersion('jira', '1.1.0', { deprecated: null }))?.doc.deprecated,
    ).toBeUndefined();
    expect((await store.updateVersion('jira', '1.1.0', { yanked: true }))?.doc.yanked).toBe(true);
    expect(
      (await store.search({ words: ['jira'], tags: [], offset: 0, limit: 5 })).packs[0],
    ).toMatchObject({
      version: '1.0.0',
      description: 'The jira pack.',
    });
    await store.updateVersion('jira', '1.0.0', { yanked: true });
    expect(await search('jira')).toEqual([]);
    expect(await search('', ['mcptools'])).toEqual([]);
    expect((await store.getVersion('jira', '1.0.0'))?.doc.yanked).toBe(true);
    await store.updateVersion('jira', '1.0.0', { yanked: false });
    expect(await search('jira')).toEqual(['jira']);
    expect(await store.updateVersion('jira', '9.9.9', { yanked: true })).toBeUndefined();
    expect(await store.updateVersion('nope', '1.0.0', { yanked: true })).toBeUndefined();
  });
});

describe('search', () => {
  beforeEach(async () => {
    await store.addVersion(
      record(
        makeDoc('jira', '1.0.0', {
          description: 'Issues and sprints.',
          tags: ['MCPTools', 'Atlassian'],
        }),
      ),
    );
    await store.addVersion(
      record(
        makeDoc('confluence', '1.0.0', {
          description: 'Pages. Works with jira links.',
          tags: ['MCPTools', 'atlassian', 'wiki'],
        }),
      ),
    );
    await store.addVersion(
      record(
        makeDoc('acme/jira', '1.0.0', {
          description: 'Acme flavoured tracker.',
          tags: ['mcptools'],
        }),
      ),
    );
    await store.addVersion(
      record(makeDoc('jira-reports', '1.0.0', { description: 'Charts.', tags: ['reports'] })),
    );
    await store.addVersion(
      record(
        makeDoc('tracker', '1.0.0', {
          description: 'Tracks time.',
          tags: ['time'],
          tools: [{ name: 'jira_sync', description: 'Sync.', inputSchema: { type: 'object' } }],
        }),
      ),
    );
  });

  it('ranks the exact name first, then name matches above description and tool matches', async () => {
    const ranked = await search('jira');
    expect(ranked[0]).toBe('jira');
    expect(ranked.slice(1, 3).sort()).toEqual(['acme/jira', 'jira-reports']);
    expect(ranked.slice(3).sort()).toEqual(['confluence', 'tracker']);
    expect((await search('acme/jira'))[0]).toBe('acme/jira');
  });

  it('requires every word, matching prefixes', async () => {
    expect(await search('jira pages')).toEqual(['confluence']);
    expect(await search('spr')).toEqual(['jira']);
    expect(await search('sync')).toEqual(['tracker']);
  });

  it('filters tags exactly, case-insensitively, all of them', async () => {
    expect((await search('', ['ATLASSIAN'])).sort()).toEqual(['confluence', 'jira']);
    expect(await search('', ['atlassian', 'wiki'])).toEqual(['confluence']);
    expect(await search('', ['atlas'])).toEqual([]);
    expect(await search('', ['atlassian', 'atlassian'])).toEqual(['confluence', 'jira']);
  });

  it('pages with offset and limit and reports whether more remain', async () => {
    const page1 = await store.search({ words: [], tags: [], offset: 0, limit: 2 });
    const page3 = await store.search({ words: [], tags: [], offset: 4, limit: 2 });
    expect(page1).toMatchObject({ hasMore: true });
    expect(page1.packs.map((p) => p.name)).toEqual(['acme/jira', 'confluence']);
    expect(page3).toMatchObject({ hasMore: false });
    expect(page3.packs.map((p) => p.name)).toEqual(['tracker']);
  });

  it('lists the most used tags, spelled as stored', async () => {
    expect((await store.listTags(3))[0]).toEqual({ tag: 'MCPTools', count: 3 });
    expect(await store.listTags(10)).toContainEqual({ tag: 'Atlassian', count: 2 });
  });

  it('never throws on arbitrary words and tags (fuzz)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          fc.oneof(
            fc.string(),
            fc.constantFrom('"', '*', 'NEAR(', 'OR', ')', "'; DROP TABLE packs; --", '\u0000'),
          ),
          { maxLength: 8 },
        ),
        fc.array(fc.string(), { maxLength: 4 }),
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
      { numRuns: fuzzRuns(1500) },
    );
    expect((await store.countPacks()).packs).toBe(5);
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
    expect(await store.getToken('a1')).toEqual({
      id: 'a1',
      owner: 'acme',
      salt: 's',
      hash: 'h',
      createdAt: '2026-01-01',
      label: 'ci',
    });
    expect(await store.listTokens('bob')).toEqual([]);
    expect(await store.revokeToken('a1', '2026-02-02')).toBe(true);
    expect(await store.revokeToken('a1', '2026-02-03')).toBe(false);
    expect((await store.getToken('a1'))?.revokedAt).toBe('2026-02-02');
  });
});

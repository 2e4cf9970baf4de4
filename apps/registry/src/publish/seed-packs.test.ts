import { cp, readFile, readdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { DEFAULT_PACK_LIMITS } from '@toolpack/packs';
import { DEFAULT_SEED_DIR, startRegistry } from '../start-registry.ts';
import { createFsBlobStore } from '../storage/fs-blob-store.ts';
import type { MetadataStore } from '../storage/metadata-store.ts';
import { createSqliteMetadataStore } from '../storage/sqlite-metadata-store.ts';
import { FIXTURE_PACKS, makeTempDir, removeTempDirs } from '../testing/registry-fixtures.ts';
import { listPackTools } from './list-pack-tools.ts';
import type { PublishContext } from './publish-pack.ts';
import { seedPacks } from './seed-packs.ts';

afterAll(removeTempDirs);

const PUBLISHED_INTEGRITY = path.join(DEFAULT_SEED_DIR, '..', 'published.json');

describe('seeding', () => {
  it('publishes every official pack through the publish path, as the toolpack owner, once', async () => {
    const dataDir = await makeTempDir();
    const first = await startRegistry({ port: 0, dataDir, rateLimits: false });
    try {
      const folders = (await readdir(DEFAULT_SEED_DIR, { withFileTypes: true }))
        .filter((e) => e.isDirectory())
        .map((e) => e.name);
      expect(first.seed.problems).toEqual([]);
      expect(first.seed.published).toEqual(
        expect.arrayContaining([
          'files@1.2.1',
          'git@1.1.1',
          'http@1.1.1',
          'jira@1.1.1',
          'json@1.1.1',
          'sysinfo@1.1.1',
        ]),
      );
      expect(first.seed.published).toHaveLength(folders.length);
      expect(folders.length).toBeGreaterThanOrEqual(6);
      const listed = await first.store.search({
        words: [],
        tags: ['mcptools'],
        offset: 0,
        limit: 100,
      });
      expect(listed.packs.map((p) => p.name).sort()).toEqual(
        first.seed.published.map((id) => id.split('@')[0]).sort(),
      );
      const git = await first.store.getPack('git');
      expect(git).toMatchObject({
        owner: 'toolpack',
        versions: [expect.objectContaining({ publishedBy: 'seed' })],
      });
      // Each version document carries what its toolpack.yaml declares.
      expect((await first.store.getVersion('jira', '1.1.1'))?.doc.permissions?.network).toEqual({
        access: 'any',
        hosts: ['*.atlassian.net'],
      });
      expect((await first.store.getVersion('git', '1.1.1'))?.doc.permissions).toMatchObject({
        filesystem: { read: ['project'], write: [] },
        subprocess: true,
      });
      // A published version never changes: each official pack's tarball is recorded per
      // version, so a change to a pack's files without a new version fails here, not in the
      // lock of a user who added it from the folder or a gallery that already holds it.
      const recorded = JSON.parse(await readFile(PUBLISHED_INTEGRITY, 'utf8')) as Record<
        string,
        string
      >;
      for (const id of first.seed.published) {
        const [name = '', version = ''] = id.split('@');
        const integrity = (await first.store.getVersion(name, version))?.doc.dist.integrity;
        expect(
          recorded[id],
          recorded[id] === undefined
            ? `${id} is not in registry/published.json: add "${id}": "${integrity}"`
            : `${id} changed without a new version: raise version: in registry/packs/${name}/toolpack.yaml, then record the new version in registry/published.json`,
        ).toBe(integrity);
      }
    } finally {
      await first.close();
    }
    const second = await startRegistry({ port: 0, dataDir, rateLimits: false });
    try {
      expect(second.seed.published).toEqual([]);
      expect(second.seed.unchanged).toHaveLength(first.seed.published.length);
    } finally {
      await second.close();
    }
  });

  it('reports a bad pack and a pack changed without a new version, and still seeds the others', async () => {
    const seedDir = await makeTempDir();
    for (const name of ['weather', 'broken-tools', 'notes'])
      await cp(path.join(FIXTURE_PACKS, name), path.join(seedDir, name), { recursive: true });
    const dataDir = await makeTempDir();
    const first = await startRegistry({ port: 0, dataDir, seedDir, rateLimits: false });
    await first.close();
    expect(first.seed.published).toEqual(['acme/notes@1.0.0', 'weather@1.0.0']);
    expect(first.seed.problems.map((p) => [p.code, path.relative(seedDir, p.path)])).toEqual([
      ['E_PACK_INVALID', path.join('broken-tools', 'toolpack.yaml')],
      ['E_SOURCE_MISSING', path.join('broken-tools', 'toolpack.yaml')],
      ['E_PARAM_TYPE', path.join('broken-tools', 'scripts', 'bad-type.sh')],
      ['E_NO_DESCRIPTION', path.join('broken-tools', 'scripts', 'no-description.sh')],
    ]);

    await writeFile(
      path.join(seedDir, 'weather', 'scripts', 'extra.sh'),
      '#!/usr/bin/env bash\n# DESCRIPTION "New."\necho\n',
    );
    const second = await startRegistry({ port: 0, dataDir, seedDir, rateLimits: false });
    await second.close();
    expect(second.seed.problems.filter((p) => p.severity === 'warning')).toEqual([
      expect.objectContaining({
        code: 'W_SEED_CHANGED',
        path: path.join(seedDir, 'weather', 'toolpack.yaml'),
      }),
    ]);
  });
});

describe('seeding twice at once (replicas starting together)', () => {
  async function seedTwiceAtOnce(locking: boolean) {
    const seedDir = await makeTempDir();
    for (const name of ['weather', 'notes'])
      await cp(path.join(FIXTURE_PACKS, name), path.join(seedDir, name), { recursive: true });
    const dir = await makeTempDir();
    const real = createSqliteMetadataStore({ file: ':memory:' });
    // Without the lock, both seeds find each version missing and both list its tools.
    const store: MetadataStore = locking ? real : { ...real, withLock: (_name, work) => work() };
    const listed: string[] = [];
    const context: PublishContext = {
      store,
      blobs: createFsBlobStore({ dir: path.join(dir, 'blobs') }),
      limits: DEFAULT_PACK_LIMITS,
      listTools: async (input) => {
        listed.push(input.manifest.name);
        return listPackTools(input);
      },
      workDir: path.join(dir, 'tmp'),
    };
    try {
      const reports = await Promise.all([seedPacks(context, seedDir), seedPacks(context, seedDir)]);
      return { reports, listed: listed.sort() };
    } finally {
      await real.close();
    }
  }

  it('publishes each pack once; the other seed finds them unchanged, not as problems', async () => {
    const { reports, listed } = await seedTwiceAtOnce(true);
    expect(listed).toEqual(['acme/notes', 'weather']);
    expect(reports.map((report) => report.problems)).toEqual([[], []]);
    expect(reports.map((report) => report.published.length).sort()).toEqual([0, 2]);
    expect(reports.map((report) => report.unchanged.length).sort()).toEqual([0, 2]);

    // Without the lock the work is done twice (and the loser of each race is told 409).
    const unlocked = await seedTwiceAtOnce(false);
    expect(unlocked.listed).toEqual(['acme/notes', 'acme/notes', 'weather', 'weather']);
    expect(unlocked.reports.map((report) => report.problems)).toEqual([[], []]);
    expect(unlocked.reports.flatMap((report) => report.published).sort()).toEqual([
      'acme/notes@1.0.0',
      'weather@1.0.0',
    ]);
  });
});

import {
  hasPostgres,
  NEEDS_POSTGRES,
  startPostgresCluster,
  type PostgresCluster,
} from '@toolpack/pg-cluster';
import fc from 'fast-check';
import pg from 'pg';
import { fuzzRuns } from '@toolpack/fuzz-runs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  SEARCH_CATALOGUE,
  describeMetadataStoreContract,
  makeDoc,
  makeRecord,
  searchNames,
} from './metadata-store-contract.ts';
import type { MetadataStore } from './metadata-store.ts';
import { openPostgresPool } from './postgres-database.ts';
import { METADATA_MIGRATIONS } from './postgres-metadata-migrations.ts';
import { createPostgresMetadataStore } from './postgres-metadata-store.ts';
import {
  buildPrefixVector,
  buildSearchTsquery,
  buildSearchVector,
} from './postgres-text-search.ts';

let cluster: PostgresCluster | undefined;

async function openStore(url: string, maxConnections = 4): Promise<MetadataStore> {
  const pool = await openPostgresPool({ url, maxConnections });
  return createPostgresMetadataStore({ pool, ownsPool: true });
}

describe.skipIf(!hasPostgres())(`the PostgreSQL metadata store ${NEEDS_POSTGRES}`, () => {
  beforeAll(async () => {
    cluster = await startPostgresCluster();
  }, 120_000);
  afterAll(() => cluster?.stop(), 120_000);

  describeMetadataStoreContract('PostgreSQL', async () => {
    const url = await cluster!.createDatabase();
    return { store: await openStore(url), openAnother: () => openStore(url, 2) };
  });

  describe('on its own', () => {
    it('refuses to change or delete a published version, even in plain SQL', async () => {
      const url = await cluster!.createDatabase();
      const store = await openStore(url);
      await store.addVersion(makeRecord(makeDoc('jira', '1.0.0')));
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      try {
        for (const change of [
          `doc = '{}'`,
          `blob_key = 'sha512/other'`,
          `published_at = '2030-01-01'`,
          `published_by = 'mallory'`,
          `version = '1.0.1'`,
        ]) {
          await expect(client.query(`UPDATE versions SET ${change}`)).rejects.toThrow(/immutable/);
        }
        await expect(client.query('DELETE FROM versions')).rejects.toThrow(/never deleted/);
        // What may change still does, and the same statement shape was reachable.
        const allowed = await client.query(
          `UPDATE versions SET yanked = true, deprecated = '"Old."', updated_at = '2030-01-01'`,
        );
        expect(allowed.rowCount).toBe(1);
        expect((await store.getVersion('jira', '1.0.0'))?.doc).toMatchObject({
          yanked: true,
          deprecated: 'Old.',
        });
      } finally {
        await client.end();
        await store.close();
      }
    });

    it('applies its migrations once however many replicas start at once, and refuses a newer schema', async () => {
      const url = await cluster!.createDatabase();
      const stores = await Promise.all(Array.from({ length: 5 }, () => openStore(url, 1)));
      await stores[0]!.addVersion(makeRecord(makeDoc('jira', '1.0.0')));
      expect(await stores[4]!.getPackOwner('jira')).toBe('acme');
      await Promise.all(stores.map((store) => store.close()));

      const client = new pg.Client({ connectionString: url });
      await client.connect();
      try {
        expect(
          (await client.query(`SELECT version FROM toolpack_schema WHERE component = 'metadata'`))
            .rows,
        ).toEqual([{ version: METADATA_MIGRATIONS.length }]);
        await client.query(`UPDATE toolpack_schema SET version = 99 WHERE component = 'metadata'`);
      } finally {
        await client.end();
      }
      await expect(openStore(url)).rejects.toMatchObject({ code: 'E_REGISTRY_SCHEMA' });
    });

    it('holds withLock against another store on the database, and frees it when its holder dies', async () => {
      const url = await cluster!.createDatabase();
      const [a, b] = [await openStore(url), await openStore(url)];
      try {
        let release: (() => void) | undefined;
        const events: string[] = [];
        const holding = a.withLock('seed', async () => {
          events.push('a in');
          await new Promise<void>((resolve) => {
            release = resolve;
          });
          events.push('a out');
        });
        for (let i = 0; i < 100 && release === undefined; i += 1)
          await new Promise((resolve) => setTimeout(resolve, 10));
        const waiting = b.withLock('seed', async () => {
          events.push('b in');
        });
        await new Promise((resolve) => setTimeout(resolve, 200));
        expect(events).toEqual(['a in']);
        release?.();
        await Promise.all([holding, waiting]);
        expect(events).toEqual(['a in', 'a out', 'b in']);

        // A replica that dies holding the lock: its session ends, and so does the lock.
        const dying = new pg.Client({ connectionString: url });
        await dying.connect();
        dying.on('error', () => {});
        const lockSpace = 0x746f6f6c;
        await dying.query(`SELECT pg_advisory_lock($1, hashtext('seed'))`, [lockSpace]);
        let got = false;
        const afterDeath = b.withLock('seed', async () => {
          got = true;
        });
        await new Promise((resolve) => setTimeout(resolve, 200));
        expect(got).toBe(false);
        const admin = new pg.Client({ connectionString: url });
        await admin.connect();
        await admin.query('SELECT pg_terminate_backend($1)', [
          (dying as unknown as { processID: number }).processID,
        ]);
        await admin.end();
        await afterDeath;
        expect(got).toBe(true);
      } finally {
        await a.close();
        await b.close();
      }
    });

    it('writes tsvector and tsquery literals PostgreSQL reads, and finds text by any start of its words (fuzz)', async () => {
      const pool = await openPostgresPool({
        url: await cluster!.createDatabase(),
        maxConnections: 1,
      });
      const text = fc.oneof(
        fc.string({ maxLength: 40 }),
        fc.string({ unit: 'binary', maxLength: 20 }),
        fc.constantFrom("o'brien", 'a\\b', 'café crème', '東京 tower', "'; DROP TABLE packs; --"),
      );
      try {
        await fc.assert(
          fc.asyncProperty(
            fc.array(text, { minLength: 1, maxLength: 4 }),
            fc.nat(),
            async (texts, n) => {
              const query = buildSearchTsquery([texts[n % texts.length]!]);
              const words = texts[n % texts.length]!.split(/\s+/).filter((word) => word !== '');
              const start = buildSearchTsquery(
                words.map((word) => word.slice(0, Math.max(1, Math.ceil(word.length / 2)))),
              );
              const { rows } = await pool.query<{
                exact: boolean | null;
                start: boolean | null;
                ranked: boolean | null;
              }>(
                'SELECT $1::tsvector @@ $3::tsquery AS exact, $1::tsvector @@ $4::tsquery AS start, $2::tsvector @@ $5::tsquery AS ranked',
                [
                  buildPrefixVector(texts),
                  buildSearchVector({
                    name: texts[0]!,
                    tags: texts.slice(1, 2),
                    toolNames: texts.slice(2, 3),
                    description: texts.slice(3).join(' '),
                  }),
                  query?.exact ?? '',
                  start?.exact ?? '',
                  query?.prefix ?? '',
                ],
              );
              if (query !== undefined) {
                expect(rows[0]?.exact).toBe(true);
                expect(rows[0]?.ranked).toBe(true);
              }
              if (start !== undefined && /^[\x20-\x7e]*$/.test(texts.join('')))
                expect(rows[0]?.start).toBe(true);
            },
          ),
          { numRuns: fuzzRuns(300) },
        );
      } finally {
        await pool.end();
      }
    });

    it('never lets tsquery syntax in words act, which it would if it reached PostgreSQL as syntax', async () => {
      const url = await cluster!.createDatabase();
      const store = await openStore(url);
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      try {
        for (const doc of SEARCH_CATALOGUE) await store.addVersion(makeRecord(doc));
        // Read as syntax, `!sprints` and `|` would widen the match...
        const asSyntax = async (text: string) =>
          (
            await client.query<{ name: string }>(
              `SELECT name FROM packs WHERE listed AND search @@ to_tsquery('simple', $1) ORDER BY name`,
              [text],
            )
          ).rows.map((row) => row.name);
        expect(await asSyntax('jira:* & !sprints:*')).toEqual([
          'acme/jira',
          'confluence',
          'jira-reports',
          'tracker',
        ]);
        expect((await asSyntax('jira:* | wiki:*')).length).toBe(5);
        // ...as words, they are only more words to find.
        expect(await searchNames(store, 'jira & !sprints')).toEqual(['jira']);
        expect(await searchNames(store, 'jira:* | wiki')).toEqual(['confluence']);
      } finally {
        await client.end();
        await store.close();
      }
    });

    it('leaves the pool to its owner unless told it owns it', async () => {
      const url = await cluster!.createDatabase();
      const pool = await openPostgresPool({ url, maxConnections: 2 });
      const store = await createPostgresMetadataStore({ pool });
      await store.close();
      expect((await pool.query('SELECT 1 AS one')).rows).toEqual([{ one: 1 }]);
      await expect(store.countPacks()).rejects.toMatchObject({ code: 'E_REGISTRY_DATABASE' });
      await pool.end();
    });
  });
});

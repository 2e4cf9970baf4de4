import {
  hasPostgres,
  NEEDS_POSTGRES,
  startPostgresCluster,
  type PostgresCluster,
} from '@toolpack/pg-cluster';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { VersionDoc } from '../documents.ts';
import {
  WORDS,
  createRandom,
  generatePack,
  toGeneratedVersionDoc,
} from '../testing/generate-packs.ts';
import { SEARCH_CATALOGUE, makeDoc, makeRecord, searchNames } from './metadata-store-contract.ts';
import type { MetadataStore } from './metadata-store.ts';
import { openPostgresPool } from './postgres-database.ts';
import { createPostgresMetadataStore } from './postgres-metadata-store.ts';
import { splitSearchTerms } from './fts-query.ts';
import { createSqliteMetadataStore } from './sqlite-metadata-store.ts';

const tool = (name: string) => ({ name, description: 'A tool.', inputSchema: { type: 'object' } });

/** The contract's catalogue and the HTTP tests' one, as documents. */
const HAND_MADE: VersionDoc[] = [
  ...SEARCH_CATALOGUE,
  makeDoc('weather', '1.1.0', {
    description: 'Weather forecasts for a city, from a local script.',
    tags: ['MCPTools', 'weather', 'forecast'],
    tools: [tool('get_forecast'), tool('list_cities')],
  }),
  makeDoc('acme/notes', '1.0.0', {
    description: "Acme's note-taking tools.",
    tags: ['MCPTools', 'notes'],
    tools: [tool('add_note')],
  }),
  makeDoc('forecaster', '1.0.0', {
    description: 'Mentions weather only in passing.',
    tags: ['MCPTools', 'notes'],
    tools: [tool('add_note')],
  }),
  makeDoc('bob/weather-station', '1.0.0', {
    description: 'Reads a home weather station.',
    tags: ['MCPTools', 'notes'],
    tools: [tool('add_note')],
  }),
  makeDoc('cafe', '2.0.0', { description: 'Café crème, 東京, emoji 🎉 and more.' }),
];

const random = createRandom(18);
const GENERATED: VersionDoc[] = Array.from({ length: 400 }, (_, i) =>
  toGeneratedVersionDoc(generatePack(i, random)),
);

/** Whether every term of `words` starts a term of the pack's name. */
function inName(name: string, words: string): boolean {
  const nameTerms = splitSearchTerms(name);
  return splitSearchTerms(words).every((term) => nameTerms.some((n) => n.startsWith(term)));
}

describe.skipIf(!hasPostgres())(
  `search answers the same on SQLite and PostgreSQL ${NEEDS_POSTGRES}`,
  () => {
    let cluster: PostgresCluster | undefined;
    const stores: Record<'sqlite' | 'postgres', MetadataStore[]> = { sqlite: [], postgres: [] };

    beforeAll(async () => {
      cluster = await startPostgresCluster();
      for (const catalogue of [HAND_MADE, GENERATED]) {
        const sqlite = createSqliteMetadataStore({ file: ':memory:' });
        const pool = await openPostgresPool({ url: await cluster.createDatabase() });
        const postgres = await createPostgresMetadataStore({ pool, ownsPool: true });
        for (const doc of catalogue) {
          await sqlite.addVersion(makeRecord(doc));
          await postgres.addVersion(makeRecord(doc));
        }
        stores.sqlite.push(sqlite);
        stores.postgres.push(postgres);
      }
    }, 120_000);
    afterAll(async () => {
      await Promise.all([...stores.sqlite, ...stores.postgres].map((store) => store.close()));
      await cluster?.stop();
    }, 120_000);

    const both = async (catalogue: number, words: string, tags: string[] = [], limit = 20) => {
      const page = { offset: 0, limit };
      return {
        sqlite: await searchNames(stores.sqlite[catalogue]!, words, tags, page),
        postgres: await searchNames(stores.postgres[catalogue]!, words, tags, page),
      };
    };

    it.each([
      'jira',
      'JIRA',
      'acme/jira',
      'jira pages',
      'spr',
      'sync',
      'j',
      'weather',
      'forecast',
      'list_cities',
      'WEATH',
      'station home',
      'forecaster',
      'confluence',
      'cafe',
      'café',
      '東京',
      'nothing-like-this',
      'jira OR wiki',
    ])('the same packs in the same order for %j (hand-made catalogue)', async (words) => {
      const { sqlite, postgres } = await both(0, words);
      expect(postgres).toEqual(sqlite);
    });

    it('the same packs for "add note", where three packs tie on tags and tools (hand-made catalogue)', async () => {
      // No pack has both words in its name; bm25 and ts_rank_cd order the tie differently.
      const { sqlite, postgres } = await both(0, 'add note');
      expect(new Set(postgres)).toEqual(new Set(sqlite));
      expect(sqlite).toHaveLength(3);
    });

    it.each([[['atlassian']], [['ATLASSIAN', 'wiki']], [['notes']], [['mcptools']], [['atlas']]])(
      'the same packs for tags %j (hand-made catalogue)',
      async (tags) => {
        const { sqlite, postgres } = await both(0, '', tags);
        expect(postgres).toEqual(sqlite);
        const withWords = await both(0, 'weather', tags);
        expect(withWords.postgres).toEqual(withWords.sqlite);
      },
    );

    const generatedQueries = [
      ...WORDS,
      'kube',
      'j',
      'gi',
      'dat',
      'pack-42',
      GENERATED[42]!.name,
      GENERATED[7]!.name,
      'issue tracker',
      'report chart',
      'database query',
      'github deploy',
    ];

    it('matches the same packs, ranks the same exact name first and name matches before the rest, over 400 generated packs', async () => {
      let samePages = 0;
      for (const words of generatedQueries) {
        const all = await both(1, words, [], 1000);
        expect(new Set(all.postgres), words).toEqual(new Set(all.sqlite));
        if (GENERATED.some((doc) => doc.name === words)) {
          expect(all.sqlite[0], words).toBe(words);
          expect(all.postgres[0], words).toBe(words);
        }
        for (const ranked of [all.sqlite, all.postgres]) {
          const tiers = ranked.map((name) => inName(name, words));
          const firstOutside = tiers.indexOf(false);
          if (firstOutside !== -1) expect(tiers.slice(firstOutside), words).not.toContain(true);
        }
        const firstPage = await both(1, words);
        const nameMatches = (names: string[]) => names.filter((name) => inName(name, words));
        expect(new Set(nameMatches(firstPage.postgres)), words).toEqual(
          new Set(nameMatches(firstPage.sqlite)),
        );
        if (firstPage.postgres.join() === firstPage.sqlite.join()) samePages += 1;
      }
      // Ranks within a tier may differ (bm25 against ts_rank_cd); some first pages agree
      // whole (13 of 81 when measured, and 99% of their packs).
      expect(samePages).toBeGreaterThan(0);
    });

    it('filters the generated packs by tags identically, with and without words', async () => {
      for (const [words, tags] of [
        ['', ['MCPTools']],
        ['', ['devops', 'mcptools']],
        ['database', ['data']],
        ['report chart', ['MCPTools']],
        ['', ['read-only', 'bash']],
      ] as const) {
        const all = await both(1, words, [...tags], 1000);
        expect(new Set(all.postgres)).toEqual(new Set(all.sqlite));
        if (words === '') expect(all.postgres).toEqual(all.sqlite);
      }
    });
  },
);

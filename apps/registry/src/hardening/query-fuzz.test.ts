import fc from 'fast-check';
import { request as httpRequest } from 'node:http';
import {
  hasPostgres,
  NEEDS_POSTGRES,
  startPostgresCluster,
  type PostgresCluster,
} from '@toolpack/pg-cluster';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateToken } from '../auth/tokens.ts';
import { encodeCursor } from '../http/search-params.ts';
import { ftsSyntaxPiece } from '../storage/fts-arbitraries.ts';
import type { MetadataStore } from '../storage/metadata-store.ts';
import { openPostgresPool } from '../storage/postgres-database.ts';
import { createPostgresMetadataStore } from '../storage/postgres-metadata-store.ts';
import { makeTempDir, removeTempDirs } from '../testing/registry-fixtures.ts';
import {
  packLoadPack,
  publish,
  startHardeningRegistry,
  type HardeningRegistry,
} from './hardening-kit.ts';
import { fuzzRuns } from '@toolpack/fuzz-runs';

afterAll(() => removeTempDirs());

/** A live registry on `openStore`'s store (the default SQLite one when undefined), with hostile packs. */
async function startFuzzedRegistry(
  openStore?: () => Promise<MetadataStore>,
): Promise<HardeningRegistry> {
  const app = await startHardeningRegistry({
    dataDir: await makeTempDir(),
    token: generateToken(),
    ...(openStore === undefined ? {} : { store: await openStore() }),
  });
  const packs = [
    { name: 'loadpack', version: '1.0.0' },
    { name: 'loadpack', version: '1.1.0' },
    {
      name: 'acme/near-or-not',
      version: '0.1.0',
      description: 'Quotes "and" stars * NEAR(x) OR y',
    },
    { name: 'cafe', version: '2.0.0', description: 'Café crème, 東京, emoji 🎉 and more.' },
    { name: 'drop-table', version: '1.0.0', description: "'; DROP TABLE packs; --" },
    { name: 'tsquery', version: '1.0.0', description: "a & b | !c <-> d:* 'e' (f) \\g" },
  ];
  for (const pack of packs) {
    const response = await publish(app.url, app.token, await packLoadPack(pack));
    expect(response.status, await response.clone().text()).toBe(201);
  }
  return app;
}

/**
 * A GET with the target sent byte for byte: fetch would normalize a malformed query or
 * path, and those are what this fuzzes.
 */
function getRaw(url: string, target: string): Promise<{ status: number; body: string }> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const request = httpRequest(
      { host: hostname, port: Number(port), path: target, method: 'GET', timeout: 5000 },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () =>
          resolve({
            status: response.statusCode ?? 0,
            body: Buffer.concat(chunks).toString('utf8'),
          }),
        );
        response.on('error', reject);
      },
    );
    request.on('timeout', () => request.destroy(new Error(`GET ${target} hung`)));
    request.on('error', reject);
    request.end();
  });
}

const words = fc
  .tuple(
    fc.array(
      fc.oneof(
        fc.string({ maxLength: 12 }),
        fc.string({ unit: 'binary', maxLength: 8 }),
        ftsSyntaxPiece,
        fc.constantFrom('load', 'cafe', 'drop', 'near'),
      ),
      { maxLength: 12 },
    ),
    fc.constantFrom(' ', '', '+'),
  )
  .map(([parts, separator]) => parts.join(separator));
const tag = fc.oneof(
  fc.constantFrom('MCPTools', 'mcptools', 'hardening', 'HARDENING', 'none'),
  fc.string({ maxLength: 20 }),
  fc.string({ unit: 'binary', maxLength: 10 }),
);
const limit = fc.oneof(
  fc.integer({ min: -5, max: 250 }).map(String),
  fc.constantFrom(
    '',
    '0',
    '1.5',
    '1e2',
    '0x10',
    ' 5',
    '5 ',
    '-0',
    '+3',
    '999999999999',
    'NaN',
    'Infinity',
    '10abc',
  ),
  fc.string({ maxLength: 12 }),
);
const cursor = fc.oneof(
  fc.nat(2_000_000).map((offset) => encodeCursor(offset)),
  fc.string({ maxLength: 40 }),
  fc.base64String({ maxLength: 40 }),
  fc.string({ maxLength: 20 }).map((s) => Buffer.from(s).toString('base64url')),
  fc.constantFrom(
    '',
    'o:1',
    'bzox',
    Buffer.from('o:-1').toString('base64url'),
    Buffer.from('o:1e3').toString('base64url'),
  ),
);
interface SearchInput {
  q?: string;
  tags: string[];
  cursor?: string;
  limit?: string;
}

const searchParams: fc.Arbitrary<SearchInput> = fc.record(
  {
    q: fc.option(words, { nil: undefined }),
    tags: fc.array(tag, { maxLength: 13 }),
    cursor: fc.option(cursor, { nil: undefined }),
    limit: fc.option(limit, { nil: undefined }),
  },
  { requiredKeys: ['tags'] },
);

function toQuery(params: SearchInput): string {
  const query = new URLSearchParams();
  if (params.q !== undefined) query.append('q', params.q);
  for (const t of params.tags) query.append('tag', t);
  if (params.cursor !== undefined) query.append('cursor', params.cursor);
  if (params.limit !== undefined) query.append('limit', params.limit);
  return query.toString();
}

interface SearchBody {
  packs: { name: string; version: string; tags: string[]; toolCount: number }[];
  metadata: { count: number; nextCursor: string | null };
}

function expectSearchAnswer(status: number, body: string): SearchBody | undefined {
  expect([200, 400], body).toContain(status);
  const json = JSON.parse(body) as SearchBody & { error?: { code: string } };
  if (status === 400) {
    expect(json.error?.code).toBe('E_BAD_QUERY');
    return undefined;
  }
  expect(Array.isArray(json.packs)).toBe(true);
  expect(json.metadata.count).toBe(json.packs.length);
  expect(json.packs.length).toBeLessThanOrEqual(100);
  return json;
}

function describeQueryFuzz(title: string, openStore?: () => Promise<MetadataStore>): void {
  describe(`GET /v0/packs under fuzzing (a live registry on ${title})`, () => {
    let app: HardeningRegistry;
    beforeAll(async () => {
      app = await startFuzzedRegistry(openStore);
    }, 120_000);
    afterAll(() => app?.close());

    it('answers only 200 or 400 to any q, tag, cursor and limit, and its cursors work', async () => {
      await fc.assert(
        fc.asyncProperty(searchParams, async (params) => {
          const { status, body } = await getRaw(app.url, `/v0/packs?${toQuery(params)}`);
          const page = expectSearchAnswer(status, body);
          if (page?.metadata.nextCursor) {
            const next = new URLSearchParams(toQuery(params));
            next.set('cursor', page.metadata.nextCursor);
            const again = await getRaw(app.url, `/v0/packs?${next.toString()}`);
            expect(again.status).toBe(200);
          }
        }),
        { numRuns: fuzzRuns(300) },
      );
    });

    it('answers only 200 or 400 to raw, malformed query strings', async () => {
      const raw = fc
        .array(
          fc.oneof(
            fc.constantFrom(
              'q=',
              'tag=',
              'cursor=',
              'limit=',
              '&',
              '=',
              '%',
              '%zz',
              '%e0%a4%a',
              '%00',
              '%ff',
              '+',
              '?',
              '#',
              ';',
              'q',
              'tag',
            ),
            fc.stringMatching(/^[A-Za-z0-9._~!$'()*,;:@/-]{0,10}$/),
          ),
          { maxLength: 20 },
        )
        .map((parts) => parts.join(''));
      await fc.assert(
        fc.asyncProperty(raw, async (query) => {
          const { status, body } = await getRaw(app.url, `/v0/packs?${query.replace(/#.*/, '')}`);
          expectSearchAnswer(status, body);
        }),
        { numRuns: fuzzRuns(300) },
      );
    });

    it('answers the gallery search page with the same parameters, never with a server error', async () => {
      await fc.assert(
        fc.asyncProperty(searchParams, async (params) => {
          const { status } = await getRaw(app.url, `/?${toQuery(params)}`);
          expect([200, 400]).toContain(status);
        }),
        { numRuns: fuzzRuns(150) },
      );
    });

    it('answers pack, version and page paths with 200, 400, 404 or 405, never a server error', async () => {
      const segment = fc.oneof(
        fc.constantFrom(
          'loadpack',
          'acme',
          'near-or-not',
          'versions',
          '1.0.0',
          '1.1.0',
          'yank',
          'deprecate',
          '..',
          '.',
          '',
          '%2F',
          '%2f',
          '%00',
          '%',
          '%zz',
          'acme%2Fnear-or-not',
        ),
        fc.string({ maxLength: 10 }).map((s) => encodeURIComponent(s)),
        fc.stringMatching(/^[A-Za-z0-9._~!$'()*,;:@-]{0,12}$/),
      );
      const target = fc
        .tuple(
          fc.constantFrom('/v0/packs/', '/packs/', '/v0/blobs/', '/assets/'),
          fc.array(segment, { maxLength: 6 }),
          fc.option(fc.constantFrom('?version=1.0.0', '?version=%zz', '?x'), { nil: '' }),
        )
        .map(([prefix, parts, query]) => `${prefix}${parts.join('/')}${query}`);
      await fc.assert(
        fc.asyncProperty(target, async (path) => {
          const { status } = await getRaw(app.url, path);
          expect([200, 304, 400, 404, 405], path).toContain(status);
        }),
        { numRuns: fuzzRuns(400) },
      );
    });
  });
}

describeQueryFuzz('SQLite');

describe.skipIf(!hasPostgres())(`on PostgreSQL ${NEEDS_POSTGRES}`, () => {
  let cluster: PostgresCluster | undefined;
  beforeAll(async () => {
    cluster = await startPostgresCluster();
  }, 120_000);
  afterAll(() => cluster?.stop(), 120_000);

  describeQueryFuzz('PostgreSQL', async () => {
    const pool = await openPostgresPool({ url: await cluster!.createDatabase() });
    return createPostgresMetadataStore({ pool, ownsPool: true });
  });
});

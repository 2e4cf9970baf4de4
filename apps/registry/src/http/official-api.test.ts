import { existsSync, readFileSync } from 'node:fs';
import { cp } from 'node:fs/promises';
import path from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { Ajv } from 'ajv';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fuzzRuns } from '@toolpack/fuzz-runs';
import { toServerName } from '@toolpack/packs';
import {
  hasPostgres,
  NEEDS_POSTGRES,
  startPostgresCluster,
  type PostgresCluster,
} from '@toolpack/pg-cluster';
import { listPackTools } from '../publish/list-pack-tools.ts';
import { startRegistry, type StartRegistryOptions } from '../start-registry.ts';
import {
  FIXTURE_PACKS,
  makeTempDir,
  packFixture,
  removeTempDirs,
  startTestRegistryApp,
  type TestRegistryApp,
} from '../testing/registry-fixtures.ts';
import { decodeListCursor, encodeListCursor } from './official-api-params.ts';
import { toPackNameFilter } from './official-api-routes.ts';

/** The vendored server.json schema (draft-07): every `server` the API answers must pass it. */
const schemaFile = path.resolve(
  import.meta.dirname,
  '../../../../packages/packs/src/server-json/fixtures/server.schema.json',
);
const ajv = new Ajv({ allErrors: true, strict: false });
ajv.addFormat('uri', (text: string) => /^[a-z][a-z0-9+.-]*:/i.test(text) && URL.canParse(text));
ajv.addFormat('uri-template', true);
const validateServer = ajv.compile(JSON.parse(readFileSync(schemaFile, 'utf8')) as object);

interface Official {
  status: 'active' | 'deprecated' | 'deleted';
  publishedAt: string;
  updatedAt: string;
  isLatest: boolean;
}
interface ServerEntry {
  server: {
    name: string;
    version: string;
    description: string;
    packages: { identifier: string; packageArguments: { name?: string; value: string }[] }[];
    websiteUrl?: string;
  };
  _meta: { 'io.modelcontextprotocol.registry/official': Official };
}
interface ServerList {
  servers: ServerEntry[];
  metadata: { count: number; nextCursor?: string };
}

let app: TestRegistryApp;
const get = (route: string, init?: RequestInit) => fetch(`${app.url}${route}`, init);
async function getJson<T>(route: string): Promise<{ status: number; body: T; headers: Headers }> {
  const response = await get(route);
  return { status: response.status, body: (await response.json()) as T, headers: response.headers };
}
function expectValidServers(entries: ServerEntry[]): void {
  for (const entry of entries) {
    const ok = validateServer(entry.server);
    expect(ok ? [] : validateServer.errors, entry.server.name).toEqual([]);
  }
}
const official = (entry: ServerEntry) => entry._meta['io.modelcontextprotocol.registry/official'];
const ids = (list: ServerList) => list.servers.map((s) => `${s.server.name}@${s.server.version}`);

const PLAIN = ['alpha', 'beta', 'gamma', 'delta', 'epsilon', 'zeta', 'eta'];

/** A registry with a small catalogue: weather in three versions, scoped and plain packs. */
async function startCatalogue(options: StartRegistryOptions = {}): Promise<TestRegistryApp> {
  const started = await startTestRegistryApp({ owners: ['acme', 'bob'], ...options });
  const publishes: [string, Parameters<typeof packFixture>[1], string][] = [
    ['weather', {}, 'acme'],
    ['weather', { version: '1.1.0' }, 'acme'],
    ['weather', { version: '2.0.0-beta.1' }, 'acme'],
    ['notes', {}, 'acme'],
    ['notes', { name: 'bob/station', description: 'x'.repeat(300) }, 'bob'],
    ...PLAIN.map((name): [string, { name: string; description: string }, string] => [
      'notes',
      { name, description: `The ${name} pack.` },
      'bob',
    ]),
  ];
  for (const [fixture, fixtureOptions, owner] of publishes) {
    const response = await started.publish(
      await packFixture(fixture, fixtureOptions),
      started.tokens[owner],
    );
    expect(response.status, await response.clone().text()).toBe(201);
  }
  return started;
}

afterAll(removeTempDirs);

/** The routes, against whichever registry `app` is when they run. */
function describeRoutes(): void {
  describe('GET /v0.1/servers', () => {
    it('lists every version as a ServerResponse, server.json valid against the schema', async () => {
      const { status, body, headers } = await getJson<ServerList>('/v0.1/servers?limit=100');
      expect(status).toBe(200);
      expect(headers.get('access-control-allow-origin')).toBe('*');
      expect(body.metadata).toEqual({ count: 12 });
      expect(body.metadata.nextCursor).toBeUndefined();
      expectValidServers(body.servers);
      // Pack name, then version, compared as bytes: a stable order for cursors.
      expect(ids(body).slice(0, 3)).toEqual([
        'dev.toolpack.acme/notes@1.0.0',
        'dev.toolpack/alpha@1.0.0',
        'dev.toolpack/beta@1.0.0',
      ]);
      const weather = body.servers.filter((entry) => entry.server.name === 'dev.toolpack/weather');
      expect(weather.map((entry) => [entry.server.version, official(entry).isLatest])).toEqual([
        ['1.0.0', false],
        ['1.1.0', true],
        ['2.0.0-beta.1', false],
      ]);
      const first = weather[1]!;
      expect(official(first)).toMatchObject({ status: 'active' });
      expect(Date.parse(official(first).publishedAt)).not.toBeNaN();
      expect(first.server.packages[0]?.identifier).toBe('@toolpack/cli');
      expect(first.server.packages[0]?.packageArguments.map((arg) => arg.value)).toEqual([
        'serve',
        'weather@1.1.0',
        app.url,
      ]);
      expect(first.server.websiteUrl).toBe(`${app.url}/packs/weather?version=1.1.0`);
      const station = body.servers.find(
        (entry) => entry.server.name === 'dev.toolpack.bob/station',
      );
      expect(Array.from(station!.server.description)).toHaveLength(100);
      // The website is the gallery's page of that version, scoped names included.
      for (const entry of [first, station!]) {
        const page = await fetch(entry.server.websiteUrl!);
        expect(page.status, entry.server.websiteUrl).toBe(200);
        expect(await page.text()).toContain(entry.server.version);
      }
    });

    it('pages with opaque cursors to the same list, without repeats or gaps', async () => {
      const all = ids((await getJson<ServerList>('/v0.1/servers?limit=100')).body);
      const seen: string[] = [];
      let cursor: string | undefined;
      for (let page = 0; page < 20; page += 1) {
        const query = `/v0.1/servers?limit=5${cursor === undefined ? '' : `&cursor=${encodeURIComponent(cursor)}`}`;
        const { body } = await getJson<ServerList>(query);
        expect(body.metadata.count).toBe(body.servers.length);
        seen.push(...ids(body));
        cursor = body.metadata.nextCursor;
        if (cursor === undefined) break;
      }
      expect(cursor).toBeUndefined();
      expect(seen).toEqual(all);
    });

    it('defaults to 30 a page and refuses a limit past 100, a foreign cursor, a bad date', async () => {
      const { body } = await getJson<ServerList>('/v0.1/servers');
      expect(body.servers).toHaveLength(12);
      for (const query of [
        'limit=101',
        'limit=0',
        'limit=ten',
        'cursor=not-ours',
        `cursor=${Buffer.from('["Bad Name","1.0.0"]').toString('base64url')}`,
        'updated_since=yesterday',
        'updated_since=2025-13-45T00:00:00Z',
        'include_deleted=maybe',
      ]) {
        const { status, body: error } = await getJson<{ error: string }>(`/v0.1/servers?${query}`);
        expect(status, query).toBe(400);
        expect(typeof error.error, query).toBe('string');
      }
    });

    it('version=latest keeps each pack’s listed version only', async () => {
      const { body } = await getJson<ServerList>('/v0.1/servers?version=latest&limit=100');
      expect(body.servers).toHaveLength(10);
      expect(body.servers.every((entry) => official(entry).isLatest)).toBe(true);
      expect(ids(body)).toContain('dev.toolpack/weather@1.1.0');
      const exact = await getJson<ServerList>('/v0.1/servers?version=1.1.0');
      expect(ids(exact.body)).toEqual(['dev.toolpack/weather@1.1.0']);
    });

    it('search matches a substring of the server name, the namespace part included, any case', async () => {
      const search = async (text: string) =>
        ids(
          (await getJson<ServerList>(`/v0.1/servers?limit=100&search=${encodeURIComponent(text)}`))
            .body,
        );
      expect(await search('WEATHER')).toEqual([
        'dev.toolpack/weather@1.0.0',
        'dev.toolpack/weather@1.1.0',
        'dev.toolpack/weather@2.0.0-beta.1',
      ]);
      expect(await search('k.acme/')).toEqual(['dev.toolpack.acme/notes@1.0.0']);
      expect(await search('toolpack/e')).toEqual([
        'dev.toolpack/epsilon@1.0.0',
        'dev.toolpack/eta@1.0.0',
      ]);
      expect(await search('toolpack')).toHaveLength(12);
      expect(await search('io.github')).toEqual([]);
      // Paging through a filtered listing: the same answers.
      const first = await getJson<ServerList>('/v0.1/servers?search=toolpack%2F&limit=4');
      expect(first.body.servers).toHaveLength(4);
      const second = await getJson<ServerList>(
        `/v0.1/servers?search=toolpack%2F&limit=100&cursor=${first.body.metadata.nextCursor}`,
      );
      expect([...ids(first.body), ...ids(second.body)]).toEqual(await search('toolpack/'));
    });
  });

  describe('GET /v0.1/servers/{serverName}/versions[/{version}]', () => {
    it('lists a server’s versions newest first, its name URL-encoded or not', async () => {
      const { status, body } = await getJson<ServerList>(
        '/v0.1/servers/dev.toolpack%2Fweather/versions',
      );
      expect(status).toBe(200);
      expectValidServers(body.servers);
      expect(body.servers.map((entry) => entry.server.version)).toEqual([
        '2.0.0-beta.1',
        '1.1.0',
        '1.0.0',
      ]);
      const scoped = await getJson<ServerList>('/v0.1/servers/dev.toolpack.acme/notes/versions');
      expect(ids(scoped.body)).toEqual(['dev.toolpack.acme/notes@1.0.0']);
    });

    it('answers one version, or latest, and 404 in the documented shape for unknown ones', async () => {
      const latest = await getJson<ServerEntry>(
        '/v0.1/servers/dev.toolpack%2Fweather/versions/latest',
      );
      expect(latest.status).toBe(200);
      expect(latest.body.server.version).toBe('1.1.0');
      expect(official(latest.body).isLatest).toBe(true);
      const exact = await getJson<ServerEntry>(
        `/v0.1/servers/${encodeURIComponent('dev.toolpack.acme/notes')}/versions/1.0.0`,
      );
      expect(exact.body.server.name).toBe('dev.toolpack.acme/notes');
      for (const route of [
        '/v0.1/servers/dev.toolpack%2Fnope/versions',
        '/v0.1/servers/io.github.someone%2Fweather/versions',
        '/v0.1/servers/dev.toolpack%2FWeather/versions/latest',
      ]) {
        const { status, body } = await getJson<{ error: string }>(route);
        expect(status, route).toBe(404);
        expect(body).toEqual({ error: 'Server not found' });
      }
      const missing = await getJson<{ error: string }>(
        '/v0.1/servers/dev.toolpack%2Fweather/versions/9.9.9',
      );
      expect(missing).toMatchObject({ status: 404, body: { error: 'Server version not found' } });
    });
  });

  describe('status after deprecate and yank, and updated_since', () => {
    it('a deprecation reads deprecated, a yank deleted; updated_since finds both, the default list hides the yanked', async () => {
      // Everything published so far is strictly older than `since`.
      await delay(5);
      const since = new Date().toISOString();
      await delay(5);
      const action = (version: string, what: 'deprecate' | 'yank') =>
        fetch(`${app.url}/v0/packs/weather/versions/${version}/${what}`, {
          method: 'POST',
          headers: {
            authorization: `Bearer ${app.tokens.acme}`,
            'content-type': 'application/json',
          },
          body: JSON.stringify(what === 'deprecate' ? { message: 'Use 1.1.0' } : {}),
        });
      expect((await action('1.0.0', 'deprecate')).status).toBe(200);
      expect((await action('2.0.0-beta.1', 'yank')).status).toBe(200);

      const changed = await getJson<ServerList>(
        `/v0.1/servers?updated_since=${encodeURIComponent(since)}`,
      );
      expect(
        changed.body.servers.map((entry) => [entry.server.version, official(entry).status]),
      ).toEqual([
        ['1.0.0', 'deprecated'],
        ['2.0.0-beta.1', 'deleted'],
      ]);
      expectValidServers(changed.body.servers);
      const changedEntry = changed.body.servers[0]!;
      expect(official(changedEntry).updatedAt >= since).toBe(true);
      expect(official(changedEntry).publishedAt < since).toBe(true);

      const listed = ids((await getJson<ServerList>('/v0.1/servers?limit=100')).body);
      expect(listed).toContain('dev.toolpack/weather@1.0.0');
      expect(listed).not.toContain('dev.toolpack/weather@2.0.0-beta.1');
      // Page by page, the yanked version is skipped the same way, wherever a page ends.
      for (const limit of [1, 2, 3]) {
        const paged: string[] = [];
        let cursor: string | undefined;
        for (let page = 0; page < 30; page += 1) {
          const { body } = await getJson<ServerList>(
            `/v0.1/servers?limit=${limit}${cursor === undefined ? '' : `&cursor=${cursor}`}`,
          );
          paged.push(...ids(body));
          cursor = body.metadata.nextCursor;
          if (cursor === undefined) break;
        }
        expect(paged, `limit ${limit}`).toEqual(listed);
      }
      const withDeleted = ids(
        (await getJson<ServerList>('/v0.1/servers?limit=100&include_deleted=true')).body,
      );
      expect(withDeleted).toContain('dev.toolpack/weather@2.0.0-beta.1');
      // A yanked version is still there by its exact version (a lockfile may name it).
      const yanked = await getJson<ServerEntry>(
        '/v0.1/servers/dev.toolpack%2Fweather/versions/2.0.0-beta.1',
      );
      expect(official(yanked.body).status).toBe('deleted');
    });
  });

  describe('hostile queries', () => {
    it('any query and any server name answer 200, 400 or 404 in the API shape, never 500', async () => {
      const nasty = fc.oneof(
        fc.string({ maxLength: 40 }),
        fc.string({ unit: 'binary', maxLength: 40 }),
        fc.constantFrom('\u0000', '%', '_', '\\', "'; DROP TABLE packs; --", 'é', '../..', '🧰'),
      );
      const param = fc.constantFrom(
        'search',
        'cursor',
        'limit',
        'updated_since',
        'version',
        'include_deleted',
      );
      await fc.assert(
        fc.asyncProperty(
          fc.array(fc.tuple(param, nasty), { maxLength: 4 }),
          nasty,
          async (pairs, name) => {
            const query = new URLSearchParams(pairs).toString();
            const listing = await get(`/v0.1/servers?${query}`);
            expect([200, 400], query).toContain(listing.status);
            const body = (await listing.json()) as { servers?: unknown; error?: unknown };
            expect(listing.status === 200 ? Array.isArray(body.servers) : typeof body.error).toBe(
              listing.status === 200 ? true : 'string',
            );
            const route = `/v0.1/servers/${encodeURIComponent(name)}/versions/${encodeURIComponent(name)}`;
            const detail = await get(route);
            expect([200, 404], route).toContain(detail.status);
          },
        ),
        { numRuns: fuzzRuns(150) },
      );
    });
  });

  describe('CORS and methods', () => {
    it('answers a browser preflight with 204 and the headers a cross-origin GET needs', async () => {
      const response = await get('/v0.1/servers', {
        method: 'OPTIONS',
        headers: {
          origin: 'https://vscode.example',
          'access-control-request-method': 'GET',
          'access-control-request-headers': 'accept, x-client',
        },
      });
      expect(response.status).toBe(204);
      expect(response.headers.get('access-control-allow-origin')).toBe('*');
      expect(response.headers.get('access-control-allow-methods')).toContain('GET');
      expect(response.headers.get('access-control-allow-headers')).toBe('accept, x-client');
      const posted = await get('/v0.1/servers', { method: 'POST', body: '{}' });
      expect(posted.status).toBe(405);
      expect(posted.headers.get('allow')).toBe('GET, HEAD, OPTIONS');
      expect(await posted.json()).toEqual({ error: 'Use GET, HEAD, OPTIONS here.' });
    });
  });
}

describe('on SQLite', () => {
  beforeAll(async () => {
    app = await startCatalogue();
  }, 120_000);
  afterAll(() => app?.close());
  describeRoutes();
});

describe.skipIf(!hasPostgres())(`on PostgreSQL ${NEEDS_POSTGRES}`, () => {
  let cluster: PostgresCluster | undefined;
  beforeAll(async () => {
    cluster = await startPostgresCluster();
    app = await startCatalogue({ database: { url: await cluster.createDatabase() } });
  }, 120_000);
  afterAll(async () => {
    await app?.close();
    await cluster?.stop();
  }, 120_000);
  describeRoutes();
});

describe('rate limit', () => {
  it('listing draws on the search bucket: 429 in the API error shape once it is empty', async () => {
    const limited = await startTestRegistryApp({
      rateLimits: { search: { capacity: 2, refillPerSecond: 0.001 } },
    });
    try {
      const statuses: number[] = [];
      for (let i = 0; i < 3; i += 1)
        statuses.push((await fetch(`${limited.url}/v0.1/servers`)).status);
      expect(statuses).toEqual([200, 200, 429]);
      const refused = await fetch(`${limited.url}/v0.1/servers`);
      expect(refused.headers.get('retry-after')).toMatch(/^\d+$/);
      expect(((await refused.json()) as { error: string }).error).toMatch(/Too many requests/);
      // A version's page is not a listing: it stays reachable.
      expect((await fetch(`${limited.url}/v0.1/servers/dev.toolpack%2Fx/versions`)).status).toBe(
        404,
      );
    } finally {
      await limited.close();
    }
  });
});

describe('while the seed packs are published', () => {
  it('answers 503 with Retry-After in the API shape, then the full list', async () => {
    const seedDir = await makeTempDir();
    await cp(path.join(FIXTURE_PACKS, 'weather'), path.join(seedDir, 'weather'), {
      recursive: true,
    });
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let markSeeding!: () => void;
    const seedingStarted = new Promise<void>((resolve) => (markSeeding = resolve));
    let markListening!: (url: string) => void;
    const listening = new Promise<string>((resolve) => (markListening = resolve));
    const starting = startRegistry({
      port: 0,
      dataDir: await makeTempDir(),
      seedDir,
      rateLimits: false,
      sweep: false,
      onListening: markListening,
      listTools: async (input) => {
        markSeeding();
        await held;
        return listPackTools(input);
      },
    });
    const url = await listening;
    await seedingStarted;
    let registry;
    try {
      for (const route of ['/v0.1/servers', '/v0.1/servers/dev.toolpack%2Fweather/versions']) {
        const early = await fetch(`${url}${route}`);
        expect(early.status, route).toBe(503);
        expect(early.headers.get('retry-after')).toBe('2');
        expect(typeof ((await early.json()) as { error: unknown }).error).toBe('string');
      }
    } finally {
      release();
      registry = await starting;
    }
    try {
      const ready = await fetch(`${url}/v0.1/servers`);
      expect(ready.status).toBe(200);
      expect(((await ready.json()) as ServerList).servers.map((s) => s.server.name)).toEqual([
        'dev.toolpack/weather',
      ]);
    } finally {
      await registry.close();
    }
  });
});

describe('options', () => {
  it('a bad server namespace or CLI version is refused before any storage is opened', async () => {
    const dataDir = await makeTempDir();
    for (const bad of [{ serverNamespace: 'Not.Reverse DNS' }, { cliVersion: '^1.0.0' }]) {
      await expect(startRegistry({ port: 0, dataDir, seedDir: false, ...bad })).rejects.toThrow(
        /server namespace|exact @toolpack\/cli version/,
      );
      expect(existsSync(path.join(dataDir, 'registry.db'))).toBe(false);
    }
    // The same start with good options opens the store, so the check above really ran first.
    const good = await startRegistry({
      port: 0,
      dataDir,
      seedDir: false,
      serverNamespace: 'com.example.packs',
      cliVersion: '1.2.3',
    });
    try {
      expect(existsSync(path.join(dataDir, 'registry.db'))).toBe(true);
    } finally {
      await good.close();
    }
  });
});

describe('listing internals', () => {
  it('cursors read back, and anything else is refused', () => {
    const position = { name: 'acme/notes', version: '1.0.0-rc.1+b' };
    expect(decodeListCursor(encodeListCursor(position))).toEqual(position);
    for (const cursor of ['', '***', 'x'.repeat(600), Buffer.from('{}').toString('base64url')])
      expect(decodeListCursor(cursor), cursor).toBeUndefined();
  });

  it('the store filter for a search keeps every match, and exactly the matches when it says so', () => {
    const segment = fc.stringMatching(/^[a-z0-9][a-z0-9-]{0,10}$/);
    const packName = fc.oneof(
      segment,
      fc.tuple(segment, segment).map(([a, b]) => `${a}/${b}`),
    );
    const search = fc.oneof(
      fc.stringMatching(/^[a-z0-9./-]{1,8}$/),
      fc
        .tuple(packName, fc.nat(30), fc.nat(30))
        .map(([name, from, length]) => toServerName(name).slice(from, from + 1 + length)),
    );
    fc.assert(
      fc.property(packName, search, (name, text) => {
        const filter = toPackNameFilter(text, 'dev.toolpack');
        const matches = toServerName(name).includes(text);
        const kept = filter.nameContains === undefined || name.includes(filter.nameContains);
        if (matches) expect(kept, `${text} in ${name}`).toBe(true);
        if (filter.exact) expect(kept, `${text} in ${name}`).toBe(matches);
      }),
      { numRuns: 5000 },
    );
    expect(toPackNameFilter('jira', 'dev.toolpack')).toEqual({ nameContains: 'jira', exact: true });
    expect(toPackNameFilter('k/ji', 'dev.toolpack')).toEqual({ nameContains: 'ji', exact: false });
    expect(toPackNameFilter('k.', 'dev.toolpack')).toEqual({ nameContains: '/', exact: true });
    expect(toPackNameFilter('toolpack', 'dev.toolpack')).toEqual({ exact: false });
  });
});

import { readFileSync } from 'node:fs';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { computeIntegrity, createHttpRegistry, selectVersion } from '@toolpack/packs';
import { buildTarball, packManifestText } from '@toolpack/packs/testing';
import type { PackDoc, SearchResponse, VersionDoc } from '../documents.ts';
import {
  FIXTURE_PACKS,
  packFixture,
  removeTempDirs,
  startTestRegistryApp,
  type TestRegistryApp,
} from '../testing/registry-fixtures.ts';

interface ErrorResponse {
  error: { code: string; message: string; hint?: string };
  problems: { code: string; message: string; path: string; line?: number }[];
}

let app: TestRegistryApp;
const get = (path: string, init?: RequestInit) => fetch(`${app.url}${path}`, init);
const getJson = async <T>(path: string) => {
  const response = await get(path);
  return { status: response.status, body: (await response.json()) as T, headers: response.headers };
};

beforeAll(async () => {
  app = await startTestRegistryApp({ owners: ['acme', 'bob', 'toolpack'] });
  // A small catalogue to search: weather 1.0.0 and 1.1.0 by acme, acme/notes, and some by bob.
  for (const [fixture, options, owner] of [
    ['weather', {}, 'acme'],
    ['weather', { version: '1.1.0' }, 'acme'],
    ['notes', {}, 'acme'],
    ['notes', { name: 'forecaster', description: 'Mentions weather only in passing.' }, 'bob'],
    ['notes', { name: 'bob/weather-station', description: 'Reads a home weather station.' }, 'bob'],
  ] as const) {
    const response = await app.publish(await packFixture(fixture, options), app.tokens[owner]);
    expect(response.status, await response.clone().text()).toBe(201);
  }
});

afterAll(async () => {
  await app?.close();
  await removeTempDirs();
});

describe('publish', () => {
  it('answers 201 with the VersionDoc: manifest, tools with schemas, env and dist', async () => {
    const tarball = await packFixture('weather', { version: '1.2.0' });
    const response = await app.publish(tarball, app.tokens.acme);
    expect(response.status).toBe(201);
    expect(response.headers.get('location')).toBe('/v0/packs/weather/versions/1.2.0');
    const doc = (await response.json()) as VersionDoc;
    expect(doc).toMatchObject({
      name: 'weather',
      version: '1.2.0',
      description: 'Weather forecasts for a city, from a local script.',
      tags: ['MCPTools', 'weather', 'forecast'],
      env: [
        {
          name: 'WEATHER_API_KEY',
          required: true,
          secret: true,
          description: 'The key of the forecast service.',
        },
      ],
      dist: { integrity: computeIntegrity(tarball), size: tarball.length, fileCount: 3 },
    });
    expect(doc.tools.map((tool) => tool.name)).toEqual(['get_forecast', 'list_cities']);
    expect(doc.tools[0]?.inputSchema).toMatchObject({
      type: 'object',
      required: ['city'],
      properties: {
        days: { type: 'integer', default: 3 },
        units: { enum: ['metric', 'imperial'] },
      },
      additionalProperties: false,
    });
    expect(doc.dist.tarball).toMatch(
      new RegExp(`^${app.url}/v0/blobs/sha512/[0-9a-f]{128}\\.tgz$`),
    );
  });

  it('takes the tarball as a multipart/form-data file too', async () => {
    const form = new FormData();
    form.append(
      'tarball',
      new Blob([new Uint8Array(await packFixture('weather', { version: '1.3.0' }))]),
      'weather.tgz',
    );
    const response = await fetch(`${app.url}/v0/packs`, {
      method: 'POST',
      headers: { authorization: `Bearer ${app.tokens.acme}` },
      body: form,
    });
    expect(response.status).toBe(201);
    expect(((await response.json()) as VersionDoc).version).toBe('1.3.0');
  });

  it('answers 401 without a token, with a malformed one and with a forged one', async () => {
    const tarball = await packFixture('weather', { version: '9.0.0' });
    const forged = app.tokens.acme!.replace(/.$/, (c) => (c === 'A' ? 'B' : 'A'));
    for (const token of [undefined, 'not-a-token', forged]) {
      const response = await app.publish(tarball, token);
      expect(response.status).toBe(401);
      expect(response.headers.get('www-authenticate')).toContain('Bearer');
      expect(((await response.json()) as ErrorResponse).error.code).toBe('E_UNAUTHORIZED');
    }
    expect((await get('/v0/packs/weather/versions/9.0.0')).status).toBe(404);
  });

  it('answers 401 for a revoked token', async () => {
    const { token, id } = await app.registry.createToken({ owner: 'acme' });
    await app.registry.store.revokeToken(id, new Date().toISOString());
    expect(
      (await app.publish(await packFixture('weather', { version: '9.0.1' }), token)).status,
    ).toBe(401);
  });

  it("answers 403 for another owner's scoped name and for a bare name first published by someone else", async () => {
    const scoped = await app.publish(
      await packFixture('notes', { version: '2.0.0' }),
      app.tokens.bob,
    );
    expect(scoped.status).toBe(403);
    expect(((await scoped.json()) as ErrorResponse).error.message).toContain(
      'acme/notes belongs to acme',
    );
    const bare = await app.publish(
      await packFixture('weather', { version: '5.0.0' }),
      app.tokens.bob,
    );
    expect(bare.status).toBe(403);
    expect(((await bare.json()) as ErrorResponse).error.message).toMatch(
      /weather belongs to acme.*bob\/weather/,
    );
  });

  it('answers 409 for an existing version, and a yanked version is never reused', async () => {
    const again = await app.publish(await packFixture('weather'), app.tokens.acme);
    expect(again.status).toBe(409);
    expect(((await again.json()) as ErrorResponse).error.code).toBe('E_VERSION_EXISTS');

    await app.publish(await packFixture('notes', { name: 'acme/scratch' }), app.tokens.acme);
    const yank = await fetch(`${app.url}/v0/packs/acme/scratch/versions/1.0.0/yank`, {
      method: 'POST',
      headers: { authorization: `Bearer ${app.tokens.acme}` },
    });
    expect(yank.status).toBe(200);
    const reuse = await app.publish(
      await packFixture('notes', { name: 'acme/scratch', description: 'Other bytes' }),
      app.tokens.acme,
    );
    expect(reuse.status).toBe(409);
  });

  it('answers 422 with every problem of the manifest at once', async () => {
    // Packed by hand: `mcp pack publish` itself refuses to pack this manifest.
    const manifestText = readFileSync(
      path.join(FIXTURE_PACKS, 'bad-manifest', 'toolpack.yaml'),
      'utf8',
    );
    const tarball = buildTarball([{ path: 'package/toolpack.yaml', data: manifestText }]);
    const response = await app.publish(tarball, app.tokens.acme);
    expect(response.status).toBe(422);
    const body = (await response.json()) as ErrorResponse;
    expect(body.error.code).toBe('E_PACK_INVALID');
    expect(body.problems.map((p) => p.message.split(':')[0])).toEqual([
      'name',
      'version',
      'description',
      'tags.1',
      'sources',
    ]);
    expect(
      body.problems.every((p) => p.path === 'toolpack.yaml' && typeof p.line === 'number'),
    ).toBe(true);
  });

  it('answers 422 with every tool problem (with file and line) and a missing source, publishing nothing', async () => {
    const response = await app.publish(await packFixture('broken-tools'), app.tokens.acme);
    expect(response.status).toBe(422);
    const body = (await response.json()) as ErrorResponse;
    expect(body.problems).toEqual([
      expect.objectContaining({ code: 'E_SOURCE_MISSING', path: 'toolpack.yaml' }),
      expect.objectContaining({ code: 'E_PARAM_TYPE', path: 'scripts/bad-type.sh', line: 3 }),
      expect.objectContaining({
        code: 'E_NO_DESCRIPTION',
        path: 'scripts/no-description.sh',
        line: 2,
      }),
    ]);
    expect(JSON.stringify(body)).not.toContain('publish-');
    expect((await get('/v0/packs/broken-tools')).status).toBe(404);
  });

  it('answers 422 for a pack that serves no tools', async () => {
    const response = await app.publish(await packFixture('no-tools'), app.tokens.acme);
    expect(response.status).toBe(422);
    expect(((await response.json()) as ErrorResponse).problems[0]?.code).toBe('E_PACK_NO_TOOLS');
  });

  const manifest = packManifestText('hostile', '1.0.0');
  const script = '#!/bin/sh\n# DESCRIPTION "x"\necho ok\n';
  it.each([
    ['not gzip at all', Buffer.from('just some text, not a tarball'), 'E_TARBALL_FORMAT'],
    ['an empty body', Buffer.alloc(0), 'E_TARBALL_FORMAT'],
    ['truncated gzip', gzipSync(Buffer.alloc(4096, 1)).subarray(0, 30), 'E_TARBALL_FORMAT'],
    ['gzip of garbage', gzipSync(Buffer.from('x'.repeat(3000))), 'E_TARBALL_FORMAT'],
    [
      'gzip twice',
      gzipSync(buildTarball([{ path: 'package/toolpack.yaml', data: manifest }])),
      'E_TARBALL_FORMAT',
    ],
    [
      'a symbolic link',
      buildTarball([
        { path: 'package/toolpack.yaml', data: manifest },
        { path: 'package/scripts/x.sh', type: 'SymbolicLink', linkpath: '/etc/passwd' },
      ]),
      'E_TARBALL_ENTRY_TYPE',
    ],
    [
      'a hard link',
      buildTarball([
        { path: 'package/toolpack.yaml', data: manifest },
        { path: 'package/scripts/x.sh', type: 'Link', linkpath: 'package/toolpack.yaml' },
      ]),
      'E_TARBALL_ENTRY_TYPE',
    ],
    [
      'a .. path',
      buildTarball([
        { path: 'package/toolpack.yaml', data: manifest },
        { path: 'package/../../evil.sh', data: script },
      ]),
      'E_TARBALL_PATH',
    ],
    [
      'an absolute path',
      buildTarball([
        { path: 'package/toolpack.yaml', data: manifest },
        { path: '/tmp/evil.sh', data: script },
      ]),
      'E_TARBALL_PATH',
    ],
    [
      'no toolpack.yaml',
      buildTarball([{ path: 'package/scripts/x.sh', data: script }]),
      'E_PACK_NO_MANIFEST',
    ],
    [
      'entries outside package/',
      buildTarball([{ path: 'toolpack.yaml', data: manifest }]),
      'E_TARBALL_PATH',
    ],
  ])('answers 422 for a malformed tarball: %s', async (_label, tarball, code) => {
    const response = await app.publish(tarball, app.tokens.acme);
    expect(response.status).toBe(422);
    const body = (await response.json()) as ErrorResponse;
    expect(body.problems.map((p) => p.code)).toContain(code);
    expect((await get('/v0/packs/hostile')).status).toBe(404);
  });

  it('reports every bad entry of a hostile tarball, not just the first', async () => {
    const tarball = buildTarball([
      { path: 'package/toolpack.yaml', data: manifest },
      { path: 'package/a', type: 'SymbolicLink', linkpath: '/' },
      { path: 'package/../b', data: 'x' },
      { path: 'package/c', type: 'FIFO' },
    ]);
    const body = (await (await app.publish(tarball, app.tokens.acme)).json()) as ErrorResponse;
    expect(body.problems.map((p) => p.code)).toEqual([
      'E_TARBALL_ENTRY_TYPE',
      'E_TARBALL_PATH',
      'E_TARBALL_ENTRY_TYPE',
    ]);
  });

  it('answers 400 for a multipart body without a file part', async () => {
    const form = new FormData();
    form.append('note', 'no file here');
    const response = await fetch(`${app.url}/v0/packs`, {
      method: 'POST',
      headers: { authorization: `Bearer ${app.tokens.acme}` },
      body: form,
    });
    expect(response.status).toBe(400);
    expect(((await response.json()) as ErrorResponse).error.code).toBe('E_BAD_UPLOAD');
  });
});

describe('size caps', () => {
  let small: TestRegistryApp;
  beforeAll(async () => {
    small = await startTestRegistryApp({
      limits: { maxTarballBytes: 2048, maxFileBytes: 4096, maxTotalBytes: 8192 },
    });
  });
  afterAll(() => small?.close());

  it('answers 413 for an upload over the tarball cap, declared or streamed', async () => {
    const big = Buffer.alloc(300_000, 7);
    const declared = await small.publish(big, small.tokens.acme);
    expect(declared.status).toBe(413);
    expect(((await declared.json()) as ErrorResponse).error.code).toBe('E_TARBALL_TOO_LARGE');
    const streamed = await fetch(`${small.url}/v0/packs`, {
      method: 'POST',
      headers: { authorization: `Bearer ${small.tokens.acme}`, 'content-type': 'application/gzip' },
      body: new ReadableStream({
        start(controller) {
          for (let i = 0; i < 50; i += 1) controller.enqueue(new Uint8Array(8192));
          controller.close();
        },
      }),
      duplex: 'half',
    } as RequestInit);
    expect(streamed.status).toBe(413);
  });

  it('answers 422 for a small tarball that unpacks past the caps (a decompression bomb)', async () => {
    const bomb = buildTarball([
      { path: 'package/toolpack.yaml', data: packManifestText('bomb', '1.0.0') },
      { path: 'package/zeros.bin', data: Buffer.alloc(200_000) },
    ]);
    expect(bomb.length).toBeLessThan(2048);
    const response = await small.publish(bomb, small.tokens.acme);
    expect(response.status).toBe(422);
    expect(((await response.json()) as ErrorResponse).problems.map((p) => p.code)).toContain(
      'E_TARBALL_FILE_TOO_LARGE',
    );
  });
});

describe('search', () => {
  const search = (query: string) => getJson<SearchResponse>(`/v0/packs${query}`);
  const names = async (query: string) => (await search(query)).body.packs.map((pack) => pack.name);

  it('lists every pack with summaries of their latest version', async () => {
    const { status, body } = await search('');
    expect(status).toBe(200);
    const weather = body.packs.find((pack) => pack.name === 'weather');
    expect(weather).toEqual({
      name: 'weather',
      version: '1.3.0',
      description: 'Weather forecasts for a city, from a local script.',
      tags: ['MCPTools', 'weather', 'forecast'],
      toolCount: 2,
    });
    expect(body.metadata).toEqual({ count: body.packs.length, nextCursor: null });
  });

  it('matches words in names, descriptions, tags and tool names; the exact name ranks first', async () => {
    expect(await names('?q=weather')).toEqual(['weather', 'bob/weather-station', 'forecaster']);
    expect(await names('?q=forecast')).toEqual(expect.arrayContaining(['weather', 'forecaster']));
    expect(await names('?q=list_cities')).toEqual(['weather']);
    expect(await names('?q=add%20note')).toEqual(
      expect.arrayContaining(['acme/notes', 'forecaster', 'bob/weather-station']),
    );
    expect(await names('?q=WEATH')).toContain('weather');
    expect(await names('?q=station%20home')).toEqual(['bob/weather-station']);
    expect(await names('?q=nothing-like-this')).toEqual([]);
  });

  it('filters by tags exactly and case-insensitively; several tags must all match', async () => {
    expect(await names('?tag=forecast')).toEqual(['weather']);
    expect(await names('?tag=FORECAST&tag=mcptools')).toEqual(['weather']);
    expect(await names('?tag=notes&tag=forecast')).toEqual([]);
    expect(await names('?tag=forecas')).toEqual([]);
    expect((await names('?tag=MCPTools')).length).toBeGreaterThanOrEqual(4);
    expect(await names('?q=weather&tag=notes')).toEqual(['bob/weather-station', 'forecaster']);
  });

  it('pages with an opaque cursor and caps limit', async () => {
    const all = await names('?limit=100');
    const first = await search('?limit=2');
    expect(first.body.packs.map((p) => p.name)).toEqual(all.slice(0, 2));
    expect(first.body.metadata.count).toBe(2);
    const second = await search(`?limit=2&cursor=${first.body.metadata.nextCursor}`);
    expect(second.body.packs.map((p) => p.name)).toEqual(all.slice(2, 4));
    const capped = await search('?limit=100000');
    expect(capped.status).toBe(200);
    expect(capped.body.packs.length).toBe(all.length);
  });

  it.each([
    ['?limit=0'],
    ['?limit=-1'],
    ['?limit=abc'],
    ['?cursor=not-ours'],
    ['?cursor=b206MTAwMDAwMDAw'],
  ])('answers 400 for a bad parameter: %s', async (query) => {
    const response = await get(`/v0/packs${query}`);
    expect(response.status).toBe(400);
    expect(((await response.json()) as ErrorResponse).error.code).toBe('E_BAD_QUERY');
  });

  it.each([
    '"',
    '""',
    '*',
    'weather*',
    'NEAR(weather forecast)',
    'weather OR notes',
    'NOT weather',
    "'; DROP TABLE packs; --",
    '((weather',
    'weather)',
    'name:weather',
    '^weather',
    '{name description}: weather',
    'a"b',
    '\u0000',
    '-weather',
    '+ - " * ( ) : ^',
  ])('treats FTS5 and SQL syntax in q as plain words: %s', async (q) => {
    const response = await get(`/v0/packs?q=${encodeURIComponent(q)}`);
    expect(response.status).toBe(200);
    const body = (await response.json()) as SearchResponse;
    expect(Array.isArray(body.packs)).toBe(true);
    // Operators are words to find: as an operator, OR would also bring in acme/notes.
    if (q === 'weather OR notes') expect(body.packs.map((p) => p.name)).not.toContain('acme/notes');
    expect((await get('/health')).status).toBe(200);
  });
});

describe('pack and version documents', () => {
  it('serves the pack with every version and the latest', async () => {
    const { status, body } = await getJson<PackDoc>('/v0/packs/weather');
    expect(status).toBe(200);
    expect(body.name).toBe('weather');
    expect(body.latest).toBe('1.3.0');
    expect(Object.keys(body.versions)).toEqual(['1.0.0', '1.1.0', '1.2.0', '1.3.0']);
    expect(body.versions['1.1.0']?.version).toBe('1.1.0');
  });

  it('serves scoped names as two segments or with an encoded slash', async () => {
    expect((await getJson<PackDoc>('/v0/packs/acme/notes')).body.name).toBe('acme/notes');
    expect((await getJson<PackDoc>('/v0/packs/acme%2Fnotes')).body.name).toBe('acme/notes');
    expect(
      (await getJson<VersionDoc>('/v0/packs/acme%2Fnotes/versions/1.0.0')).body.tools[0]?.name,
    ).toBe('add_note');
    expect((await getJson<VersionDoc>('/v0/packs/acme/notes/versions/1.0.0')).status).toBe(200);
  });

  it('answers 404 for unknown packs, versions and paths', async () => {
    expect((await get('/v0/packs/nope')).status).toBe(404);
    expect((await get('/v0/packs/weather/versions/7.7.7')).status).toBe(404);
    expect(
      ((await (await get('/v0/packs/weather/versions/7.7.7')).json()) as ErrorResponse).error
        .message,
    ).toContain('1.0.0');
    expect((await get('/v0/packs/BAD%20NAME')).status).toBe(404);
    expect((await get('/v0/packs/a/b/c/d/e/f')).status).toBe(404);
    expect((await get('/v0/packs/%E0%A4%A')).status).toBe(404);
    expect((await get('/v0/nothing')).status).toBe(404);
  });

  it('answers 405 with Allow for the wrong method', async () => {
    const response = await get('/v0/packs/weather', { method: 'DELETE' });
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toBe('GET, HEAD');
  });
});

describe('tarballs', () => {
  it('serves the exact bytes with an immutable cache policy and an ETag', async () => {
    const tarball = await packFixture('weather', { version: '3.0.0' });
    const doc = (await (await app.publish(tarball, app.tokens.acme)).json()) as VersionDoc;
    const response = await fetch(doc.dist.tarball);
    expect(response.status).toBe(200);
    expect(response.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(response.headers.get('content-type')).toBe('application/gzip');
    const etag = response.headers.get('etag');
    expect(etag).toMatch(/^"[0-9a-f]{128}"$/);
    const bytes = Buffer.from(await response.arrayBuffer());
    expect(bytes.equals(tarball)).toBe(true);
    expect(computeIntegrity(bytes)).toBe(doc.dist.integrity);

    const cached = await fetch(doc.dist.tarball, { headers: { 'if-none-match': etag! } });
    expect(cached.status).toBe(304);
    const head = await fetch(doc.dist.tarball, { method: 'HEAD' });
    expect(head.headers.get('content-length')).toBe(String(tarball.length));
  });

  it('answers 404 for unknown blobs and malformed keys', async () => {
    expect((await get(`/v0/blobs/sha512/${'0'.repeat(128)}.tgz`)).status).toBe(404);
    expect((await get('/v0/blobs/sha512/../../registry.db')).status).toBe(404);
  });
});

describe('deprecate and yank', () => {
  const post = (path: string, token: string | undefined, body?: unknown) =>
    fetch(`${app.url}${path}`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        ...(token === undefined ? {} : { authorization: `Bearer ${token}` }),
      },
      ...(body === undefined
        ? {}
        : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
    });

  it('deprecates with a message and lifts it with undo', async () => {
    const response = await post('/v0/packs/weather/versions/1.0.0/deprecate', app.tokens.acme, {
      message: 'Use 1.1 or later.',
    });
    expect(response.status).toBe(200);
    expect(((await response.json()) as VersionDoc).deprecated).toBe('Use 1.1 or later.');
    expect((await getJson<PackDoc>('/v0/packs/weather')).body.versions['1.0.0']?.deprecated).toBe(
      'Use 1.1 or later.',
    );
    const undone = await post('/v0/packs/weather/versions/1.0.0/deprecate', app.tokens.acme, {
      undo: true,
    });
    expect(((await undone.json()) as VersionDoc).deprecated).toBeUndefined();
  });

  it('yanks: the version leaves range resolution and search but its doc and tarball stay served', async () => {
    await app.publish(await packFixture('notes', { name: 'acme/yankee' }), app.tokens.acme);
    await app.publish(
      await packFixture('notes', { name: 'acme/yankee', version: '1.1.0' }),
      app.tokens.acme,
    );
    const yanked = await post('/v0/packs/acme/yankee/versions/1.1.0/yank', app.tokens.acme);
    expect(yanked.status).toBe(200);
    const doc = (await yanked.json()) as VersionDoc;
    expect(doc.yanked).toBe(true);

    const pack = (await getJson<PackDoc>('/v0/packs/acme/yankee')).body;
    expect(pack.latest).toBe('1.0.0');
    expect(selectVersion(pack, '^1.0.0')).toBe('1.0.0');
    expect((await getJson<VersionDoc>('/v0/packs/acme/yankee/versions/1.1.0')).body.yanked).toBe(
      true,
    );
    expect((await fetch(doc.dist.tarball)).status).toBe(200);

    const summary = (await getJson<SearchResponse>('/v0/packs?q=yankee')).body.packs[0];
    expect(summary?.version).toBe('1.0.0');
    await post('/v0/packs/acme/yankee/versions/1.0.0/yank', app.tokens.acme);
    expect((await getJson<SearchResponse>('/v0/packs?q=yankee')).body.packs).toEqual([]);
    expect((await get('/v0/packs/acme/yankee')).status).toBe(200);

    const restored = await post('/v0/packs/acme/yankee/versions/1.1.0/yank', app.tokens.acme, {
      undo: true,
    });
    expect(((await restored.json()) as VersionDoc).yanked).toBeUndefined();
    expect((await getJson<PackDoc>('/v0/packs/acme/yankee')).body.latest).toBe('1.1.0');
  });

  it('needs the owner’s token: 401 without one, 403 for another owner, 404 for an unknown version', async () => {
    expect((await post('/v0/packs/weather/versions/1.0.0/yank', undefined)).status).toBe(401);
    expect((await post('/v0/packs/weather/versions/1.0.0/yank', app.tokens.bob)).status).toBe(403);
    expect(
      (await post('/v0/packs/acme/notes/versions/1.0.0/deprecate', app.tokens.bob)).status,
    ).toBe(403);
    expect((await post('/v0/packs/weather/versions/8.8.8/yank', app.tokens.acme)).status).toBe(404);
    expect((await post('/v0/packs/unknown/versions/1.0.0/yank', app.tokens.acme)).status).toBe(404);
    expect(
      (await getJson<VersionDoc>('/v0/packs/weather/versions/1.0.0')).body.yanked,
    ).toBeUndefined();
  });

  it('answers 400 for a body that is not a JSON object or has wrong types', async () => {
    for (const body of ['not json', '[1]', '{"message": 5}', '{"undo": "yes"}']) {
      expect(
        (await post('/v0/packs/weather/versions/1.0.0/deprecate', app.tokens.acme, body)).status,
      ).toBe(400);
    }
  });
});

describe('the @toolpack/packs client against this registry', () => {
  it('searches, reads documents, downloads with integrity and publishes', async () => {
    const client = createHttpRegistry({ url: app.url });
    const found = await client.search({ q: 'weather', tags: ['MCPTools'] });
    expect(found.packs[0]?.name).toBe('weather');
    const pack = await client.getPack('acme/notes');
    expect(pack.latest).toBe('1.0.0');
    const version = await client.getVersion('weather', '1.1.0');
    const bytes = await client.download(version.dist);
    expect(computeIntegrity(bytes)).toBe(version.dist.integrity);

    const published = await client.publish(await packFixture('weather', { version: '4.0.0' }), {
      token: app.tokens.acme!,
    });
    expect(published.version).toBe('4.0.0');
    await expect(
      client.publish(await packFixture('weather', { version: '4.0.0' }), {
        token: app.tokens.acme!,
      }),
    ).rejects.toMatchObject({
      status: 409,
    });
    await expect(
      client.publish(await packFixture('broken-tools'), { token: app.tokens.acme! }),
    ).rejects.toMatchObject({
      status: 422,
      problems: expect.arrayContaining([
        expect.objectContaining({ path: 'scripts/bad-type.sh', line: 3 }),
      ]),
    });
  });
});

describe('health and rate limits', () => {
  it('answers /health with counts', async () => {
    const { status, body } = await getJson<{ status: string; packs: number; versions: number }>(
      '/health',
    );
    expect(status).toBe(200);
    expect(body.status).toBe('ok');
    expect(body.packs).toBeGreaterThan(3);
  });

  it('answers 429 with Retry-After once a client spends its search and publish buckets', async () => {
    const limited = await startTestRegistryApp({
      rateLimits: {
        search: { capacity: 3, refillPerSecond: 0.01 },
        publish: { capacity: 2, refillPerSecond: 0.01 },
      },
    });
    try {
      const statuses = [];
      for (let i = 0; i < 5; i += 1)
        statuses.push((await fetch(`${limited.url}/v0/packs?q=x`)).status);
      expect(statuses).toEqual([200, 200, 200, 429, 429]);
      const refused = await fetch(`${limited.url}/v0/packs`);
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
      expect((await fetch(`${limited.url}/`)).status).toBe(429);

      const tarball = await packFixture('weather', { version: '1.0.0' });
      const publishes = [];
      for (let i = 0; i < 3; i += 1)
        publishes.push((await limited.publish(tarball, 'wrong-token')).status);
      expect(publishes).toEqual([401, 401, 429]);
      // A valid token has a bucket of its own.
      expect((await limited.publish(tarball, limited.tokens.acme)).status).toBe(201);
    } finally {
      await limited.close();
    }
  });
});

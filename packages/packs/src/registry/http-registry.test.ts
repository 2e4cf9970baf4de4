import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkIntegrity } from '../integrity/integrity.ts';
import { createPackTarball } from '../tarball/create-tarball.ts';
import { buildTarball } from '../testing/build-tarball.ts';
import { describeScriptTools } from '../testing/describe-script-tools.ts';
import { startTestRegistry, type TestRegistry } from '../testing/test-registry.ts';
import { createHttpRegistry } from './http-registry.ts';
import type { RegistryError } from './registry-error.ts';

const packs = path.join(import.meta.dirname, '..', 'project', 'fixtures', 'packs');
let registry: TestRegistry;

beforeAll(async () => {
  registry = await startTestRegistry({
    packs,
    describeTools: describeScriptTools,
    tokens: { 'tok-official': '*', 'tok-acme': 'acme', 'tok-bob': 'bob' },
  });
});
afterAll(() => registry.close());

describe('the HTTP registry client against the loopback registry', () => {
  it("reads a version's permissions, and refuses a document whose permissions it cannot read", async () => {
    const client = createHttpRegistry({ url: registry.url });
    const doc = await client.getVersion('weather', '1.0.0');
    expect(doc.permissions).toEqual({
      filesystem: { read: [], write: [] },
      network: { access: 'none', hosts: [] },
      env: ['WEATHER_API_KEY', 'WEATHER_UNITS'],
      subprocess: false,
    });
    const saved = doc.permissions;
    // A grant this client does not know must not pass for no grant.
    registry.setPermissions('weather', '1.0.0', {
      ...saved!,
      camera: true,
    } as unknown as typeof saved);
    try {
      await expect(client.getVersion('weather', '1.0.0')).rejects.toThrow(/camera/);
    } finally {
      registry.setPermissions('weather', '1.0.0', saved);
    }
  });

  it('searches by tag and words', async () => {
    const client = createHttpRegistry({ url: registry.url });
    const byTag = await client.search({ tags: ['mcptools'] });
    expect(byTag.packs).toEqual([
      {
        name: 'hello',
        version: '1.1.0',
        description: 'Says hello (1.1.0).',
        tags: ['MCPTools', 'greeting'],
        toolCount: 1,
      },
      {
        name: 'weather',
        version: '1.0.0',
        description: 'Tells the weather.',
        tags: ['MCPTools', 'weather'],
        toolCount: 1,
      },
    ]);
    expect((await client.search({ q: 'weather_now' })).packs.map((p) => p.name)).toEqual([
      'weather',
    ]);
    expect(
      (await client.search({ tags: ['MCPTools', 'greeting'] })).packs.map((p) => p.name),
    ).toEqual(['hello']);
    expect(registry.requests).toContain('GET /v0/packs?tag=mcptools');
  });

  it('reads a pack with its versions and a version with its tools', async () => {
    const client = createHttpRegistry({ url: registry.url });
    const hello = await client.getPack('hello');
    expect(hello.latest).toBe('1.1.0');
    expect(Object.keys(hello.versions).sort()).toEqual(['1.0.0', '1.1.0', '2.0.0-beta.1']);
    const doc = await client.getVersion('hello', '1.0.0');
    expect(doc.tools).toEqual([
      expect.objectContaining({
        name: 'greet',
        description: 'Greets someone by name (version 1.0.0).',
      }),
    ]);
    expect(doc.dist.tarball).toBe(`${registry.url}/v0/packs/hello/-/hello-1.0.0.tgz`);
    const bytes = await client.download(doc.dist);
    expect(checkIntegrity(bytes, doc.dist.integrity)).toBe(true);
    expect(bytes.length).toBe(doc.dist.size);
  });

  it('says which pack or version does not exist', async () => {
    const client = createHttpRegistry({ url: registry.url });
    await expect(client.getPack('nope')).rejects.toMatchObject({
      code: 'E_PACK_NOT_FOUND',
      message: `No pack named nope in the registry at ${registry.url}.`,
    });
    await expect(client.getVersion('hello', '9.9.9')).rejects.toMatchObject({
      code: 'E_PACK_NOT_FOUND',
    });
  });

  it('reports progress while downloading', async () => {
    const client = createHttpRegistry({ url: registry.url });
    const doc = await client.getVersion('weather', '1.0.0');
    const seen: [number, number | undefined][] = [];
    await client.download(doc.dist, {
      onProgress: (received, total) => seen.push([received, total]),
    });
    expect(seen.at(-1)).toEqual([doc.dist.size, doc.dist.size]);
  });

  it('stops a download over the size cap', async () => {
    const client = createHttpRegistry({ url: registry.url });
    const doc = await client.getVersion('weather', '1.0.0');
    await expect(
      client.download(doc.dist, { limits: { maxTarballBytes: 100 } }),
    ).rejects.toMatchObject({ code: 'E_TARBALL_TOO_LARGE' });
  });

  it('publishes with a token: 201, then 409, 401, 403 and 422 with every problem', async () => {
    const client = createHttpRegistry({ url: registry.url });
    const packed = await createPackTarball({ dir: path.join(packs, 'hello-1.0.0') });
    await expect(client.publish(packed.tarball!, { token: 'tok-official' })).rejects.toMatchObject({
      status: 409,
      code: 'E_PUBLISH_REJECTED',
      message: expect.stringMatching(/refused the pack \(409: this version already exists/),
    });
    await expect(client.publish(packed.tarball!, { token: 'wrong' })).rejects.toMatchObject({
      status: 401,
    });
    await expect(client.publish(packed.tarball!, { token: 'tok-bob' })).rejects.toMatchObject({
      status: 403,
    });
    const broken = buildTarball([
      { path: 'package/toolpack.yaml', data: 'name: Bad\nversion: one\n' },
      { path: 'package/../escape', data: 'x' },
    ]);
    const rejected = (await client
      .publish(broken, { token: 'tok-acme' })
      .catch((e: unknown) => e)) as RegistryError;
    expect(rejected.status).toBe(422);
    expect(rejected.problems.map((p) => p.message)).toEqual([
      expect.stringMatching(/climbs out of the pack/),
    ]);
    const badManifest = buildTarball([
      { path: 'package/toolpack.yaml', data: 'name: Bad\nversion: one\n' },
    ]);
    const invalid = (await client
      .publish(badManifest, { token: 'tok-acme' })
      .catch((e: unknown) => e)) as RegistryError;
    expect(invalid.problems.map((p) => p.message)).toEqual([
      expect.stringMatching(/^name: "Bad" is not a valid pack name/),
      'version: "one" is not a valid semver version (e.g. 1.2.0)',
      'description: a pack needs a description.',
      'sources: a pack without sources has no tools.',
    ]);
  });

  it('cannot reach a registry that is not there', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(closed.address() as AddressInfo).port}`;
    await new Promise((resolve) => closed.close(resolve));
    const client = createHttpRegistry({ url });
    await expect(client.search({})).rejects.toMatchObject({
      code: 'E_REGISTRY_UNREACHABLE',
      message: `Cannot reach the registry at ${url}: ECONNREFUSED.`,
      hint: expect.not.stringContaining('./registry/packs'),
    });
  });

  it('refuses answers that are not the Registry API', async () => {
    const html = createHttpRegistry({
      url: 'http://example.test',
      fetch: async () => new Response('<html>'),
    });
    await expect(html.getPack('x')).rejects.toMatchObject({ code: 'E_REGISTRY_RESPONSE' });
    const wrong = createHttpRegistry({
      url: 'http://example.test',
      fetch: async () => Response.json({ name: 'x', versions: 3 }),
    });
    await expect(wrong.getPack('x')).rejects.toThrow(
      /invalid answer to GET \/v0\/packs\/x: versions: /,
    );
  });
});

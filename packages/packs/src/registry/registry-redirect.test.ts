import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { checkIntegrity } from '../integrity/integrity.ts';
import { describeScriptTools } from '../testing/describe-script-tools.ts';
import { startTestRegistry, type TestRegistry } from '../testing/test-registry.ts';
import { MAX_REDIRECTS } from './fetch-within-origins.ts';
import { createHttpRegistry, downloadHttpTarball } from './http-registry.ts';

// Issue 30: a registry whose metadata or tarball URL (on its own origin, so it passes the
// tarball-origin check) redirects to another host. fetch would follow it.

const packs = path.join(import.meta.dirname, '..', 'project', 'fixtures', 'packs');
const TARBALL = '/v0/packs/hello/-/hello-1.0.0.tgz';

/** The real registry behind the front; its origin is the one the client is given. */
let backend: TestRegistry;
/** Another origin (another port on loopback) serving the same packs: where redirects lead. */
let foreign: TestRegistry;
let front: { url: string; server: Server; redirects: Map<string, string> };

/**
 * A registry on its own port that answers as `backend` does (its URLs rewritten to its own),
 * except for the paths in `redirects`, which it answers with 302 and that Location.
 */
async function startRedirectingFront(): Promise<typeof front> {
  const redirects = new Map<string, string>();
  let url = '';
  const server = createServer((request, response) => {
    const target = redirects.get(request.url ?? '');
    if (target !== undefined) {
      response.writeHead(302, { location: target });
      response.end();
      return;
    }
    void (async () => {
      const answer = await fetch(`${backend.url}${request.url ?? '/'}`);
      const type = answer.headers.get('content-type') ?? 'application/octet-stream';
      const bytes = Buffer.from(await answer.arrayBuffer());
      const body = type.includes('json')
        ? Buffer.from(bytes.toString('utf8').replaceAll(backend.url, url))
        : bytes;
      response.writeHead(answer.status, { 'content-type': type });
      response.end(body);
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { url, server, redirects };
}

beforeAll(async () => {
  backend = await startTestRegistry({ packs, describeTools: describeScriptTools });
  foreign = await startTestRegistry({ packs, describeTools: describeScriptTools });
  front = await startRedirectingFront();
});
afterAll(async () => {
  await new Promise((resolve) => front.server.close(resolve));
  await backend.close();
  await foreign.close();
});
beforeEach(() => {
  front.redirects.clear();
  foreign.requests.length = 0;
});

describe('redirects from the registry', () => {
  it('refuses a tarball on the registry origin that redirects to another host; fetch alone follows it', async () => {
    front.redirects.set(TARBALL, `${foreign.url}${TARBALL}`);
    const client = createHttpRegistry({ url: front.url });
    const doc = await client.getVersion('hello', '1.0.0');
    // The URL the document names is on the registry's own origin: the origin check passes.
    expect(client.resolveTarball(doc.dist)).toBe(`${front.url}${TARBALL}`);

    // Without the check (fetch following redirects as it does by default) the bytes come
    // from the other host.
    const followed = await fetch(`${front.url}${TARBALL}`);
    expect(followed.url).toBe(`${foreign.url}${TARBALL}`);
    expect(checkIntegrity(Buffer.from(await followed.arrayBuffer()), doc.dist.integrity)).toBe(
      true,
    );
    expect(foreign.requests).toEqual([`GET ${TARBALL}`]);
    foreign.requests.length = 0;

    await expect(client.download(doc.dist)).rejects.toMatchObject({
      code: 'E_REGISTRY_REDIRECT',
      message: expect.stringContaining(`redirects to "${foreign.url}${TARBALL}", which is not on`),
      hint: expect.stringContaining('TOOLPACK_TARBALL_ORIGINS'),
    });
    expect(foreign.requests).toEqual([]);
  });

  it('refuses metadata that redirects to another host, before asking it', async () => {
    front.redirects.set('/v0/packs/hello', `${foreign.url}/v0/packs/hello`);
    const followed = await fetch(`${front.url}/v0/packs/hello`);
    expect(((await followed.json()) as { name: string }).name).toBe('hello');
    expect(foreign.requests).toEqual(['GET /v0/packs/hello']);
    foreign.requests.length = 0;

    const client = createHttpRegistry({ url: front.url });
    await expect(client.getPack('hello')).rejects.toMatchObject({ code: 'E_REGISTRY_REDIRECT' });
    // Metadata stays on the registry's origin even when tarballs may come from elsewhere.
    const withOrigins = createHttpRegistry({ url: front.url, tarballOrigins: [foreign.url] });
    await expect(withOrigins.getPack('hello')).rejects.toMatchObject({
      code: 'E_REGISTRY_REDIRECT',
    });
    expect(foreign.requests).toEqual([]);
  });

  it('refuses a lockfile URL whose tarball redirects to another host', async () => {
    front.redirects.set(TARBALL, `${foreign.url}${TARBALL}`);
    await expect(downloadHttpTarball(`${front.url}${TARBALL}`, {})).rejects.toMatchObject({
      code: 'E_REGISTRY_REDIRECT',
    });
    expect(foreign.requests).toEqual([]);
  });

  it('follows redirects within the registry origin, and to a tarball origin the user allowed', async () => {
    front.redirects.set('/v0/packs/greeting', '/v0/packs/hello');
    const client = createHttpRegistry({ url: front.url });
    expect((await client.getPack('greeting')).name).toBe('hello');

    front.redirects.set(TARBALL, `${foreign.url}${TARBALL}`);
    const allowing = createHttpRegistry({ url: front.url, tarballOrigins: [foreign.url] });
    const doc = await allowing.getVersion('hello', '1.0.0');
    const bytes = await allowing.download(doc.dist);
    expect(checkIntegrity(bytes, doc.dist.integrity)).toBe(true);
    expect(foreign.requests).toEqual([`GET ${TARBALL}`]);
  });

  it('stops a redirect loop on its own origin after a few hops', async () => {
    front.redirects.set('/v0/packs/a', '/v0/packs/b');
    front.redirects.set('/v0/packs/b', '/v0/packs/a');
    await expect(createHttpRegistry({ url: front.url }).getPack('a')).rejects.toMatchObject({
      code: 'E_REGISTRY_REDIRECT',
      message: expect.stringContaining(`more than ${MAX_REDIRECTS} times`),
    });
  });
});

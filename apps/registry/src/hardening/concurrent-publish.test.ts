import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { computeIntegrity } from '@toolpack/packs';
import { generateToken } from '../auth/tokens.ts';
import { makeTempDir, removeTempDirs } from '../testing/registry-fixtures.ts';
import {
  blobKeyOf,
  checkStoredPacks,
  listBlobFiles,
  packLoadPack,
  publish,
  sendRawRequest,
  startHardeningRegistry,
  type HardeningRegistry,
} from './hardening-kit.ts';

const CLIENTS = 8;
let app: HardeningRegistry;

beforeAll(async () => {
  app = await startHardeningRegistry({ dataDir: await makeTempDir(), token: generateToken() });
});

afterAll(async () => {
  await app?.close();
  await removeTempDirs();
});

async function publishAll(tarballs: readonly Buffer[]) {
  return Promise.all(
    tarballs.map(async (tarball) => {
      const response = await publish(app.url, app.token, tarball);
      return { tarball, status: response.status, body: (await response.json()) as unknown };
    }),
  );
}

describe('concurrent publishes of one name@version', () => {
  it(`answers exactly one 201 and ${CLIENTS - 1} 409s for the same bytes from ${CLIENTS} clients`, async () => {
    const tarball = await packLoadPack({ version: '1.0.0' });
    const results = await publishAll(Array.from({ length: CLIENTS }, () => tarball));
    const statuses = results.map((r) => r.status).sort();
    expect(statuses).toEqual([201, ...Array.from({ length: CLIENTS - 1 }, () => 409)]);
    const created = results.find((r) => r.status === 201)!.body as {
      dist: { integrity: string };
    };
    expect(created.dist.integrity).toBe(computeIntegrity(tarball));
    const stored = await checkStoredPacks(app.url, ['loadpack']);
    expect(stored.problems).toEqual([]);
    expect([...stored.versions]).toEqual([['loadpack@1.0.0', computeIntegrity(tarball)]]);
    expect((await listBlobFiles(app.dataDir)).keys).toContain(blobKeyOf(tarball));
  });

  it('keeps the winner’s tarball and document when the clients send different bytes', async () => {
    const tarballs = await Promise.all(
      Array.from({ length: CLIENTS }, (_, i) =>
        packLoadPack({ version: '2.0.0', description: `Variant ${i} of the same version.` }),
      ),
    );
    const results = await publishAll(tarballs);
    const winners = results.filter((r) => r.status === 201);
    expect(winners).toHaveLength(1);
    expect(results.filter((r) => r.status === 409)).toHaveLength(CLIENTS - 1);
    const winner = winners[0]!;
    const doc = winner.body as { description: string; dist: { integrity: string } };
    expect(doc.dist.integrity).toBe(computeIntegrity(winner.tarball));

    const served = (await (await fetch(`${app.url}/v0/packs/loadpack/versions/2.0.0`)).json()) as {
      description: string;
      dist: { integrity: string };
    };
    expect(served.description).toBe(doc.description);
    expect(served.dist.integrity).toBe(doc.dist.integrity);
    const stored = await checkStoredPacks(app.url, ['loadpack']);
    expect(stored.problems).toEqual([]);
    expect(stored.versions.get('loadpack@2.0.0')).toBe(computeIntegrity(winner.tarball));

    // Losers remove the blob they wrote: only blobs versions point at are left.
    const { keys, other } = await listBlobFiles(app.dataDir);
    expect(keys).toContain(blobKeyOf(winner.tarball));
    for (const key of keys) expect(stored.referenced.has(key)).toBe(true);
    expect(other).toEqual([]);
  });

  it('lets the next version through while the same version is contended', async () => {
    const [a, b] = await Promise.all([
      packLoadPack({ version: '3.0.0' }),
      packLoadPack({ version: '3.0.1' }),
    ]);
    const results = await publishAll([a, a, b, a, b]);
    const byVersion = (tarball: Buffer) =>
      results
        .filter((r) => r.tarball === tarball)
        .map((r) => r.status)
        .sort();
    expect(byVersion(a)).toEqual([201, 409, 409]);
    expect(byVersion(b)).toEqual([201, 409]);
  });
});

describe('interrupted uploads', () => {
  const head = (length: number) =>
    [
      'POST /v0/packs HTTP/1.1',
      'Host: 127.0.0.1',
      `Authorization: Bearer ${app.token}`,
      'Content-Type: application/gzip',
      `Content-Length: ${length}`,
      'Connection: close',
      '',
      '',
    ].join('\r\n');

  async function expectNothingStored(version: string) {
    const response = await fetch(`${app.url}/v0/packs/loadpack/versions/${version}`);
    expect(response.status).toBe(404);
    await response.body?.cancel();
  }

  it('stores nothing when the client aborts mid-body, and a retry succeeds', async () => {
    const tarball = await packLoadPack({ version: '4.0.0' });
    const before = await listBlobFiles(app.dataDir);
    const answer = await sendRawRequest({
      url: app.url,
      head: head(tarball.length),
      body: tarball.subarray(0, Math.floor(tarball.length / 2)),
      finish: 'destroy',
    });
    expect(answer).toBe('');
    await expectNothingStored('4.0.0');
    expect(await listBlobFiles(app.dataDir)).toEqual(before);

    const retry = await publish(app.url, app.token, tarball);
    expect(retry.status).toBe(201);
    await retry.body?.cancel();
    const stored = await checkStoredPacks(app.url, ['loadpack']);
    expect(stored.versions.get('loadpack@4.0.0')).toBe(computeIntegrity(tarball));
  });

  it('stores nothing for a body shorter than its Content-Length, and a retry succeeds', async () => {
    const tarball = await packLoadPack({ version: '5.0.0' });
    const before = await listBlobFiles(app.dataDir);
    const answer = await sendRawRequest({
      url: app.url,
      head: head(tarball.length + 100),
      body: tarball,
      finish: 'half-close',
    });
    // The server may answer 400 or just close; it never publishes.
    expect(answer).not.toMatch(/^HTTP\/1\.1 20/);
    await expectNothingStored('5.0.0');
    expect(await listBlobFiles(app.dataDir)).toEqual(before);

    const retry = await publish(app.url, app.token, tarball);
    expect(retry.status).toBe(201);
    await retry.body?.cancel();
  });

  it('refuses a truncated but complete body (Content-Length matches the cut) with 422', async () => {
    const tarball = await packLoadPack({ version: '6.0.0' });
    const cut = tarball.subarray(0, tarball.length - 40);
    const response = await publish(app.url, app.token, cut);
    expect(response.status).toBe(422);
    await response.body?.cancel();
    await expectNothingStored('6.0.0');
  });

  it('leaves no upload folder behind in the work folder', async () => {
    const work = path.join(app.dataDir, 'tmp');
    const left = await readdir(work).catch(() => []);
    expect(left).toEqual([]);
  });
});

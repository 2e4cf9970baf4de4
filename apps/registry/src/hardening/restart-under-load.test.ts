import { afterAll, describe, expect, it } from 'vitest';
import { computeIntegrity } from '@toolpack/packs';
import { generateToken } from '../auth/tokens.ts';
import { makeTempDir, removeTempDirs } from '../testing/registry-fixtures.ts';
import {
  blobKeyOf,
  checkStoredPacks,
  listBlobFiles,
  packLoadPack,
  publish,
  runPool,
  startHardeningRegistry,
  type HardeningRegistry,
} from './hardening-kit.ts';

const VERSIONS = 40;
const running: HardeningRegistry[] = [];

afterAll(async () => {
  await Promise.all(running.map((app) => app.close().catch(() => {})));
  await removeTempDirs();
});

interface Attempt {
  version: string;
  tarball: Buffer;
  /** The status the client heard, or undefined when the connection died first. */
  status?: number;
}

describe('a restart while searches and publishes run', () => {
  it('keeps every publish that got a 201, intact, and none that failed half-present', async () => {
    const dataDir = await makeTempDir();
    const token = generateToken();
    const first = await startHardeningRegistry({ dataDir, token });
    running.push(first);

    const attempts: Attempt[] = await Promise.all(
      Array.from({ length: VERSIONS }, async (_, i) => ({
        version: `1.0.${i}`,
        tarball: await packLoadPack({ version: `1.0.${i}`, description: `Load version ${i}.` }),
      })),
    );

    let created = 0;
    let stopSearching = false;
    const searches = (async () => {
      let answered = 0;
      while (!stopSearching && answered < 10_000) {
        const response = await fetch(`${first.url}/v0/packs?q=load&tag=hardening&limit=5`).catch(
          () => undefined,
        );
        if (response === undefined) break;
        // 503 (with Retry-After) once close() began, on a connection opened before it.
        expect([200, 503]).toContain(response.status);
        await response.body?.cancel();
        if (response.status === 503) {
          expect(response.headers.get('retry-after')).toBe('5');
          break;
        }
        answered += 1;
      }
      return answered;
    })();
    const publishes = runPool(
      attempts.map((attempt) => async () => {
        const response = await publish(first.url, token, attempt.tarball);
        attempt.status = response.status;
        await response.body?.cancel();
        if (response.status === 201) created += 1;
      }),
      4,
    );

    // Close while work is in flight: once a few publishes have landed, not after all.
    const deadline = Date.now() + 10_000;
    while (created < 5 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
    await first.close();
    stopSearching = true;
    await Promise.all([publishes, searches]);
    expect(created).toBeGreaterThanOrEqual(5);

    const second = await startHardeningRegistry({ dataDir, token });
    running.push(second);
    const stored = await checkStoredPacks(second.url, ['loadpack']);
    expect(stored.problems).toEqual([]);

    for (const attempt of attempts) {
      const integrity = stored.versions.get(`loadpack@${attempt.version}`);
      if (attempt.status === 201) {
        expect(integrity, `loadpack@${attempt.version} got a 201`).toBe(
          computeIntegrity(attempt.tarball),
        );
      } else if (integrity !== undefined) {
        // The answer was lost but the publish committed: then all of it, not half.
        expect(integrity).toBe(computeIntegrity(attempt.tarball));
      }
    }
    // No metadata without its blob (checked above), and no blob without metadata: close()
    // drained the publishes in flight, and one that does not land removes its tarball.
    const sent = new Map(attempts.map((a) => [blobKeyOf(a.tarball), a]));
    const { keys, other } = await listBlobFiles(dataDir);
    for (const key of keys) {
      expect(sent.has(key)).toBe(true);
      expect(stored.referenced.has(key), `${key} is referenced`).toBe(true);
    }
    expect(other).toEqual([]);

    // The restarted registry takes the versions that did not make it.
    const missing = attempts.filter((a) => !stored.versions.has(`loadpack@${a.version}`));
    for (const attempt of missing.slice(0, 3)) {
      const response = await publish(second.url, token, attempt.tarball);
      expect(response.status).toBe(201);
      await response.body?.cancel();
    }
    const health = (await (await fetch(`${second.url}/health`)).json()) as { versions: number };
    expect(health.versions).toBe(stored.versions.size + Math.min(3, missing.length));
  });
});

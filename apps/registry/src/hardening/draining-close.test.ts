import { connect } from 'node:net';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, describe, expect, it } from 'vitest';
import { computeIntegrity } from '@toolpack/packs';
import { generateToken } from '../auth/tokens.ts';
import { listPackTools, type PackToolLister } from '../publish/list-pack-tools.ts';
import type { BlobStore } from '../storage/blob-store.ts';
import { createFsBlobStore } from '../storage/fs-blob-store.ts';
import { createSqliteMetadataStore } from '../storage/sqlite-metadata-store.ts';
import { makeTempDir, packFixture, removeTempDirs } from '../testing/registry-fixtures.ts';
import {
  blobKeyOf,
  listBlobFiles,
  packLoadPack,
  publish,
  startHardeningRegistry,
  type HardeningRegistry,
} from './hardening-kit.ts';

const running: HardeningRegistry[] = [];

afterAll(async () => {
  await Promise.all(running.map((app) => app.close().catch(() => {})));
  await removeTempDirs();
});

/** Lists tools as the registry does, after `delayFor(version)` ms; counts publishes that reached it. */
function createSlowLister(delayFor: (version: string) => number) {
  let entered = 0;
  const listTools: PackToolLister = async (input) => {
    entered += 1;
    await sleep(delayFor(input.manifest.version));
    return listPackTools(input);
  };
  return { listTools, entered: () => entered };
}

interface Attempt {
  version: string;
  tarball: Buffer;
  status?: number;
  retryAfter?: string | null;
}

async function makeAttempts(versions: readonly string[]): Promise<Attempt[]> {
  return Promise.all(
    versions.map(async (version) => ({ version, tarball: await packLoadPack({ version }) })),
  );
}

function startPublishing(app: HardeningRegistry, attempts: Attempt[]): Promise<void[]> {
  return Promise.all(
    attempts.map(async (attempt) => {
      const response = await publish(app.url, app.token, attempt.tarball);
      attempt.status = response.status;
      attempt.retryAfter = response.headers.get('retry-after');
      await response.body?.cancel();
    }),
  );
}

/**
 * Every publish fully landed (a 201, its version and its tarball) or fully did not (no
 * version, no tarball): read from the data folder after the registry closed.
 */
async function expectAllOrNothing(dataDir: string, attempts: readonly Attempt[]): Promise<void> {
  const store = createSqliteMetadataStore({ file: path.join(dataDir, 'registry.db') });
  try {
    const { keys, other } = await listBlobFiles(dataDir);
    expect(other).toEqual([]);
    const landed = new Set<string>();
    for (const attempt of attempts) {
      const stored = await store.getVersion('loadpack', attempt.version);
      const key = blobKeyOf(attempt.tarball);
      if (attempt.status === 201) {
        expect(stored?.doc.dist.integrity, `loadpack@${attempt.version}`).toBe(
          computeIntegrity(attempt.tarball),
        );
        expect(stored?.blobKey).toBe(key);
        expect(keys).toContain(key);
        landed.add(key);
      } else {
        expect(stored, `loadpack@${attempt.version} answered ${attempt.status}`).toBeUndefined();
        expect(keys, `loadpack@${attempt.version}'s tarball`).not.toContain(key);
      }
    }
    expect(keys).toEqual([...landed].sort());
  } finally {
    await store.close();
  }
}

describe('close() while publishes run', () => {
  it('lets every publish in flight finish and land whole, then closes the database', async () => {
    const lister = createSlowLister(() => 300);
    const app = await startHardeningRegistry({
      dataDir: await makeTempDir(),
      token: generateToken(),
      listTools: lister.listTools,
    });
    running.push(app);
    const attempts = await makeAttempts(['1.0.0', '1.0.1', '1.0.2', '1.0.3', '1.0.4', '1.0.5']);
    const publishing = startPublishing(app, attempts);
    await expect.poll(lister.entered, { timeout: 10_000 }).toBe(attempts.length);

    await app.close();
    await publishing;
    expect(attempts.map((a) => a.status)).toEqual(attempts.map(() => 201));
    // The database is closed: the store refuses work.
    await expect(app.registry.store.countPacks()).rejects.toThrow();
    await expectAllOrNothing(app.dataDir, attempts);
  });

  it('aborts what the drain timeout leaves running: nothing of those publishes stays behind', async () => {
    // 1.0.0-1.0.1 finish within the drain; 1.0.2-1.0.3 are still reading their tools at the
    // timeout; 1.0.4-1.0.5 are still writing their tarball (a slow store) at the timeout.
    const slowListing = new Set(['1.0.2', '1.0.3']);
    const lister = createSlowLister((version) => (slowListing.has(version) ? 2500 : 100));
    const dataDir = await makeTempDir();
    const real = createFsBlobStore({ dir: path.join(dataDir, 'blobs') });
    const attempts = await makeAttempts(['1.0.0', '1.0.1', '1.0.2', '1.0.3', '1.0.4', '1.0.5']);
    const slowKeys = new Set(attempts.slice(4).map((a) => blobKeyOf(a.tarball)));
    const blobs: BlobStore = {
      ...real,
      put: async (key, bytes) => {
        await real.put(key, bytes);
        if (slowKeys.has(key)) await sleep(2000);
      },
    };
    const app = await startHardeningRegistry({
      dataDir,
      token: generateToken(),
      listTools: lister.listTools,
      blobs,
      drainTimeoutMs: 1000,
    });
    running.push(app);
    const publishing = startPublishing(app, attempts);
    await expect.poll(lister.entered, { timeout: 10_000 }).toBe(attempts.length);

    const started = Date.now();
    await app.close();
    // The drain timeout, then the abort grace for the slowest to stop; never unbounded.
    expect(Date.now() - started).toBeLessThan(1000 + 5000 + 1000);
    await publishing;
    expect(attempts.map((a) => a.status)).toEqual([201, 201, 503, 503, 503, 503]);
    for (const attempt of attempts.slice(2)) expect(attempt.retryAfter).toBe('5');
    await expect(app.registry.store.countPacks()).rejects.toThrow();
    await expectAllOrNothing(dataDir, attempts);
  });

  it('stops a publish still importing its JS module for the tool list, storing nothing', async () => {
    let entered = 0;
    const app = await startHardeningRegistry({
      dataDir: await makeTempDir(),
      token: generateToken(),
      listTools: (input) => {
        entered += 1;
        return listPackTools(input);
      },
      drainTimeoutMs: 300,
    });
    running.push(app);
    const tarball = await packFixture('slow-module');
    const answer = publish(app.url, app.token, tarball);
    await expect.poll(() => entered, { timeout: 10_000 }).toBe(1);
    const started = Date.now();
    await app.close();
    // The module's import is killed at the abort; it no longer holds close() for the loader's
    // own 15 s limit.
    expect(Date.now() - started).toBeLessThan(10_000);
    const response = await answer;
    expect(response.status).toBe(503);
    await response.body?.cancel();
    await expectAllOrNothing(app.dataDir, [{ version: '1.0.0', tarball }]);
  });

  it('cuts off an upload still arriving at the drain timeout, storing nothing', async () => {
    const app = await startHardeningRegistry({
      dataDir: await makeTempDir(),
      token: generateToken(),
      drainTimeoutMs: 300,
    });
    running.push(app);
    const tarball = await packLoadPack({ version: '1.0.0' });
    const head = [
      'POST /v0/packs HTTP/1.1',
      'Host: 127.0.0.1',
      `Authorization: Bearer ${app.token}`,
      'Content-Type: application/gzip',
      `Content-Length: ${tarball.length}`,
      '',
      '',
    ].join('\r\n');
    // Half the body, then the client goes quiet with the connection open.
    const { port } = new URL(app.url);
    const socket = connect({ host: '127.0.0.1', port: Number(port) });
    const answer = new Promise<string>((resolve) => {
      const chunks: Buffer[] = [];
      socket.on('data', (chunk: Buffer) => chunks.push(chunk));
      socket.on('close', () => resolve(Buffer.concat(chunks).toString('utf8')));
      socket.on('error', () => {});
    });
    socket.write(head);
    socket.write(tarball.subarray(0, tarball.length >> 1));
    await sleep(100);
    await app.close();
    const text = await answer;
    expect(text).toMatch(/^HTTP\/1\.1 503 /);
    expect(text).toMatch(/\r\nretry-after: 5\r\n/i);
    await expectAllOrNothing(app.dataDir, [{ version: '1.0.0', tarball }]);
  });
});

describe('requests after close() began', () => {
  it('refuses new connections and answers 503 with Retry-After on open ones', async () => {
    let release = () => {};
    const gate = new Promise<void>((resolve) => (release = resolve));
    let entered = 0;
    const app = await startHardeningRegistry({
      dataDir: await makeTempDir(),
      token: generateToken(),
      // One publish stays in flight, so the drain is still waiting while we knock.
      listTools: async (input) => {
        entered += 1;
        await gate;
        return listPackTools(input);
      },
    });
    running.push(app);
    const { port } = new URL(app.url);

    // A connection opened before close(), its request head still incomplete.
    const early = connect({ host: '127.0.0.1', port: Number(port) });
    const earlyAnswer = new Promise<string>((resolve) => {
      const chunks: Buffer[] = [];
      early.on('data', (chunk: Buffer) => chunks.push(chunk));
      early.on('close', () => resolve(Buffer.concat(chunks).toString('utf8')));
      early.on('error', () => {});
    });
    await new Promise<void>((resolve) => early.once('connect', () => resolve()));
    early.write('GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n');

    const tarball = await packLoadPack({ version: '1.0.0' });
    const inFlight = publish(app.url, app.token, tarball);
    await expect.poll(() => entered, { timeout: 10_000 }).toBe(1);

    const closing = app.close();
    // New connections: refused, the listener is gone.
    const refused = await new Promise<string>((resolve) => {
      const socket = connect({ host: '127.0.0.1', port: Number(port) });
      socket.once('connect', () => {
        socket.destroy();
        resolve('connected');
      });
      socket.once('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? 'error'));
    });
    expect(refused).toBe('ECONNREFUSED');
    // A request completed on the open connection: 503, Retry-After, and the connection closes.
    early.write('\r\n');
    const answer = await earlyAnswer;
    expect(answer).toMatch(/^HTTP\/1\.1 503 /);
    expect(answer).toMatch(/\r\nretry-after: 5\r\n/i);
    expect(answer).toMatch(/\r\nconnection: close\r\n/i);
    expect(answer).toContain('"code":"E_REGISTRY_CLOSING"');

    // The publish that was running when close() began still lands.
    release();
    const response = await inFlight;
    expect(response.status).toBe(201);
    await response.body?.cancel();
    await closing;
    // close() again joins the same, finished close.
    await app.close();
    await expectAllOrNothing(app.dataDir, [{ version: '1.0.0', tarball, status: 201 }]);
  });
});

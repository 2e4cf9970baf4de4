import { createHash } from 'node:crypto';
import { readdir } from 'node:fs/promises';
import { connect } from 'node:net';
import path from 'node:path';
import { computeIntegrity } from '@toolpack/packs';
import {
  startRegistry,
  type RunningRegistry,
  type StartRegistryOptions,
} from '../start-registry.ts';
import { packFolder, type PackFixtureOptions } from '../testing/registry-fixtures.ts';

/** Real pack folders and hostile manifest/script files the hardening tests build tarballs from. */
export const HARDENING_FIXTURES = path.join(import.meta.dirname, 'fixtures');
const LOAD_PACK = path.join(HARDENING_FIXTURES, 'packs', 'loadpack');

/** Packs the `loadpack` fixture as `mcp pack publish` would, as another name, version or description. */
export function packLoadPack(options: PackFixtureOptions & { version: string }): Promise<Buffer> {
  return packFolder(LOAD_PACK, options);
}

export interface HardeningRegistry {
  registry: RunningRegistry;
  url: string;
  dataDir: string;
  token: string;
  close(): Promise<void>;
}

/**
 * A registry on a free loopback port, no seed, no rate limits, one publish token for
 * `acme` (registered by value, so a restart on the same data folder keeps it).
 */
export async function startHardeningRegistry(
  options: Partial<StartRegistryOptions> & { dataDir: string; token: string },
): Promise<HardeningRegistry> {
  const { token, ...rest } = options;
  const registry = await startRegistry({
    port: 0,
    seedDir: false,
    rateLimits: false,
    tokens: [{ owner: 'acme', token }],
    ...rest,
  });
  return {
    registry,
    url: registry.url,
    dataDir: registry.dataDir,
    token,
    close: () => registry.close(),
  };
}

export function publish(url: string, token: string, tarball: Uint8Array): Promise<Response> {
  return fetch(`${url}/v0/packs`, {
    method: 'POST',
    body: new Uint8Array(tarball),
    headers: { 'content-type': 'application/gzip', authorization: `Bearer ${token}` },
  });
}

export interface RawRequest {
  /** `http://127.0.0.1:PORT` */
  url: string;
  head: string;
  /** Bytes written after the head. */
  body: Uint8Array;
  /** `destroy`: reset the connection; `half-close`: end our side and wait for the server's. */
  finish: 'destroy' | 'half-close';
}

/**
 * Sends bytes on a raw socket, for what fetch cannot do: stop mid-body, or end the
 * stream before Content-Length. Resolves with whatever the server answered (maybe nothing).
 */
export function sendRawRequest(request: RawRequest): Promise<string> {
  const { hostname, port } = new URL(request.url);
  return new Promise((resolve) => {
    const socket = connect({ host: hostname, port: Number(port) });
    const chunks: Buffer[] = [];
    const timer = setTimeout(() => socket.destroy(), 5000);
    const done = () => {
      clearTimeout(timer);
      resolve(Buffer.concat(chunks).toString('utf8'));
    };
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('close', done);
    socket.on('error', () => {});
    socket.on('connect', () => {
      socket.write(request.head);
      socket.write(request.body, () => {
        if (request.finish === 'half-close') socket.end();
        // Let the server read what we sent before the reset.
        else setTimeout(() => socket.destroy(), 50);
      });
    });
  });
}

/** Every file under `<dataDir>/blobs`, as blob keys (`sha512/<hex>`), temporary files as they are. */
export async function listBlobFiles(dataDir: string): Promise<{ keys: string[]; other: string[] }> {
  const root = path.join(dataDir, 'blobs');
  const entries = await readdir(root, { recursive: true, withFileTypes: true }).catch(() => []);
  const keys: string[] = [];
  const other: string[] = [];
  for (const entry of entries) {
    if (!entry.isFile()) continue;
    const match = /^([0-9a-f]{128})\.tgz$/.exec(entry.name);
    if (match?.[1] === undefined) other.push(path.join(entry.parentPath, entry.name));
    else keys.push(`sha512/${match[1]}`);
  }
  return { keys: keys.sort(), other };
}

export function blobKeyOf(bytes: Uint8Array): string {
  return `sha512/${createHash('sha512').update(bytes).digest('hex')}`;
}

export interface StoredCheck {
  /** `name@version` -> the integrity of the tarball actually served. */
  versions: Map<string, string>;
  /** Blob keys the metadata points at. */
  referenced: Set<string>;
  problems: string[];
}

/**
 * Reads every version of `names` back through the API and its tarball through the blob URL:
 * each document's integrity must match the bytes served, which must match the stored blob.
 */
export async function checkStoredPacks(
  url: string,
  names: readonly string[],
): Promise<StoredCheck> {
  const versions = new Map<string, string>();
  const referenced = new Set<string>();
  const problems: string[] = [];
  for (const name of names) {
    const response = await fetch(`${url}/v0/packs/${encodeURIComponent(name)}`);
    if (response.status === 404) {
      await response.body?.cancel();
      continue;
    }
    const pack = (await response.json()) as {
      versions: Record<string, { dist: { tarball: string; integrity: string; size: number } }>;
    };
    for (const [version, doc] of Object.entries(pack.versions)) {
      const tarball = await fetch(doc.dist.tarball);
      if (tarball.status !== 200) {
        problems.push(`${name}@${version}: its tarball answers ${tarball.status}`);
        await tarball.body?.cancel();
        continue;
      }
      const bytes = new Uint8Array(await tarball.arrayBuffer());
      const integrity = computeIntegrity(bytes);
      if (integrity !== doc.dist.integrity)
        problems.push(`${name}@${version}: the tarball does not match its integrity`);
      if (bytes.length !== doc.dist.size)
        problems.push(
          `${name}@${version}: the tarball is ${bytes.length} bytes, not ${doc.dist.size}`,
        );
      versions.set(`${name}@${version}`, integrity);
      referenced.add(blobKeyOf(bytes));
    }
  }
  return { versions, referenced, problems };
}

/** Runs `tasks` with at most `width` at a time; every task settles. */
export async function runPool<T>(
  tasks: readonly (() => Promise<T>)[],
  width: number,
): Promise<PromiseSettledResult<T>[]> {
  const results: PromiseSettledResult<T>[] = Array.from({ length: tasks.length });
  let next = 0;
  const worker = async () => {
    while (next < tasks.length) {
      const index = next;
      next += 1;
      try {
        results[index] = { status: 'fulfilled', value: await tasks[index]!() };
      } catch (error) {
        results[index] = { status: 'rejected', reason: error };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(width, tasks.length) }, worker));
  return results;
}

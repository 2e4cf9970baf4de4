import { existsSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { isToolpackError } from '@toolpack/core';
import { createPackCache } from '../cache/pack-cache.ts';
import { addPack } from '../project/add-pack.ts';
import { installPacks } from '../project/install-packs.ts';
import { createTempDirs, snapshotTree } from '../project/test-project.ts';
import { describeScriptTools } from '../testing/describe-script-tools.ts';
import { startTestRegistry, type TestRegistry } from '../testing/test-registry.ts';
import { createHttpRegistry } from './http-registry.ts';

/** Approves every pack: these tests are about installing, not about approval. */
const approveAll = () => true;

// Issue 14 finding 13: `mcp pack add` against a malicious registry.

const packs = path.join(import.meta.dirname, '..', 'project', 'fixtures', 'packs');
const temp = createTempDirs();
let registry: TestRegistry;
/** Another origin (another port on loopback) that serves the same tarballs. */
let foreign: TestRegistry;

beforeAll(async () => {
  registry = await startTestRegistry({ packs, describeTools: describeScriptTools });
  foreign = await startTestRegistry({ packs, describeTools: describeScriptTools });
});
afterAll(async () => {
  await registry.close();
  await foreign.close();
});
afterEach(() => temp.cleanup());

interface EndlessServer {
  url: string;
  /** Body bytes written before the client went away (or the bound was reached). */
  written(): number;
  /** True once the client closed the connection before the bound. */
  clientLeft(): boolean;
  close(): Promise<void>;
}

/**
 * Answers every GET with 200 and a JSON body that never ends: 64 KiB chunks until the client
 * disconnects or `boundBytes` have been written (the test's own bound), or with one byte per
 * `dripMs` (a body that trickles) up to `boundBytes`.
 */
async function startEndlessServer(options: {
  boundBytes: number;
  dripMs?: number;
}): Promise<EndlessServer> {
  let written = 0;
  let left = false;
  const server: Server = createServer((request, response) => {
    response.writeHead(200, { 'content-type': 'application/json' });
    response.write('{"name":"x","description":"');
    let stopped = false;
    request.socket.on('close', () => {
      if (written < options.boundBytes) left = true;
      stopped = true;
    });
    const chunk = Buffer.alloc(options.dripMs === undefined ? 64 * 1024 : 1, 0x61);
    const pump = () => {
      while (!stopped && written < options.boundBytes) {
        written += chunk.length;
        if (options.dripMs !== undefined) {
          response.write(chunk);
          setTimeout(pump, options.dripMs);
          return;
        }
        if (!response.write(chunk)) {
          response.once('drain', pump);
          return;
        }
      }
      if (!stopped) response.end('"}');
    };
    pump();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    written: () => written,
    clientLeft: () => left,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

describe('a hostile registry', () => {
  it('cannot grow the client without end with an endless metadata answer', async () => {
    const bound = 48 * 1024 * 1024;
    const endless = await startEndlessServer({ boundBytes: bound });
    try {
      const client = createHttpRegistry({ url: endless.url, maxResponseBytes: 1024 * 1024 });
      const error = await client.getPack('x').catch((e: unknown) => e);
      expect(error).toMatchObject({
        code: 'E_REGISTRY_RESPONSE',
        message: `The answer of the registry at ${endless.url} to GET /v0/packs/x is larger than 1.0 MB; it was cut off and nothing was installed.`,
      });
      // The attack ran: the server streamed past the cap, and the client hung up long
      // before the test's own bound.
      await expect.poll(() => endless.clientLeft()).toBe(true);
      expect(endless.written()).toBeGreaterThan(1024 * 1024);
      expect(endless.written()).toBeLessThan(bound);
    } finally {
      await endless.close();
    }
  });

  it('gets a ToolpackError, not a raw TimeoutError, when a metadata body stops arriving', async () => {
    const drip = await startEndlessServer({ boundBytes: 400, dripMs: 25 });
    try {
      const client = createHttpRegistry({ url: drip.url, timeoutMs: 300 });
      const error = await client.getPack('x').catch((e: unknown) => e);
      expect(isToolpackError(error)).toBe(true);
      expect(error).toMatchObject({
        code: 'E_REGISTRY_UNREACHABLE',
        message: `The answer of the registry at ${drip.url} to GET /v0/packs/x failed: it did not arrive in full within 0.3 s.`,
        hint: expect.any(String),
      });
      // The body really had started: the headers and some bytes had arrived.
      expect(drip.written()).toBeGreaterThan(0);
    } finally {
      await drip.close();
    }
  });

  it('cannot send the client to another host for the tarball', async () => {
    const own = await startTestRegistry({ packs: [path.join(packs, 'hello-1.0.0')] });
    try {
      // Same name, same bytes, same integrity: only the host differs.
      own.setDist('hello', '1.0.0', {
        tarball: `${foreign.url}/v0/packs/hello/-/hello-1.0.0.tgz`,
      });
      expect(foreign.tarballOf('hello', '1.0.0').equals(own.tarballOf('hello', '1.0.0'))).toBe(
        true,
      );
      const project = temp.make('project');
      const before = snapshotTree(project);
      const error = await addPack({
        approve: approveAll,
        projectDir: project,
        name: 'hello',
        registry: createHttpRegistry({ url: own.url }),
        cache: createPackCache({ dir: temp.make('cache') }),
      }).catch((e: unknown) => e);
      expect(error).toMatchObject({
        code: 'E_TARBALL_ORIGIN',
        message: expect.stringContaining(
          `names a tarball at "${foreign.url}/v0/packs/hello/-/hello-1.0.0.tgz", which is not on ${own.url}`,
        ),
        hint: expect.stringContaining('TOOLPACK_TARBALL_ORIGINS'),
      });
      expect(foreign.requests).not.toContain('GET /v0/packs/hello/-/hello-1.0.0.tgz');
      expect(snapshotTree(project)).toEqual(before);

      // An origin the user allows is fine.
      const allowed = await addPack({
        approve: approveAll,
        projectDir: project,
        name: 'hello',
        registry: createHttpRegistry({ url: own.url, tarballOrigins: [foreign.url] }),
        cache: createPackCache({ dir: temp.make('cache') }),
      });
      expect(allowed.resolved).toBe(`${foreign.url}/v0/packs/hello/-/hello-1.0.0.tgz`);
      expect(foreign.requests).toContain('GET /v0/packs/hello/-/hello-1.0.0.tgz');
    } finally {
      await own.close();
    }
  });

  it('cannot put a data: URL into toolpack.lock', async () => {
    const own = await startTestRegistry({ packs: [path.join(packs, 'hello-1.0.0')] });
    try {
      const bytes = own.tarballOf('hello', '1.0.0');
      const dataUrl = `data:application/gzip;base64,${bytes.toString('base64')}`;
      own.setDist('hello', '1.0.0', { tarball: dataUrl });
      // The attack is possible: fetch reads data: URLs, and the integrity matches.
      expect(Buffer.from(await (await fetch(dataUrl)).arrayBuffer()).equals(bytes)).toBe(true);

      const project = temp.make('project');
      await expect(
        addPack({
          approve: approveAll,
          projectDir: project,
          name: 'hello',
          registry: createHttpRegistry({ url: own.url }),
          cache: createPackCache({ dir: temp.make('cache') }),
        }),
      ).rejects.toMatchObject({
        code: 'E_TARBALL_ORIGIN',
        message: expect.stringContaining('names a tarball at "data:application/gzip;base64,'),
      });
      expect(existsSync(path.join(project, 'toolpack.lock'))).toBe(false);

      // Nor through `pack install` of a pack added to toolpack.yaml by hand.
      writeFileSync(path.join(project, 'toolpack.yaml'), 'packs:\n  hello: ^1.0.0\n');
      await expect(
        installPacks({
          projectDir: project,
          registry: () => createHttpRegistry({ url: own.url }),
          cache: createPackCache({ dir: temp.make('cache') }),
        }),
      ).rejects.toMatchObject({ code: 'E_TARBALL_ORIGIN' });
      expect(existsSync(path.join(project, 'toolpack.lock'))).toBe(false);
    } finally {
      await own.close();
    }
  });
});

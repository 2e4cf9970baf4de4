import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startTestRegistry, type TestRegistry } from '@toolpack/packs/testing';
import { describePackTools, startMcp } from '@toolpack/cli/testing';
import { repo } from './system-helpers.ts';

// Issue 14 finding 13 through the real `mcp`: a malicious registry answers without end, or
// names a tarball on another host or as a data: URL. The client stops, records nothing and
// prints one error with a hint, never a stack.

const hello = path.join(
  repo,
  'packages',
  'cli',
  'src',
  'commands',
  'pack',
  'fixtures',
  'packs',
  'hello',
);
const made: string[] = [];
function tempDir(prefix: string): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), `toolpack-hostile-registry-${prefix}-`));
  made.push(dir);
  return dir;
}
afterEach(() => {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const mcp = (args: string[], cwd: string, extra: NodeJS.ProcessEnv = {}) => {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    NO_COLOR: '1',
    TOOLPACK_CACHE_DIR: tempDir('cache'),
    ...extra,
  };
  for (const name of ['TOOLPACK_REGISTRY', 'TOOLPACK_TOKEN', 'TOOLPACK_TARBALL_ORIGINS'])
    if (!(name in extra)) delete env[name];
  return startMcp(args, { cwd, env });
};

/** No stack frames and exactly one `error` line followed by a hint. */
function expectPlainError(stderr: string): void {
  expect(stderr).toMatch(/^error .+\nhint: .+\n$/);
  expect(stderr).not.toMatch(/\n\s+at /);
}

let registry: TestRegistry;
let foreign: TestRegistry;
beforeAll(async () => {
  registry = await startTestRegistry({ packs: [hello], describeTools: describePackTools });
  foreign = await startTestRegistry({ packs: [hello], describeTools: describePackTools });
});
afterAll(async () => {
  await registry.close();
  await foreign.close();
});

describe('mcp pack add against a malicious registry', { timeout: 120_000 }, () => {
  it('stops reading an endless metadata answer and prints a plain error', async () => {
    // The test's own bound: far above the client's 8 MiB cap, far below what would hurt.
    const bound = 96 * 1024 * 1024;
    let written = 0;
    let clientLeft = false;
    const server: Server = createServer((request, response) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.write('{"name":"hello","description":"');
      const chunk = Buffer.alloc(64 * 1024, 0x61);
      request.socket.on('close', () => {
        if (written < bound) clientLeft = true;
      });
      const pump = () => {
        while (!clientLeft && written < bound) {
          written += chunk.length;
          if (!response.write(chunk)) return void response.once('drain', pump);
        }
        if (!clientLeft) response.end('"}');
      };
      pump();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      const project = tempDir('endless');
      const added = await mcp(['pack', 'add', 'hello', '--yes', '--registry', url], project);
      expect(added.stderr).toBe(
        `error The answer of the registry at ${url} to GET /v0/packs/hello is larger than 8.0 MB; it was cut off and nothing was installed.\nhint: Is --registry a Toolpack registry? Tell its owner if it is.\n`,
      );
      expectPlainError(added.stderr);
      expect(added.code).toBe(1);
      // The attack ran: more than the cap was sent, and the client hung up before the bound.
      expect(written).toBeGreaterThan(8 * 1024 * 1024);
      expect(clientLeft).toBe(true);
      expect(readdirSync(project)).toEqual([]);
    } finally {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });

  it('refuses a data: tarball URL and writes no toolpack.lock', async () => {
    const own = await startTestRegistry({ packs: [hello], describeTools: describePackTools });
    try {
      const bytes = own.tarballOf('hello', '1.0.0');
      own.setDist('hello', '1.0.0', {
        tarball: `data:application/gzip;base64,${bytes.toString('base64')}`,
      });
      const project = tempDir('data');
      const added = await mcp(['pack', 'add', 'hello', '--yes', '--registry', own.url], project);
      expect(added.stderr).toMatch(
        /^error The registry at http:\/\/127\.0\.0\.1:\d+ names a tarball at "data:application\/gzip;base64,/,
      );
      expectPlainError(added.stderr);
      expect(added.code).toBe(1);
      expect(existsSync(path.join(project, 'toolpack.lock'))).toBe(false);
      expect(readdirSync(project)).toEqual([]);
    } finally {
      await own.close();
    }
  });

  it('refuses a tarball on another host unless TOOLPACK_TARBALL_ORIGINS allows it', async () => {
    const own = await startTestRegistry({ packs: [hello], describeTools: describePackTools });
    try {
      const elsewhere = `${foreign.url}/v0/packs/hello/-/hello-1.0.0.tgz`;
      own.setDist('hello', '1.0.0', { tarball: elsewhere });
      const project = tempDir('foreign');
      const refused = await mcp(['pack', 'add', 'hello', '--yes', '--registry', own.url], project);
      expect(refused.stderr).toContain(
        `names a tarball at "${elsewhere}", which is not on ${own.url}`,
      );
      expectPlainError(refused.stderr);
      expect(refused.code).toBe(1);
      expect(foreign.requests).not.toContain('GET /v0/packs/hello/-/hello-1.0.0.tgz');
      expect(readdirSync(project)).toEqual([]);

      const allowed = await mcp(['pack', 'add', 'hello', '--yes', '--registry', own.url], project, {
        TOOLPACK_TARBALL_ORIGINS: foreign.url,
      });
      expect(allowed.code).toBe(0);
      expect(foreign.requests).toContain('GET /v0/packs/hello/-/hello-1.0.0.tgz');
    } finally {
      await own.close();
    }
  });
});

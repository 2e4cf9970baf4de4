// Benchmark: registry replicas on PostgreSQL. Each figure is a ratio against its peer measured
// in the same run, on the same machine, with the same packs:
//   1. publish throughput over HTTP with two `toolpack-registry serve --database` processes
//      (8 clients spread over both) against one such process (8 clients);
//   2. tarball download throughput over HTTP from a replica (tarballs in PostgreSQL) against
//      an embedded registry (tarballs as files), the same tarballs, 8 clients;
//   3. reading a 4 MiB blob straight from each BlobStore (no HTTP).
// The cluster is a throw-away one on loopback (tools/pg-cluster), fsync off: the ratios compare
// the registry's own work, not a disk.
//
//   node --conditions=@toolpack/source registry-replicas.ts [--publish 120] [--downloads 2000]
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { buffer } from 'node:stream/consumers';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { hasPostgres, startPostgresCluster } from '@toolpack/pg-cluster';
import {
  computeBlobKey,
  createFsBlobStore,
  createToken,
  openRegistryStorage,
  type BlobStore,
} from '@toolpack/registry';
import { createRandom, generatePack, toGeneratedTarball } from '@toolpack/registry/testing';

const { values } = parseArgs({
  args: process.argv.slice(2).filter((arg) => arg !== '--'),
  options: {
    publish: { type: 'string', default: '120' },
    downloads: { type: 'string', default: '2000' },
  },
});
const publishCount = Number(values.publish);
const downloadCount = Number(values.downloads);
const CLIENTS = 8;

if (!hasPostgres()) {
  console.error(
    'registry-replicas: no PostgreSQL server binaries (initdb, pg_ctl) on this machine.',
  );
  process.exit(1);
}

/** The registry's executable from source (the source condition is passed on to it). */
const CLI = path.join(
  path.dirname(fileURLToPath(import.meta.resolve('@toolpack/registry'))),
  'cli.ts',
);
const round = (n: number) => Math.round(n * 100) / 100;
const children: ChildProcess[] = [];
const folders: string[] = [];
const tempDir = () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'toolpack-bench-replicas-'));
  folders.push(dir);
  return dir;
};

/** `toolpack-registry serve` in its own process; resolves with its URL once it listens. */
function serve(args: string[], env: Record<string, string> = {}): Promise<string> {
  const child = spawn(
    process.execPath,
    [
      '--conditions=@toolpack/source',
      CLI,
      'serve',
      '--port',
      '0',
      '--no-seed',
      '--no-rate-limit',
      ...args,
    ],
    { env: { ...process.env, ...env }, stdio: ['ignore', 'ignore', 'pipe'] },
  );
  children.push(child);
  let stderr = '';
  return new Promise((resolve, reject) => {
    child.stderr!.setEncoding('utf8').on('data', (text: string) => {
      stderr += text;
      const url = /listening on (http:\/\/\S+)/.exec(stderr)?.[1];
      if (url !== undefined) resolve(url);
    });
    child.once('exit', (code) => reject(new Error(`serve exited (${code}):\n${stderr}`)));
  });
}

/** Runs `jobs` on `CLIENTS` workers; returns jobs per second. */
async function runClients<T>(
  jobs: T[],
  run: (job: T, worker: number) => Promise<void>,
): Promise<number> {
  const start = performance.now();
  await Promise.all(
    Array.from({ length: CLIENTS }, async (_, worker) => {
      for (let i = worker; i < jobs.length; i += CLIENTS) await run(jobs[i] as T, worker);
    }),
  );
  return jobs.length / ((performance.now() - start) / 1000);
}

async function publish(url: string, token: string, tarball: Buffer): Promise<void> {
  const response = await fetch(`${url}/v0/packs`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/gzip' },
    body: new Uint8Array(tarball),
  });
  if (response.status !== 201)
    throw new Error(`publish answered ${response.status}: ${await response.text()}`);
  await response.arrayBuffer();
}

async function readBlob(blobs: BlobStore, key: string): Promise<number> {
  const handle = await blobs.open(key);
  if (handle === undefined) throw new Error(`${key} is missing`);
  return (await buffer(handle.stream())).length;
}

const cluster = await startPostgresCluster({ maxConnections: 100 });
try {
  const databaseUrl = await cluster.createDatabase();
  const env = { TOOLPACK_REGISTRY_DATABASE: databaseUrl };
  const storage = await openRegistryStorage({ dataDir: tempDir(), database: { url: databaseUrl } });
  const { token } = await createToken(storage.store, { owner: 'bench' });

  const random = createRandom(20_261_124);
  const tarballs = Array.from({ length: publishCount * 2 }, (_, i) =>
    toGeneratedTarball(generatePack(i, random, 'replica')),
  );

  // 1. Publish: one replica, then two (a new replica B beside A), on fresh packs each time.
  const a = await serve(['--data', tempDir()], env);
  const oneReplica = await runClients(tarballs.slice(0, publishCount), (tarball) =>
    publish(a, token, tarball),
  );
  const b = await serve(['--data', tempDir()], env);
  const twoReplicas = await runClients(tarballs.slice(publishCount), (tarball, worker) =>
    publish(worker % 2 === 0 ? a : b, token, tarball),
  );

  // 2. Downloads over HTTP: the same tarballs from a replica and from an embedded registry.
  const embeddedDir = tempDir();
  const local = await openRegistryStorage({ dataDir: embeddedDir });
  const { token: embeddedToken } = await createToken(local.store, { owner: 'bench' });
  await local.close();
  const embedded = await serve(['--data', embeddedDir]);
  const sample = tarballs.slice(0, 40);
  for (const tarball of sample) await publish(embedded, embeddedToken, tarball);
  const blobPath = (tarball: Buffer) => `/v0/blobs/${computeBlobKey(tarball)}.tgz`;
  const downloads = Array.from({ length: downloadCount }, (_, i) => sample[i % sample.length]!);
  const download = async (base: string, tarball: Buffer) => {
    const response = await fetch(`${base}${blobPath(tarball)}`);
    const bytes = Buffer.from(await response.arrayBuffer());
    if (response.status !== 200 || bytes.length !== tarball.length)
      throw new Error(`download answered ${response.status} with ${bytes.length} bytes`);
  };
  // Warm both (connections, caches) before measuring.
  for (const tarball of sample) {
    await download(a, tarball);
    await download(embedded, tarball);
  }
  const fromFiles = await runClients(downloads, (tarball) => download(embedded, tarball));
  const fromDatabase = await runClients(downloads, (tarball) => download(a, tarball));
  const averageBytes = sample.reduce((sum, t) => sum + t.length, 0) / sample.length;

  // 3. A 4 MiB blob read straight from each store, 20 times.
  const big = randomBytes(4 * 1024 * 1024);
  const bigKey = computeBlobKey(big);
  const fsBlobs = createFsBlobStore({ dir: path.join(tempDir(), 'blobs') });
  await fsBlobs.put(bigKey, big);
  await storage.blobs.put(bigKey, big);
  const readMegabytesPerSecond = async (blobs: BlobStore) => {
    await readBlob(blobs, bigKey);
    const start = performance.now();
    for (let i = 0; i < 20; i += 1) await readBlob(blobs, bigKey);
    return (20 * 4) / ((performance.now() - start) / 1000);
  };
  const fsRead = await readMegabytesPerSecond(fsBlobs);
  const pgRead = await readMegabytesPerSecond(storage.blobs);
  await storage.close();

  const result = {
    node: process.version,
    cores: os.availableParallelism(),
    postgres: cluster.version,
    load: os.loadavg().map(round),
    publish: {
      packs: publishCount,
      clients: CLIENTS,
      oneReplica: round(oneReplica),
      twoReplicas: round(twoReplicas),
      ratio: round(twoReplicas / oneReplica),
    },
    download: {
      requests: downloadCount,
      clients: CLIENTS,
      averageTarballBytes: Math.round(averageBytes),
      fileStore: round(fromFiles),
      postgresStore: round(fromDatabase),
      ratio: round(fromDatabase / fromFiles),
    },
    read4MiB: {
      fileStore: round(fsRead),
      postgresStore: round(pgRead),
      ratio: round(pgRead / fsRead),
    },
  };

  console.log(
    `Registry replicas on PostgreSQL ${cluster.version}, Node ${process.version}, ${result.cores} cores, load ${result.load.join(' ')}\n`,
  );
  console.log('| measurement | value | peer | ratio |');
  console.log('| --- | ---: | ---: | ---: |');
  console.log(
    `| HTTP publish, ${CLIENTS} clients, two replicas vs one | ${result.publish.twoReplicas} packs/s | ${result.publish.oneReplica} packs/s | ${result.publish.ratio}x |`,
  );
  console.log(
    `| HTTP tarball download (~${result.download.averageTarballBytes} B), ${CLIENTS} clients, PostgreSQL store vs files | ${result.download.postgresStore}/s | ${result.download.fileStore}/s | ${result.download.ratio}x |`,
  );
  console.log(
    `| 4 MiB blob read from the store, PostgreSQL vs files | ${result.read4MiB.postgresStore} MB/s | ${result.read4MiB.fileStore} MB/s | ${result.read4MiB.ratio}x |`,
  );

  const out = path.join(import.meta.dirname, 'out');
  mkdirSync(out, { recursive: true });
  writeFileSync(path.join(out, 'registry-replicas.json'), `${JSON.stringify(result, null, 2)}\n`);
} finally {
  for (const child of children) child.kill('SIGTERM');
  await Promise.all(
    children.map(
      (child) =>
        new Promise<void>((resolve) =>
          child.exitCode !== null || child.signalCode !== null
            ? resolve()
            : child.once('exit', () => resolve()),
        ),
    ),
  );
  await cluster.stop();
  for (const dir of folders) rmSync(dir, { recursive: true, force: true });
}

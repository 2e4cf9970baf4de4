// Benchmark: the registry (apps/registry) with a 10 000-pack catalogue. Packs are inserted
// through the MetadataStore directly (that is the catalogue, not the measurement), then a
// smaller number are published over real HTTP (full validation: tarball checks, manifest,
// tool discovery) for throughput, and search latency is measured over HTTP on loopback with
// a mix of word, prefix, tag and combined queries. Target: search p95 under 10 ms.
//
//   pnpm --filter @toolpack/bench bench:registry [--packs 10000] [--publish 200] [--searches 2000]
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { startRegistry } from '@toolpack/registry';
import {
  createRandom,
  generatePack,
  toGeneratedTarball,
  toGeneratedVersionDoc,
} from '@toolpack/registry/testing';
import { percentile } from './measure.ts';

const { values } = parseArgs({
  args: process.argv.slice(2).filter((arg) => arg !== '--'),
  options: {
    packs: { type: 'string', default: '10000' },
    publish: { type: 'string', default: '200' },
    searches: { type: 'string', default: '2000' },
  },
});
const packCount = Number(values.packs);
const publishCount = Number(values.publish);
const searchCount = Number(values.searches);

const round = (n: number) => Math.round(n * 100) / 100;
const dataDir = mkdtempSync(path.join(os.tmpdir(), 'toolpack-bench-registry-'));
const registry = await startRegistry({ port: 0, dataDir, seedDir: false, rateLimits: false });

try {
  // 1. The catalogue, through the store API.
  const random = createRandom(20_261_121);
  const insertStart = performance.now();
  for (let i = 0; i < packCount; i += 1) {
    const doc = toGeneratedVersionDoc(generatePack(i, random));
    await registry.store.addVersion({
      owner: 'bench',
      doc,
      blobKey: `sha512/${'0'.repeat(128)}`,
      publishedAt: new Date().toISOString(),
      publishedBy: 'bench',
    });
  }
  const insertMs = performance.now() - insertStart;

  // 2. Publish throughput over HTTP, one at a time and 8 at once.
  const { token } = await registry.createToken({ owner: 'bench' });
  const tarballs = Array.from({ length: publishCount * 2 }, (_, i) =>
    toGeneratedTarball(generatePack(i, random, 'published')),
  );
  const publish = async (tarball: Buffer) => {
    const response = await fetch(`${registry.url}/v0/packs`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/gzip' },
      body: new Uint8Array(tarball),
    });
    if (response.status !== 201)
      throw new Error(`publish answered ${response.status}: ${await response.text()}`);
    await response.arrayBuffer();
  };
  const sequentialStart = performance.now();
  for (const tarball of tarballs.slice(0, publishCount)) await publish(tarball);
  const sequentialSeconds = (performance.now() - sequentialStart) / 1000;
  const parallel = tarballs.slice(publishCount);
  const parallelStart = performance.now();
  await Promise.all(
    Array.from({ length: 8 }, async (_, worker) => {
      for (let i = worker; i < parallel.length; i += 8) await publish(parallel[i] as Buffer);
    }),
  );
  const parallelSeconds = (performance.now() - parallelStart) / 1000;

  // 3. Search latency over HTTP.
  const queries = [
    'q=github',
    'q=issue%20tracker',
    'q=kube',
    'q=j',
    'q=pack-42-github',
    'tag=MCPTools',
    'tag=devops&tag=MCPTools',
    'q=database&tag=data',
    'q=report%20chart&tag=MCPTools',
    '',
    'limit=100&tag=mcptools',
    'q=%22NEAR(%20OR%20*',
  ];
  const search = async (query: string) => {
    const response = await fetch(`${registry.url}/v0/packs?${query}`);
    if (response.status !== 200) throw new Error(`search ${query} answered ${response.status}`);
    return (await response.json()) as { packs: unknown[] };
  };
  for (let i = 0; i < 200; i += 1) await search(queries[i % queries.length] as string);
  const samples: number[] = [];
  const perQuery = new Map<string, number[]>();
  for (let i = 0; i < searchCount; i += 1) {
    const query = queries[i % queries.length] as string;
    const start = performance.now();
    await search(query);
    const ms = performance.now() - start;
    samples.push(ms);
    perQuery.set(query, [...(perQuery.get(query) ?? []), ms]);
  }
  const p50 = percentile(samples, 50);
  const p95 = percentile(samples, 95);
  const p99 = percentile(samples, 99);
  const { packs, versions } = await registry.store.countPacks();

  const result = {
    node: process.version,
    cores: os.availableParallelism(),
    packs,
    versions,
    insert: {
      packs: packCount,
      ms: round(insertMs),
      packsPerSecond: round(packCount / (insertMs / 1000)),
    },
    publish: {
      sequential: { packs: publishCount, packsPerSecond: round(publishCount / sequentialSeconds) },
      concurrent8: {
        packs: parallel.length,
        packsPerSecond: round(parallel.length / parallelSeconds),
      },
    },
    search: {
      requests: searchCount,
      p50: round(p50),
      p95: round(p95),
      p99: round(p99),
      target: 'p95 under 10 ms',
      met: p95 < 10,
      perQuery: Object.fromEntries(
        [...perQuery].map(([query, ms]) => [
          query === '' ? '(all)' : query,
          { p50: round(percentile(ms, 50)), p95: round(percentile(ms, 95)) },
        ]),
      ),
    },
  };

  console.log(
    `Registry with ${packs} packs (${versions} versions), Node ${process.version}, ${result.cores} cores\n`,
  );
  console.log('| measurement | value | target | met |');
  console.log('| --- | ---: | --- | --- |');
  console.log(`| store insert | ${result.insert.packsPerSecond} packs/s | reported | |`);
  console.log(
    `| HTTP publish, sequential | ${result.publish.sequential.packsPerSecond} packs/s | reported | |`,
  );
  console.log(
    `| HTTP publish, 8 concurrent | ${result.publish.concurrent8.packsPerSecond} packs/s | reported | |`,
  );
  console.log(`| search p50 (HTTP, loopback) | ${result.search.p50} ms | reported | |`);
  console.log(
    `| search p95 (HTTP, loopback) | ${result.search.p95} ms | under 10 ms | ${result.search.met ? 'yes' : 'NO'} |`,
  );
  console.log(`| search p99 (HTTP, loopback) | ${result.search.p99} ms | reported | |`);
  console.log('\n| query | p50 ms | p95 ms |\n| --- | ---: | ---: |');
  for (const [query, stats] of Object.entries(result.search.perQuery))
    console.log(`| \`${query}\` | ${stats.p50} | ${stats.p95} |`);

  const out = path.join(import.meta.dirname, 'out');
  mkdirSync(out, { recursive: true });
  writeFileSync(path.join(out, 'registry.json'), `${JSON.stringify(result, null, 2)}\n`);
  if (!result.search.met) process.exitCode = 1;
} finally {
  await registry.close();
  rmSync(dataDir, { recursive: true, force: true });
}

// Benchmark: `mcp serve` over stdio against its floor.
//   - tools/list round trip with 1,000 tools (target: p50 under 5 ms)
//   - tools/call round trip of a JS tool, `mcp serve` vs a bare SDK server registering the
//     same tool by hand (bench/bare-sdk-server.ts; target: p50 ratio within 1.5x), and vs
//     the same bare server sending each call to a child process (--hop: the floor of keeping
//     the tool off the protocol thread in its own process)
//   - the server's resident memory with 1,000 tools at rest, REST_MS after its last request
//     (target: under 150 MB), and right after the calls (reported)
// Both servers are driven by the same raw JSON-RPC client over their stdin/stdout, so the
// client's own cost is the same on both sides.
//
//   pnpm build && pnpm --filter @toolpack/bench bench:server [--count 1000] [--calls 300]
//   node bench/server.ts --cli packages/cli/src/bin.ts     # the sources, unbuilt
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { headerScript, percentile, residentMb } from './measure.ts';
import { createStdioClient, type StdioClient } from './stdio-client.ts';

const { values } = parseArgs({
  args: process.argv.slice(2).filter((arg) => arg !== '--'),
  options: {
    count: { type: 'string', default: '1000' },
    calls: { type: 'string', default: '300' },
    lists: { type: 'string', default: '60' },
    // Another `mcp` entry, e.g. packages/cli/src/bin.ts to measure the sources unbuilt.
    cli: { type: 'string' },
  },
});
const count = Number(values.count);
const calls = Number(values.calls);
const lists = Number(values.lists);
const cli = path.resolve(
  values.cli ?? path.join(import.meta.dirname, '..', 'packages', 'cli', 'dist', 'bin.mjs'),
);
// Sources resolve workspace packages through their source export condition.
const cliArgs = cli.endsWith('.ts') ? ['--conditions=@toolpack/source', cli] : [cli];
const bare = path.join(import.meta.dirname, 'bare-sdk-server.ts');
const jsTool = path.join(import.meta.dirname, 'fixtures', 'add-numbers.mjs');
/** Past `mcp serve`'s idle collection (5 s after the last call, checked every second). */
const REST_MS = 8_000;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const rssOf = (client: StdioClient): number => residentMb(client.child.pid) ?? Number.NaN;

async function measureCalls(client: StdioClient): Promise<number[]> {
  const args = { name: 'add_numbers', arguments: { numbers: [1, 2, 3, 4, 5] } };
  for (let i = 0; i < 30; i++) await client.timed('tools/call', args);
  const samples: number[] = [];
  for (let i = 0; i < calls; i++) samples.push(await client.timed('tools/call', args));
  return samples;
}

const work = mkdtempSync(path.join(os.tmpdir(), 'toolpack-bench-server-'));
const clients: StdioClient[] = [];
try {
  const scripts = path.join(work, 'scripts');
  mkdirSync(scripts);
  for (let i = 0; i < count - 1; i++)
    writeFileSync(path.join(scripts, `count-words-${i}.sh`), headerScript(i));

  const toolpack = createStdioClient({
    child: spawn(
      process.execPath,
      [
        ...cliArgs,
        'serve',
        '--script-root',
        scripts,
        '--module',
        jsTool,
        '--max-tools',
        String(count + 10),
        '--no-watch',
      ],
      { cwd: work, stdio: ['pipe', 'pipe', 'pipe'] },
    ),
  });
  clients.push(toolpack);
  await toolpack.initialize();
  const listed = (await toolpack.request('tools/list')).tools as unknown[];
  const listSamples: number[] = [];
  for (let i = 0; i < 5; i++) await toolpack.timed('tools/list', {});
  for (let i = 0; i < lists; i++) listSamples.push(await toolpack.timed('tools/list', {}));
  const toolpackCalls = await measureCalls(toolpack);
  const memory = rssOf(toolpack);
  await sleep(REST_MS);
  const memoryAtRest = rssOf(toolpack);
  await toolpack.close();

  const floor = createStdioClient({
    child: spawn(process.execPath, [bare, '--tools', String(count - 1)], {
      cwd: work,
      stdio: ['pipe', 'pipe', 'pipe'],
    }),
  });
  clients.push(floor);
  await floor.initialize();
  const floorListSamples: number[] = [];
  for (let i = 0; i < 5; i++) await floor.timed('tools/list', {});
  for (let i = 0; i < lists; i++) floorListSamples.push(await floor.timed('tools/list', {}));
  const floorCalls = await measureCalls(floor);
  const floorMemory = rssOf(floor);
  await sleep(REST_MS);
  const floorMemoryAtRest = rssOf(floor);
  await floor.close();

  // The cheapest server that keeps the tool in another process, as mcp serve must (issue 14):
  // the bare SDK server with the same tools, sending each call to a long-lived child.
  const hop = createStdioClient({
    child: spawn(process.execPath, [bare, '--tools', String(count - 1), '--hop'], {
      cwd: work,
      stdio: ['pipe', 'pipe', 'pipe'],
    }),
  });
  clients.push(hop);
  await hop.initialize();
  const hopCalls = await measureCalls(hop);
  await hop.close();

  const listP50 = percentile(listSamples, 50);
  const callP50 = percentile(toolpackCalls, 50);
  const floorP50 = percentile(floorCalls, 50);
  const hopP50 = percentile(hopCalls, 50);
  const ratio = callP50 / floorP50;
  const rows = [
    {
      metric: `tools/list, ${listed.length} tools`,
      p50: listP50,
      p95: percentile(listSamples, 95),
      target: '< 5 ms',
      ok: listP50 < 5,
    },
    {
      metric: `tools/list, bare SDK McpServer with the same ${listed.length - 1} tools`,
      p50: percentile(floorListSamples, 50),
      p95: percentile(floorListSamples, 95),
      target: '',
      ok: true,
    },
    {
      metric: 'tools/call add_numbers, mcp serve',
      p50: callP50,
      p95: percentile(toolpackCalls, 95),
      target: '',
      ok: true,
    },
    {
      metric: 'tools/call add_numbers, bare SDK server',
      p50: floorP50,
      p95: percentile(floorCalls, 95),
      target: '',
      ok: true,
    },
    {
      metric: 'tools/call add_numbers, bare SDK server with the tool in a child process',
      p50: hopP50,
      p95: percentile(hopCalls, 95),
      target: '',
      ok: true,
    },
  ];
  const fmt = (n: number) => n.toFixed(3);
  console.log(
    `\n# mcp serve (stdio), ${os.availableParallelism()} cores, Node ${process.version}\n`,
  );
  console.log('| measurement | p50 ms | p95 ms | target | |');
  console.log('| --- | ---: | ---: | --- | --- |');
  for (const row of rows)
    console.log(
      `| ${row.metric} | ${fmt(row.p50)} | ${fmt(row.p95)} | ${row.target} | ${row.target ? (row.ok ? 'ok' : 'MISSED') : ''} |`,
    );
  console.log(
    `| call overhead ratio (p50 mcp serve / bare SDK) | ${ratio.toFixed(2)}x | | <= 1.5x | ${ratio <= 1.5 ? 'ok' : 'MISSED'} |`,
  );
  console.log(
    `| resident memory at rest, ${listed.length} tools | ${memoryAtRest.toFixed(1)} MB | | < 150 MB | ${memoryAtRest < 150 ? 'ok' : 'MISSED'} |`,
  );
  console.log(
    `| resident memory right after the calls, ${listed.length} tools | ${memory.toFixed(1)} MB | | | |`,
  );
  console.log(
    `| resident memory at rest / right after, bare SDK McpServer, ${listed.length - 1} tools | ${floorMemoryAtRest.toFixed(1)} / ${floorMemory.toFixed(1)} MB | | | |`,
  );

  const out = path.join(import.meta.dirname, 'out');
  mkdirSync(out, { recursive: true });
  writeFileSync(
    path.join(out, 'server.json'),
    `${JSON.stringify(
      {
        count: listed.length,
        cores: os.availableParallelism(),
        node: process.version,
        listMs: { p50: listP50, p95: percentile(listSamples, 95), samples: listSamples.length },
        callMs: {
          toolpack: { p50: callP50, p95: percentile(toolpackCalls, 95) },
          bareSdk: { p50: floorP50, p95: percentile(floorCalls, 95) },
          bareSdkHop: { p50: hopP50, p95: percentile(hopCalls, 95) },
          samples: calls,
          ratio,
        },
        bareSdkListMs: {
          p50: percentile(floorListSamples, 50),
          p95: percentile(floorListSamples, 95),
        },
        residentMb: memory,
        bareSdkResidentMb: floorMemory,
        residentAtRestMb: memoryAtRest,
        bareSdkResidentAtRestMb: floorMemoryAtRest,
        restMs: REST_MS,
        targets: { listP50Ms: 5, callRatio: 1.5, residentMb: 150 },
      },
      null,
      2,
    )}\n`,
  );
} finally {
  await Promise.all(clients.map((client) => client.close()));
  rmSync(work, { recursive: true, force: true });
}

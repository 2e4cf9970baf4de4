// Benchmark: `mcp serve` against its floor and its peers, all serving the same trivial
// add_numbers JS tool over stdio and driven by the same raw JSON-RPC client
// (bench/stdio-client.ts):
//   - the bare SDK server (bench/bare-sdk-server.ts): the floor
//   - the same bare SDK server with the tool in a child process (bare-sdk-server.ts --hop): the
//     floor of any server that keeps a JS tool off the protocol thread, as Toolpack must (issue 14)
//   - FastMCP (bench/peers/fastmcp-server.ts)
//   - mcp-framework (bench/peers/mcp-framework/server.ts)
// Measured: tools/call round trip p50/p99 (all servers up at once, calls in interleaved
// batches so they share the machine's noise), start-up (spawn -> initialize answered ->
// tools/list answered, servers started in rotating order) and resident memory after the calls.
//
//   pnpm build && pnpm --filter @toolpack/bench bench:peers [--calls 600] [--batch 30] [--starts 12]
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { createStdioClient, type StdioClient } from './stdio-client.ts';
import { percentile, residentMb } from './measure.ts';

const { values } = parseArgs({
  args: process.argv.slice(2).filter((arg) => arg !== '--'),
  options: {
    calls: { type: 'string', default: '600' },
    batch: { type: 'string', default: '30' },
    starts: { type: 'string', default: '12' },
    cli: { type: 'string' },
  },
});
const calls = Number(values.calls);
const batch = Number(values.batch);
const starts = Number(values.starts);
const here = import.meta.dirname;
const cli = path.resolve(values.cli ?? path.join(here, '..', 'packages', 'cli', 'dist', 'bin.mjs'));
const cliArgs = cli.endsWith('.ts') ? ['--conditions=@toolpack/source', cli] : [cli];

interface Contender {
  id: 'toolpack' | 'bareSdk' | 'bareSdkHop' | 'fastmcp' | 'mcpFramework';
  label: string;
  args: string[];
  version: string;
}

/** The installed version of `specifier`, found by walking up from its resolved entry. */
function readVersion(
  specifier: string,
  resolve = (s: string) => fileURLToPath(import.meta.resolve(s)),
): string {
  try {
    let dir = path.dirname(resolve(specifier));
    for (;;) {
      const manifest = path.join(dir, 'package.json');
      try {
        const parsed = JSON.parse(readFileSync(manifest, 'utf8')) as {
          name?: string;
          version?: string;
        };
        if (parsed.name === specifier) return parsed.version ?? 'unknown';
      } catch {
        // not at the package root yet
      }
      const parent = path.dirname(dir);
      if (parent === dir) return 'unknown';
      dir = parent;
    }
  } catch {
    return 'unknown';
  }
}

// The floor borrows @toolpack/server's SDK (see bare-sdk-server.ts): report that copy.
const serverRequire = createRequire(path.join(here, '..', 'packages', 'server', 'package.json'));
const sdkVersion = readVersion('@modelcontextprotocol/server', (s) => serverRequire.resolve(s));

const contenders: Contender[] = [
  {
    id: 'toolpack',
    label: 'mcp serve (Toolpack)',
    args: [
      ...cliArgs,
      'serve',
      '--module',
      path.join(here, 'fixtures', 'add-numbers.mjs'),
      '--no-watch',
    ],
    version: readVersion('@toolpack/cli'),
  },
  {
    id: 'bareSdk',
    label: 'bare SDK server (floor)',
    args: [path.join(here, 'bare-sdk-server.ts')],
    version: `@modelcontextprotocol/server ${sdkVersion}`,
  },
  {
    id: 'bareSdkHop',
    label: 'bare SDK server, tool in a child process (floor with the hop)',
    args: [path.join(here, 'bare-sdk-server.ts'), '--hop'],
    version: `@modelcontextprotocol/server ${sdkVersion}`,
  },
  {
    id: 'fastmcp',
    label: 'FastMCP',
    args: [path.join(here, 'peers', 'fastmcp-server.ts')],
    version: readVersion('fastmcp'),
  },
  {
    id: 'mcpFramework',
    label: 'mcp-framework',
    args: [path.join(here, 'peers', 'mcp-framework', 'server.ts')],
    version: readVersion('mcp-framework'),
  },
];

function start(contender: Contender, cwd: string): StdioClient {
  return createStdioClient({
    child: spawn(process.execPath, contender.args, {
      cwd,
      stdio: ['pipe', 'pipe', 'pipe'],
      env: { ...process.env, NO_COLOR: '1' },
    }),
  });
}

const callArgs = { name: 'add_numbers', arguments: { numbers: [1, 2, 3, 4, 5] } };

async function checkAnswer(client: StdioClient, contender: Contender): Promise<void> {
  const result = await client.request('tools/call', callArgs);
  const content = result.content as { type: string; text?: string }[] | undefined;
  const text = content?.find((item) => item.type === 'text')?.text ?? '';
  if (result.isError === true || !/"sum"\s*:\s*15\b/.test(text))
    throw new Error(`${contender.label} answered add_numbers wrongly: ${JSON.stringify(result)}`);
}

async function measureStartup(
  contender: Contender,
  cwd: string,
): Promise<{ initializeMs: number; listMs: number }> {
  const begin = process.hrtime.bigint();
  const client = start(contender, cwd);
  try {
    await client.initialize();
    const initializeMs = Number(process.hrtime.bigint() - begin) / 1e6;
    const { tools } = (await client.request('tools/list')) as { tools: { name: string }[] };
    const listMs = Number(process.hrtime.bigint() - begin) / 1e6;
    if (!tools.some((tool) => tool.name === 'add_numbers'))
      throw new Error(`${contender.label} did not list add_numbers\n${client.stderr()}`);
    return { initializeMs, listMs };
  } finally {
    await client.close();
  }
}

const work = mkdtempSync(path.join(os.tmpdir(), 'toolpack-bench-peers-'));
const running: StdioClient[] = [];
try {
  // Start-up first, while nothing else of ours is running.
  const startup = new Map(
    contenders.map((c) => [c.id, { initializeMs: [] as number[], listMs: [] as number[] }]),
  );
  for (const contender of contenders) await measureStartup(contender, work); // warm the disk cache
  for (let round = 0; round < starts; round++) {
    for (let i = 0; i < contenders.length; i++) {
      const contender = contenders[(round + i) % contenders.length]!;
      const sample = await measureStartup(contender, work);
      startup.get(contender.id)!.initializeMs.push(sample.initializeMs);
      startup.get(contender.id)!.listMs.push(sample.listMs);
    }
  }

  const clients = new Map<Contender['id'], StdioClient>();
  for (const contender of contenders) {
    const client = start(contender, work);
    running.push(client);
    clients.set(contender.id, client);
    await client.initialize();
    await checkAnswer(client, contender);
    for (let i = 0; i < 50; i++) await client.request('tools/call', callArgs); // warm-up
  }
  const samples = new Map(contenders.map((c) => [c.id, [] as number[]]));
  const rounds = Math.max(1, Math.ceil(calls / batch));
  for (let round = 0; round < rounds; round++) {
    for (let i = 0; i < contenders.length; i++) {
      const contender = contenders[(round + i) % contenders.length]!;
      const client = clients.get(contender.id)!;
      for (let n = 0; n < batch; n++)
        samples.get(contender.id)!.push(await client.timed('tools/call', callArgs));
    }
  }
  const memory = new Map(contenders.map((c) => [c.id, residentMb(clients.get(c.id)!.child.pid)]));

  const servers = contenders.map((contender) => {
    const callSamples = samples.get(contender.id)!;
    const { initializeMs, listMs } = startup.get(contender.id)!;
    return {
      id: contender.id,
      label: contender.label,
      version: contender.version,
      callMs: {
        p50: percentile(callSamples, 50),
        p99: percentile(callSamples, 99),
        samples: callSamples.length,
      },
      startupMs: {
        initialize: { p50: percentile(initializeMs, 50) },
        toolsList: { p50: percentile(listMs, 50), p90: percentile(listMs, 90) },
        samples: listMs.length,
      },
      residentMb: memory.get(contender.id) ?? null,
    };
  });

  const fmt = (n: number) => n.toFixed(3);
  const floor = servers.find((s) => s.id === 'bareSdk')!;
  console.log(
    `\n# One JS tool over stdio: Toolpack, the bare SDK floor and peers; ${os.availableParallelism()} cores, Node ${process.version}, load ${os
      .loadavg()
      .map((n) => n.toFixed(2))
      .join(' ')}\n`,
  );
  console.log(
    '| server | call p50 ms | call p99 ms | p50 / floor | start-up to tools/list p50 ms | / floor | RSS MB |',
  );
  console.log('| --- | ---: | ---: | ---: | ---: | ---: | ---: |');
  for (const s of servers)
    console.log(
      `| ${s.label} ${s.version} | ${fmt(s.callMs.p50)} | ${fmt(s.callMs.p99)} | ${(s.callMs.p50 / floor.callMs.p50).toFixed(2)}x | ${s.startupMs.toolsList.p50.toFixed(1)} | ${(s.startupMs.toolsList.p50 / floor.startupMs.toolsList.p50).toFixed(2)}x | ${s.residentMb?.toFixed(1) ?? 'n/a'} |`,
    );

  const out = path.join(here, 'out');
  mkdirSync(out, { recursive: true });
  writeFileSync(
    path.join(out, 'peers.json'),
    `${JSON.stringify(
      {
        cores: os.availableParallelism(),
        node: process.version,
        loadAverage: os.loadavg(),
        calls: rounds * batch,
        batch,
        starts,
        servers,
      },
      null,
      2,
    )}\n`,
  );
} finally {
  await Promise.all(running.map((client) => client.close()));
  rmSync(work, { recursive: true, force: true });
}

// 1,000 concurrent mixed calls against `mcp serve` over stdio and over HTTP, beside the floor
// of spawning the same processes bare with the same concurrency, all in one run.
//
//   node bench/bursts.ts [--calls 1000] [--rounds 3]
//
// The mix is tests/system/fixtures/load: a third JS-module calls (echo_worker, answered by
// the module's long-lived child), a third bash script (echo.sh) and a third node script
// (echo-node.mjs), each a process per call. Every call is sent at once; a call's latency is
// send -> its answer. The floors start the same 2/3 process calls' processes (bash echo.sh,
// node echo-node.mjs, the JSON on stdin) with the process runner's default concurrency, once
// bare and once through the containment launcher every tool process gets (spawnContained),
// so "latency" there is the burst's start -> that process's close, as for the server.
// Each round also sends 1,000 JS-module calls alone over each transport: no process starts,
// so what is left is the transport's and the pipeline's own per-call cost.
// The clients index answers by id (a Map), so the client's own cost stays flat per answer; its
// event-loop delay and CPU time are reported so that a slow client would show.
// Diagnosis: --only stdio|http runs one mixed burst (BURSTS_MIX=js: JS calls alone) and prints
// it; --node-arg passes flags to the server's node (--cpu-prof --cpu-prof-dir=<dir>).
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { buildToolEnvironment, describeContainment, spawnContained } from '@toolpack/containment';
import { percentile, residentMb } from './measure.ts';

const { values } = parseArgs({
  options: {
    calls: { type: 'string', default: '1000' },
    rounds: { type: 'string', default: '3' },
    // Another `mcp` entry, e.g. packages/cli/src/bin.ts to measure the sources unbuilt.
    cli: { type: 'string' },
    // Extra flags for the server's node, e.g. --cpu-prof --cpu-prof-dir=/tmp/prof (diagnosis).
    'node-arg': { type: 'string', multiple: true, default: [] },
    // Only the server over one transport, no floors (diagnosis).
    only: { type: 'string' },
  },
});
const CALLS = Number(values.calls);
const ROUNDS = Number(values.rounds);
const repo = path.resolve(import.meta.dirname, '..');
const cli = path.resolve(values.cli ?? path.join(repo, 'packages', 'cli', 'dist', 'bin.mjs'));
const cliArgs = cli.endsWith('.ts') ? ['--conditions=@toolpack/source', cli] : [cli];
const load = path.join(repo, 'tests', 'system', 'fixtures', 'load');
const TOOLS = ['echo_worker', 'echo', 'echo_node'] as const;
type Tool = (typeof TOOLS)[number];
/** The process runner's default slot count (packages/runners/src/tool-runner.ts). */
const PROCESS_CONCURRENCY = Math.max(4, os.availableParallelism() * 2);
/** `mcp serve` collects 5 s after the last call; "after" is read once that ran. */
const IDLE_COLLECTION_MS = 7_000;
const serveArgs = [
  '--script-root',
  load,
  '--module',
  path.join(load, 'worker-tools.ts'),
  '--no-cache',
  '--no-watch',
  // Queued time counts toward a call's timeout, and the burst queues behind a few slots.
  '--timeout',
  '120000',
];

interface Latencies {
  all: number[];
  byTool: Record<Tool, number[]>;
}

interface Summary {
  n: number;
  p50: number;
  p99: number;
  max: number;
}

function summarize(samples: number[]): Summary {
  return {
    n: samples.length,
    p50: round(percentile(samples, 50)),
    p99: round(percentile(samples, 99)),
    max: round(Math.max(...samples)),
  };
}

const round = (value: number): number => Math.round(value * 10) / 10;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** utime + stime and the reaped children's, in ms, from /proc (Linux; zeros elsewhere). */
function readCpuMs(pid: number): { own: number; children: number } {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat
      .slice(stat.lastIndexOf(')') + 2)
      .split(' ')
      .map(Number);
    const tick = 1000 / 100;
    return {
      own: ((fields[11] ?? 0) + (fields[12] ?? 0)) * tick,
      children: ((fields[13] ?? 0) + (fields[14] ?? 0)) * tick,
    };
  } catch {
    return { own: 0, children: 0 };
  }
}

// ---- the floor -------------------------------------------------------------------------

type Starter = (command: string, args: string[]) => ChildProcess;

const startBare: Starter = (command, args) =>
  spawn(command, args, { stdio: ['pipe', 'pipe', 'ignore'] });

const toolEnvironment = buildToolEnvironment({ source: process.env });
const startContained: Starter = (command, args) =>
  spawnContained({ command, args, env: toolEnvironment, stdio: ['pipe', 'pipe', 'ignore'] }).child;

/** The burst's process calls (bash and node alternating, as in the mix) through `start`. */
async function runFloor(
  start: Starter,
): Promise<{ seconds: number; cpuMs: number; latencies: Latencies }> {
  const jobs: { tool: Tool; command: string; args: string[] }[] = [];
  for (let index = 0; index < CALLS; index++) {
    const tool = TOOLS[index % TOOLS.length] as Tool;
    if (tool === 'echo') jobs.push({ tool, command: 'bash', args: [path.join(load, 'echo.sh')] });
    if (tool === 'echo_node')
      jobs.push({ tool, command: process.execPath, args: [path.join(load, 'echo-node.mjs')] });
  }
  const latencies: Latencies = { all: [], byTool: { echo_worker: [], echo: [], echo_node: [] } };
  const started = performance.now();
  const cpuBefore = readCpuMs(process.pid).children;
  let next = 0;
  const lane = async (): Promise<void> => {
    while (next < jobs.length) {
      const job = jobs[next++] as (typeof jobs)[number];
      await new Promise<void>((resolve, reject) => {
        const child = start(job.command, job.args);
        let out = '';
        child.stdout?.setEncoding('utf8');
        child.stdout?.on('data', (chunk: string) => (out += chunk));
        child.on('error', reject);
        child.on('close', () => {
          if (!out.includes('"echo"')) reject(new Error(`${job.tool} answered ${out}`));
          const ms = performance.now() - started;
          latencies.all.push(ms);
          latencies.byTool[job.tool].push(ms);
          resolve();
        });
        child.stdin?.end(`${JSON.stringify({ id: next })}\n`);
      });
    }
  };
  await Promise.all(Array.from({ length: PROCESS_CONCURRENCY }, lane));
  return {
    seconds: (performance.now() - started) / 1000,
    cpuMs: Math.round(readCpuMs(process.pid).children - cpuBefore),
    latencies,
  };
}

// ---- the clients -----------------------------------------------------------------------

interface Answer {
  id?: unknown;
  result?: { isError?: boolean; structuredContent?: unknown };
  error?: unknown;
}

interface Client {
  pid: number;
  call(id: number, tool: Tool): Promise<Answer>;
  /** Answers received per id (exactly-once check). */
  answerCounts: Map<unknown, number>;
  close(): Promise<void>;
}

/** Asks the server to stop (so that a --cpu-prof profile gets written), then kills it. */
async function stopServer(child: ChildProcess, ask: () => void): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  ask();
  const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
  await exited;
  clearTimeout(timer);
}

function spawnServe(extra: string[]): ChildProcess {
  return spawn(
    process.execPath,
    [...(values['node-arg'] ?? []), ...cliArgs, 'serve', ...extra, ...serveArgs],
    {
      cwd: os.tmpdir(),
      stdio: ['pipe', 'pipe', 'pipe'],
      env: { ...process.env, NO_COLOR: '1' },
    },
  );
}

const INITIALIZE = {
  protocolVersion: '2025-11-25',
  capabilities: {},
  clientInfo: { name: 'toolpack-bench-bursts', version: '1.0.0' },
};

async function startStdio(): Promise<Client> {
  const child = spawnServe([]);
  const pending = new Map<unknown, (answer: Answer) => void>();
  const answerCounts = new Map<unknown, number>();
  let buffer = '';
  let stderr = '';
  child.stderr?.setEncoding('utf8');
  child.stderr?.on('data', (chunk: string) => (stderr = (stderr + chunk).slice(-5_000)));
  child.stdout?.setEncoding('utf8');
  child.stdout?.on('data', (chunk: string) => {
    buffer += chunk;
    let newline: number;
    while ((newline = buffer.indexOf('\n')) !== -1) {
      const line = buffer.slice(0, newline);
      buffer = buffer.slice(newline + 1);
      if (line.trim() === '') continue;
      const message = JSON.parse(line) as Answer & { method?: string };
      if (message.method !== undefined) continue;
      answerCounts.set(message.id, (answerCounts.get(message.id) ?? 0) + 1);
      pending.get(message.id)?.(message);
      pending.delete(message.id);
    }
  });
  // A server that dies fails the run at once instead of at every call's timeout.
  const failures = new Map<unknown, (error: Error) => void>();
  child.once('exit', (code, signal) => {
    for (const fail of failures.values())
      fail(new Error(`mcp serve exited (${code ?? signal}); stderr:\n${stderr}`));
  });
  const send = (id: unknown, method: string, params: unknown): Promise<Answer> =>
    new Promise((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`no answer for ${String(id)}; stderr:\n${stderr}`)),
        120_000,
      );
      failures.set(id, (error) => {
        clearTimeout(timer);
        reject(error);
      });
      pending.set(id, (answer) => {
        clearTimeout(timer);
        failures.delete(id);
        resolve(answer);
      });
      child.stdin?.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, params })}\n`);
    });
  await send('init', 'initialize', INITIALIZE);
  child.stdin?.write('{"jsonrpc":"2.0","method":"notifications/initialized"}\n');
  return {
    pid: child.pid ?? -1,
    call: (id, tool) => send(id, 'tools/call', { name: tool, arguments: { id } }),
    answerCounts,
    close: () => stopServer(child, () => child.stdin?.end()),
  };
}

function parseBody(body: string, contentType: string | undefined): Answer[] {
  if (!contentType?.includes('text/event-stream'))
    return body.trim() === '' ? [] : [JSON.parse(body)];
  return body
    .split('\n')
    .filter((line) => line.startsWith('data:') && line.slice(5).trim() !== '')
    .map((line) => JSON.parse(line.slice(5)) as Answer);
}

async function startHttp(): Promise<Client> {
  const child = spawnServe(['--http', '127.0.0.1:0']);
  let stderr = '';
  child.stderr?.setEncoding('utf8');
  const url = await new Promise<URL>((resolve, reject) => {
    child.stderr?.on('data', (chunk: string) => {
      stderr = (stderr + chunk).slice(-5_000);
      const found = /on (http:\/\/\S+\/mcp)/.exec(stderr)?.[1];
      if (found !== undefined) resolve(new URL(found));
    });
    child.once('exit', () => reject(new Error(`mcp serve --http exited:\n${stderr}`)));
  });
  // Keep-alive sockets, as an agent's client would hold; as many as there are calls in flight.
  const agent = new Agent({ keepAlive: true, maxSockets: Infinity });
  const answerCounts = new Map<unknown, number>();
  let sessionId: string | undefined;
  const post = (message: unknown): Promise<Answer[]> =>
    new Promise((resolve, reject) => {
      const req = request(
        {
          host: url.hostname,
          port: url.port,
          path: url.pathname,
          method: 'POST',
          agent,
          headers: {
            'content-type': 'application/json',
            accept: 'application/json, text/event-stream',
            ...(sessionId === undefined
              ? {}
              : {
                  'mcp-session-id': sessionId,
                  'mcp-protocol-version': INITIALIZE.protocolVersion,
                }),
          },
        },
        (res) => {
          const header = res.headers['mcp-session-id'];
          if (typeof header === 'string') sessionId ??= header;
          let body = '';
          res.setEncoding('utf8');
          res.on('data', (chunk: string) => (body += chunk));
          res.on('end', () => {
            try {
              resolve(parseBody(body, res.headers['content-type']));
            } catch (error) {
              reject(error);
            }
          });
          res.on('error', reject);
        },
      );
      req.on('error', reject);
      req.setTimeout(120_000, () => req.destroy(new Error('request timed out')));
      req.end(JSON.stringify(message));
    });
  await post({ jsonrpc: '2.0', id: 'init', method: 'initialize', params: INITIALIZE });
  await post({ jsonrpc: '2.0', method: 'notifications/initialized' });
  return {
    pid: child.pid ?? -1,
    async call(id, tool) {
      const answers = await post({
        jsonrpc: '2.0',
        id,
        method: 'tools/call',
        params: { name: tool, arguments: { id } },
      });
      for (const answer of answers)
        answerCounts.set(answer.id, (answerCounts.get(answer.id) ?? 0) + 1);
      return answers.find((answer) => answer.id === id) ?? {};
    },
    answerCounts,
    close: () => {
      agent.destroy();
      return stopServer(child, () => child.kill('SIGTERM'));
    },
  };
}

const isEcho = (answer: Answer, id: number): boolean =>
  answer.error === undefined &&
  answer.result?.isError !== true &&
  JSON.stringify(answer.result?.structuredContent) === JSON.stringify({ echo: { id } });

interface BurstFigures {
  seconds: number;
  callsPerSecond: number;
  latency: Record<'all' | Tool, Summary>;
  lost: number;
  wrong: number;
  duplicated: number;
  rssBeforeMb: number;
  rssPeakMb: number;
  rssAfterMb: number;
  /** The server's own CPU time during the burst. */
  serverCpuMs: number;
  /** The client's own CPU time and its event-loop delay during the burst. */
  clientCpuMs: number;
  clientLoopDelayP99Ms: number;
}

/**
 * `mixed`: the mix above, then the idle collection before "after" RSS is read. `js`: every
 * call to the JS module (no process starts), which isolates the transport's per-call cost.
 */
async function runBurst(transport: 'stdio' | 'http', mix: 'mixed' | 'js'): Promise<BurstFigures> {
  const client = transport === 'stdio' ? await startStdio() : await startHttp();
  try {
    // Warm every runner, so the module's child runs and the caches are filled.
    for (let id = 1; id <= 30; id++) {
      const answer = await client.call(id, TOOLS[id % TOOLS.length] as Tool);
      if (!isEcho(answer, id)) throw new Error(`warm-up ${id}: ${JSON.stringify(answer)}`);
    }
    await sleep(500);
    const rssBefore = residentMb(client.pid) ?? Number.NaN;
    let rssPeak = rssBefore;
    const sampler = setInterval(() => {
      rssPeak = Math.max(rssPeak, residentMb(client.pid) ?? 0);
    }, 100);
    const loop = monitorEventLoopDelay({ resolution: 10 });
    const cpuBefore = readCpuMs(client.pid);
    const clientCpuBefore = process.cpuUsage();
    loop.enable();
    const latencies: Latencies = { all: [], byTool: { echo_worker: [], echo: [], echo_node: [] } };
    let lost = 0;
    let wrong = 0;
    const started = performance.now();
    await Promise.all(
      Array.from({ length: CALLS }, async (_, index) => {
        const id = 10_000 + index;
        const tool = mix === 'js' ? 'echo_worker' : (TOOLS[index % TOOLS.length] as Tool);
        const sentAt = performance.now();
        try {
          const answer = await client.call(id, tool);
          if (!isEcho(answer, id)) wrong++;
        } catch {
          lost++;
          return;
        }
        const ms = performance.now() - sentAt;
        latencies.all.push(ms);
        latencies.byTool[tool].push(ms);
      }),
    );
    const seconds = (performance.now() - started) / 1000;
    loop.disable();
    const clientCpu = process.cpuUsage(clientCpuBefore);
    const cpuAfter = readCpuMs(client.pid);
    if (mix === 'mixed') await sleep(IDLE_COLLECTION_MS);
    clearInterval(sampler);
    const rssAfter = residentMb(client.pid) ?? Number.NaN;
    let duplicated = 0;
    for (let index = 0; index < CALLS; index++)
      if ((client.answerCounts.get(10_000 + index) ?? 0) > 1) duplicated++;
    return {
      seconds: Math.round(seconds * 1000) / 1000,
      callsPerSecond: Math.round(CALLS / seconds),
      latency: {
        all: summarize(latencies.all),
        echo_worker: summarize(latencies.byTool.echo_worker),
        echo: summarize(latencies.byTool.echo),
        echo_node: summarize(latencies.byTool.echo_node),
      },
      lost,
      wrong,
      duplicated,
      rssBeforeMb: round(rssBefore),
      rssPeakMb: round(rssPeak),
      rssAfterMb: round(rssAfter),
      serverCpuMs: Math.round(cpuAfter.own - cpuBefore.own),
      clientCpuMs: Math.round((clientCpu.user + clientCpu.system) / 1000),
      clientLoopDelayP99Ms: round(loop.percentile(99) / 1e6),
    };
  } finally {
    await client.close();
  }
}

function describeFloor(run: { seconds: number; cpuMs: number; latencies: Latencies }) {
  const calls = run.latencies.all.length;
  return {
    calls,
    /**
     * The processes' CPU time as the kernel accounts it to their reaped parent: exact for the
     * bare floor; through bubblewrap it leaves out the namespace's init and what runs below it.
     */
    cpuMs: run.cpuMs,
    seconds: Math.round(run.seconds * 1000) / 1000,
    spawnsPerSecond: Math.round(calls / run.seconds),
    latency: {
      all: summarize(run.latencies.all),
      echo: summarize(run.latencies.byTool.echo),
      echo_node: summarize(run.latencies.byTool.echo_node),
    },
  };
}

/** The median round by `key`, so that one noisy round does not carry the figure. */
function pickMedian<T>(runs: T[], key: (run: T) => number): T {
  return [...runs].sort((a, b) => key(a) - key(b))[Math.floor(runs.length / 2)] as T;
}

function sumOver(
  all: {
    stdio: BurstFigures;
    http: BurstFigures;
    jsOnly: { stdio: BurstFigures; http: BurstFigures };
  }[],
  pick: (burst: BurstFigures) => number,
): number {
  return all.reduce(
    (sum, r) => sum + pick(r.stdio) + pick(r.http) + pick(r.jsOnly.stdio) + pick(r.jsOnly.http),
    0,
  );
}

const containment = describeContainment();
const loadBefore = os.loadavg();
const rounds: {
  bare: ReturnType<typeof describeFloor>;
  contained: ReturnType<typeof describeFloor>;
  stdio: BurstFigures;
  http: BurstFigures;
  jsOnly: { stdio: BurstFigures; http: BurstFigures };
}[] = [];
// Interleaved, so that the floors and the server share the machine's state in each round.
if (values.only === 'stdio' || values.only === 'http') {
  const figures = await runBurst(values.only, process.env.BURSTS_MIX === 'js' ? 'js' : 'mixed');
  console.log(JSON.stringify(figures, null, 1));
  process.exit(0);
}
for (let index = 0; index < ROUNDS; index++) {
  const bare = describeFloor(await runFloor(startBare));
  const contained = describeFloor(await runFloor(startContained));
  const stdio = await runBurst('stdio', 'mixed');
  const http = await runBurst('http', 'mixed');
  const jsOnly = { stdio: await runBurst('stdio', 'js'), http: await runBurst('http', 'js') };
  rounds.push({ bare, contained, stdio, http, jsOnly });
  console.log(
    `round ${index + 1}: floor bare ${bare.seconds} s (p99 ${bare.latency.all.p99} ms), contained ${contained.seconds} s; ` +
      `stdio ${stdio.seconds} s p99 ${stdio.latency.all.p99} ms (worker p99 ${stdio.latency.echo_worker.p99} ms, lost ${stdio.lost}); ` +
      `http ${http.seconds} s p99 ${http.latency.all.p99} ms (worker p99 ${http.latency.echo_worker.p99} ms, lost ${http.lost}); ` +
      `JS calls alone: stdio ${jsOnly.stdio.seconds} s, http ${jsOnly.http.seconds} s`,
  );
}
const result = {
  calls: CALLS,
  rounds: ROUNDS,
  processConcurrency: PROCESS_CONCURRENCY,
  containment: containment.mode,
  floor: {
    bare: pickMedian(
      rounds.map((r) => r.bare),
      (r) => r.seconds,
    ),
    contained: pickMedian(
      rounds.map((r) => r.contained),
      (r) => r.seconds,
    ),
  },
  stdio: pickMedian(
    rounds.map((r) => r.stdio),
    (r) => r.seconds,
  ),
  http: pickMedian(
    rounds.map((r) => r.http),
    (r) => r.seconds,
  ),
  jsOnly: {
    stdio: pickMedian(
      rounds.map((r) => r.jsOnly.stdio),
      (r) => r.seconds,
    ),
    http: pickMedian(
      rounds.map((r) => r.jsOnly.http),
      (r) => r.seconds,
    ),
  },
  // Every burst's lost, wrong and duplicated answers, not only the median round's.
  lost: sumOver(rounds, (b) => b.lost),
  wrong: sumOver(rounds, (b) => b.wrong),
  duplicated: sumOver(rounds, (b) => b.duplicated),
  allRounds: rounds,
  cores: os.availableParallelism(),
  node: process.version,
  loadAverage: { before: loadBefore, after: os.loadavg() },
  date: new Date().toISOString(),
};
const out = path.join(import.meta.dirname, 'out');
mkdirSync(out, { recursive: true });
writeFileSync(path.join(out, 'bursts.json'), `${JSON.stringify(result, null, 2)}\n`);
console.log(
  JSON.stringify(
    { floor: result.floor, stdio: result.stdio, http: result.http, jsOnly: result.jsOnly },
    null,
    1,
  ),
);

// Benchmark: per-call latency through @toolpack/runners (p50/p99) for a JS module tool, a bash
// script tool and, where pwsh exists, a PowerShell script and module tool, side by side with
// their floors measured in the same run: a long-lived child echoing the call's frame (JS calls
// and echoes alternate in batches), a bare `bash echo_script.sh` spawn and a bare
// `pwsh -NoProfile -File` per call; plus 8 parallel PowerShell script calls against one. Also
// recorded for the notes: spawn to first answered PowerShell call, 8 parallel calls of a tool
// that waits 100 ms against one, and 8 bare pipelines in one pwsh process against one (the CPU
// floor of trivial parallel calls). Which pwsh ran (a full one or tools/pwsh-engine) is
// recorded too.
//
//   pnpm build && pnpm --filter @toolpack/bench bench:runners [--calls 200]
import { spawn, spawnSync } from 'node:child_process';
import type { Duplex } from 'node:stream';
import { Worker } from 'node:worker_threads';
import { mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { buildToolEnvironment, describeContainment, spawnContained } from '@toolpack/containment';
import type { DiscoveredTool } from '@toolpack/core';
import { discoverTools } from '@toolpack/discovery';
import { pwshEngine } from '@toolpack/pwsh-probe';
import { createToolRunner } from '@toolpack/runners';
import { percentile } from './measure.ts';

const { values } = parseArgs({
  args: process.argv.slice(2).filter((arg) => arg !== '--'),
  options: { calls: { type: 'string', default: '200' } },
});
const calls = Number(values.calls);
const fixtures = path.join(import.meta.dirname, 'fixtures');

async function measure(n: number, once: () => Promise<unknown>): Promise<number[]> {
  for (let i = 0; i < Math.min(10, n); i++) await once(); // warm-up
  const samples: number[] = [];
  for (let i = 0; i < n; i++) {
    const start = process.hrtime.bigint();
    await once();
    samples.push(Number(process.hrtime.bigint() - start) / 1e6);
  }
  return samples;
}

/**
 * The same spawn through the launcher every tool process gets (a PID and mount namespace
 * where Linux allows it, issue 14): the floor of a contained process call.
 */
function spawnContainedOnce(command: string, args: string[], input: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const { child } = spawnContained({
      command,
      args,
      env: buildToolEnvironment({ source: process.env }),
      stdio: ['pipe', 'pipe', 'ignore'],
    });
    child.stdout?.resume();
    child.on('error', reject);
    child.on('close', () => resolve());
    child.stdin?.end(input);
  });
}

function spawnOnce(command: string, args: string[], input: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: ['pipe', 'pipe', 'ignore'] });
    child.stdout.resume();
    child.on('error', reject);
    child.on('close', () => resolve());
    child.stdin.end(input);
  });
}

/**
 * The two floors of a JS tool call, each a bare echo of a small JSON message and nothing else:
 * to a worker thread (postMessage) and to a long-lived child process (a line on a pipe each way).
 */
async function measureBareRoundTrips(n: number): Promise<{ worker: number[]; child: number[] }> {
  const worker = new Worker(
    "require('node:worker_threads').parentPort.on('message', (m) => require('node:worker_threads').parentPort.postMessage(m));",
    { eval: true },
  );
  const message = { type: 'call', id: 1, args: { text: 'hi' } };
  const workerSamples = await measure(
    n,
    () =>
      new Promise<void>((resolve) => {
        worker.once('message', () => resolve());
        worker.postMessage(message);
      }),
  );
  await worker.terminate();
  const child = spawn(
    process.execPath,
    ['-e', "process.stdin.on('data', (chunk) => process.stdout.write(chunk));"],
    { stdio: ['pipe', 'pipe', 'ignore'] },
  );
  const line = `${JSON.stringify(message)}\n`;
  const childSamples = await measure(
    n,
    () =>
      new Promise<void>((resolve) => {
        child.stdout.once('data', () => resolve());
        child.stdin.write(line);
      }),
  );
  child.kill();
  return { worker: workerSamples, child: childSamples };
}

/**
 * The floor of a JS tool call, as the runner makes one: a long-lived child that answers each
 * length-prefixed JSON frame on a socket (fd 3) with a frame, and does nothing else.
 */
function startFramedEcho(): { roundTrip(): Promise<void>; close(): void } {
  const child = spawn(
    process.execPath,
    [
      '-e',
      "const s = new (require('node:net').Socket)({ fd: 3, readable: true, writable: true }); s.on('data', (c) => s.write(c)); s.on('end', () => process.exit(0));",
    ],
    { stdio: ['ignore', 'ignore', 'ignore', 'pipe'] },
  );
  const channel = child.stdio[3] as Duplex;
  let id = 0;
  return {
    roundTrip: () =>
      new Promise<void>((resolve) => {
        channel.once('data', () => resolve());
        id += 1;
        const body = Buffer.from(
          JSON.stringify({
            type: 'call',
            id,
            exportName: 'echo',
            toolName: 'echo',
            args: { text: 'hi' },
          }),
        );
        const frame = Buffer.allocUnsafe(4 + body.length);
        frame.writeUInt32BE(body.length, 0);
        body.copy(frame, 4);
        channel.write(frame);
      }),
    close: () => channel.end(),
  };
}

/** Ours and its floor in alternating batches, so both see the same state of a shared machine. */
async function measureInterleaved(
  n: number,
  ours: () => Promise<unknown>,
  floor: () => Promise<unknown>,
  batch = 50,
): Promise<{ ours: number[]; floor: number[] }> {
  const samples = { ours: [] as number[], floor: [] as number[] };
  await measure(Math.min(batch, n), ours);
  await measure(Math.min(batch, n), floor);
  for (let done = 0; done < n; done += batch) {
    const size = Math.min(batch, n - done);
    samples.ours.push(...(await measure(size, ours)));
    samples.floor.push(...(await measure(size, floor)));
  }
  return samples;
}

const hasPwsh = pwshEngine !== undefined;
// A tool that waits (Thread.Sleep in short steps) and reports its clock: the runners' tests'
// script, copied so the bench reads no other package's files, and in a folder of its own so
// the script root above does not serve it.
const waitingScript = path.join(fixtures, 'waiting', 'Get-Slow.ps1');

/**
 * 8 trivial pipelines on 8 open runspaces in one pwsh process, against one: what the cores
 * allow parallel trivial calls before any host, channel or Node is involved.
 */
function measurePipelineFloor(): { one: number; eight: number } | undefined {
  const script = `
$rs = foreach ($i in 1..8) { $r = [runspacefactory]::CreateRunspace([System.Management.Automation.Runspaces.InitialSessionState]::CreateDefault2()); $r.ThreadOptions = 'ReuseThread'; $r.Open(); $r }
$run = { param($n) $tasks = foreach ($k in 0..($n - 1)) { $ps = [powershell]::Create(); $ps.Runspace = $rs[$k]; [void]$ps.AddScript('param($Text) @{ text = $Text }').AddArgument('hi'); $ps.InvokeAsync() }; [System.Threading.Tasks.Task]::WaitAll([System.Threading.Tasks.Task[]]@($tasks)) }
$result = @{}
foreach ($n in 1, 8) {
  foreach ($w in 1..20) { & $run $n }
  $times = foreach ($i in 1..100) { $sw = [System.Diagnostics.Stopwatch]::StartNew(); & $run $n; $sw.Elapsed.TotalMilliseconds }
  $sorted = [double[]]@($times); [Array]::Sort($sorted); $result["n$n"] = $sorted[50]
}
[Console]::Out.WriteLine('{"one":' + $result['n1'].ToString([cultureinfo]::InvariantCulture) + ',"eight":' + $result['n8'].ToString([cultureinfo]::InvariantCulture) + '}')
[Environment]::Exit(0)`;
  const out = spawnSync('pwsh', ['-NoProfile', '-NonInteractive', '-Command', script], {
    encoding: 'utf8',
    timeout: 120_000,
  });
  try {
    return JSON.parse(out.stdout.trim().split('\n').at(-1) ?? '') as { one: number; eight: number };
  } catch {
    return undefined;
  }
}
const { tools } = await discoverTools({
  cwd: fixtures,
  cache: false,
  builtins: false,
  sources: [
    { module: 'echo-tool.mjs' },
    { scripts: '.' },
    ...(hasPwsh ? [{ module: 'EchoModule/EchoModule.psm1' }] : []),
  ],
});
const byKind = (predicate: (tool: DiscoveredTool) => boolean) => tools.find(predicate);
const jsTool = byKind((t) => t.invocation.runner === 'node-worker');
const bashTool = byKind((t) => t.invocation.runner === 'process');
const psScript = byKind((t) => t.invocation.runner === 'pwsh' && t.invocation.mode === 'script');
const psModule = byKind((t) => t.invocation.runner === 'pwsh' && t.invocation.mode === 'module');
if (jsTool === undefined || bashTool === undefined)
  throw new Error('bench fixtures were not discovered');

// Spawn to first answered call: a runner created with warm: true (as mcp serve creates it),
// called at once; the host starts, opens its first runspaces and answers.
const firstCalls: number[] = [];
if (hasPwsh && psScript) {
  for (let i = 0; i < 5; i++) {
    const start = process.hrtime.bigint();
    const cold = createToolRunner({ projectRoot: fixtures, warm: true });
    await cold.call(psScript, { Text: 'hi' }, { timeoutMs: 60_000 });
    firstCalls.push(Number(process.hrtime.bigint() - start) / 1e6);
    await cold.close();
  }
}

const runner = createToolRunner({ projectRoot: fixtures, warm: hasPwsh });
const extras: Record<string, unknown> = {};
const rows: {
  scenario: string;
  p50: number;
  p99: number;
  floor?: string;
  floorP50?: number;
  target: string;
  met?: boolean;
  /** Bash rows: the containment mode tools got, and the bare spawn through its launcher. */
  containment?: string;
  containedFloorP50?: number;
}[] = [];
try {
  const echo = startFramedEcho();
  const interleaved = await measureInterleaved(
    calls,
    () => runner.call(jsTool, { text: 'hi' }),
    echo.roundTrip,
  );
  echo.close();
  const js = interleaved.ours;
  const bareRoundTrips = await measureBareRoundTrips(calls);
  extras.jsFloors = {
    workerRoundTripP50: percentile(bareRoundTrips.worker, 50),
    childRoundTripP50: percentile(bareRoundTrips.child, 50),
  };
  rows.push({
    scenario: 'JS module tool (child process per module)',
    p50: percentile(js, 50),
    p99: percentile(js, 99),
    floor: 'bare JSON frame echoed by a long-lived child process (alternating batches)',
    floorP50: percentile(interleaved.floor, 50),
    target: 'reported',
  });

  const bash = await measure(calls, () => runner.call(bashTool, { text: 'hi' }));
  const bareBash = await measure(calls, () =>
    spawnOnce('bash', [path.join(fixtures, 'echo_script.sh')], '{"text":"hi"}'),
  );
  const containedBash = await measure(calls, () =>
    spawnContainedOnce('bash', [path.join(fixtures, 'echo_script.sh')], '{"text":"hi"}'),
  );
  const bashRatio = percentile(bash, 50) / percentile(bareBash, 50);
  rows.push({
    scenario: 'bash script tool (process per call)',
    p50: percentile(bash, 50),
    p99: percentile(bash, 99),
    floor: 'bare `bash echo_script.sh` spawn',
    floorP50: percentile(bareBash, 50),
    target: `within 2x of the floor (${bashRatio.toFixed(2)}x)`,
    met: bashRatio <= 2,
    containment: describeContainment().mode,
    containedFloorP50: percentile(containedBash, 50),
  });

  if (hasPwsh && psScript && psModule) {
    const ps = await measure(calls, () => runner.call(psScript, { Text: 'hi' }));
    const bare = await measure(Math.min(calls, 20), () =>
      spawnOnce(
        'pwsh',
        [
          '-NoProfile',
          '-NonInteractive',
          '-File',
          path.join(fixtures, 'Echo-Text.ps1'),
          '-Text',
          'hi',
        ],
        '',
      ),
    );
    const speedup = percentile(bare, 50) / percentile(ps, 50);
    rows.push({
      scenario: 'PowerShell script tool (warm runspace)',
      p50: percentile(ps, 50),
      p99: percentile(ps, 99),
      floor: '`pwsh -NoProfile -File` per call',
      floorP50: percentile(bare, 50),
      target: `p50 < 10 ms and >= 30x faster than pwsh -File (${speedup.toFixed(0)}x)`,
      met: percentile(ps, 50) < 10 && speedup >= 30,
    });
    const mod = await measure(calls, () => runner.call(psModule, { Text: 'hi' }));
    rows.push({
      scenario: 'PowerShell module tool (shared runspace)',
      p50: percentile(mod, 50),
      p99: percentile(mod, 99),
      target: 'p50 <= 5 ms',
      met: percentile(mod, 50) <= 5,
    });
    const one = await measure(20, () => runner.call(psScript, { Text: 'hi' }));
    const eight = await measure(20, () =>
      Promise.all(Array.from({ length: 8 }, () => runner.call(psScript, { Text: 'hi' }))),
    );
    const parallelRatio = percentile(eight, 50) / percentile(one, 50);
    const waiting: DiscoveredTool = {
      ...psScript,
      name: 'get_slow',
      originalName: 'Get-Slow',
      source: { kind: 'script', path: waitingScript },
      invocation: { runner: 'pwsh', mode: 'script', scriptPath: waitingScript },
      inputSchema: { type: 'object', properties: {}, additionalProperties: true },
    };
    const waitArgs = { N: 1, Milliseconds: 100 };
    const waitOne = await measure(10, () => runner.call(waiting, waitArgs));
    const waitEight = await measure(10, () =>
      Promise.all(Array.from({ length: 8 }, () => runner.call(waiting, waitArgs))),
    );
    extras.pwshWaitingParallel = {
      toolMs: 100,
      oneP50: percentile(waitOne, 50),
      eightP50: percentile(waitEight, 50),
      ratio: percentile(waitEight, 50) / percentile(waitOne, 50),
    };
    const floor = measurePipelineFloor();
    if (floor !== undefined)
      extras.pwshPipelineFloor = { ...floor, ratio: floor.eight / floor.one };
    rows.push({
      scenario: '8 parallel PowerShell script calls',
      p50: percentile(eight, 50),
      p99: percentile(eight, 99),
      floor: 'one call',
      floorP50: percentile(one, 50),
      target: `within 1.5x of one call (${parallelRatio.toFixed(2)}x)`,
      met: parallelRatio <= 1.5,
    });
  }
} finally {
  await runner.close();
}

console.log(
  `@toolpack/runners per-call latency, ${calls} calls each, ${os.cpus().length} cores, Node ${process.version}`,
);
console.log('| scenario | p50 ms | p99 ms | floor | floor p50 ms | target | met |');
console.log('| --- | ---: | ---: | --- | ---: | --- | --- |');
for (const row of rows) {
  console.log(
    `| ${row.scenario} | ${row.p50.toFixed(2)} | ${row.p99.toFixed(2)} | ${row.floor ?? ''} | ${row.floorP50?.toFixed(2) ?? ''} | ${row.target} | ${row.met === undefined ? '' : row.met ? 'yes' : 'no'} |`,
  );
}
if (!hasPwsh) console.log('PowerShell rows: not measured (pwsh is not installed on this machine).');
if (hasPwsh) {
  console.log(`PowerShell: ${pwshEngine?.description ?? 'unknown'}`);
  if (firstCalls.length > 0)
    console.log(
      `spawn to first answered call, p50 of ${firstCalls.length}: ${percentile(firstCalls, 50).toFixed(0)} ms`,
    );
  console.log(JSON.stringify(extras));
}
const out = path.join(import.meta.dirname, 'out');
mkdirSync(out, { recursive: true });
writeFileSync(
  path.join(out, 'runners.json'),
  JSON.stringify(
    {
      calls,
      cores: os.cpus().length,
      node: process.version,
      hasPwsh,
      ...(pwshEngine === undefined
        ? {}
        : {
            pwsh: {
              kind: pwshEngine.kind,
              version: pwshEngine.version,
              description: pwshEngine.description,
            },
          }),
      ...(firstCalls.length === 0
        ? {}
        : { pwshFirstCall: { p50: percentile(firstCalls, 50), samples: firstCalls } }),
      ...extras,
      rows,
    },
    null,
    2,
  ),
);

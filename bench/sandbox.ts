// Benchmark: what the OS sandbox (bubblewrap, issue 17) costs a pack's tools, each figure
// beside the same tool unconfined, measured in the same run and interleaved so both share the
// machine's noise:
// - a bash script tool's call p50 through @toolpack/runners, confined (the tool's
//   `source.sandbox`, as every pack tool has) and not (issue target: bwrap adds <= 5 ms);
// - the same bare `bash echo_script.sh` spawn through the containment launcher with and
//   without a sandbox plan: bwrap's own share, without the runner;
// - the first call of a JS module pack tool (a new runner: the module's child process starts,
//   imports the module and answers), confined and not; and its warm call p50;
// - where pwsh exists, the same two of a PowerShell script tool (the pack's host starts).
// The confined tools are checked to be confined first (a script that reads a file outside its
// folder must fail confined and succeed unconfined), so a sandbox that silently did not apply
// cannot pass for a cheap one.
//
//   pnpm build && pnpm --filter @toolpack/bench bench:sandbox [--calls 200] [--starts 10]
import { mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import {
  buildToolEnvironment,
  describeSandbox,
  planSandbox,
  spawnContained,
  type SandboxPlan,
} from '@toolpack/containment';
import type { DiscoveredTool } from '@toolpack/core';
import { discoverTools } from '@toolpack/discovery';
import { pwshEngine } from '@toolpack/pwsh-probe';
import { createToolRunner, type ToolRunner } from '@toolpack/runners';
import { percentile } from './measure.ts';

const { values } = parseArgs({
  args: process.argv.slice(2).filter((arg) => arg !== '--'),
  options: {
    calls: { type: 'string', default: '200' },
    starts: { type: 'string', default: '10' },
  },
});
const calls = Number(values.calls);
const starts = Number(values.starts);
// The tools' own folder: the sandbox binds it (and nothing else of the bench) read-only.
const dir = path.join(import.meta.dirname, 'fixtures', 'sandbox');
const out = path.join(import.meta.dirname, 'out');
mkdirSync(out, { recursive: true });

const since = (start: bigint) => Number(process.hrtime.bigint() - start) / 1e6;

/**
 * `n` timed runs of each of `a` and `b` after 10 warm-ups each, alternating which goes first
 * in every round so neither always runs on a cache the other warmed.
 */
async function measurePair(
  n: number,
  a: () => Promise<unknown>,
  b: () => Promise<unknown>,
): Promise<{ a: number[]; b: number[] }> {
  for (let i = 0; i < Math.min(10, n); i++) {
    await a();
    await b();
  }
  const samples = { a: [] as number[], b: [] as number[] };
  for (let i = 0; i < n; i++) {
    for (const which of i % 2 === 0 ? (['a', 'b'] as const) : (['b', 'a'] as const)) {
      const start = process.hrtime.bigint();
      await (which === 'a' ? a() : b());
      samples[which].push(since(start));
    }
  }
  return samples;
}

const summarize = (samples: number[]) => ({
  p50: percentile(samples, 50),
  p99: percentile(samples, 99),
  samples: samples.length,
});

async function discover(sandbox: boolean): Promise<Record<string, DiscoveredTool>> {
  const { tools } = await discoverTools({
    cwd: dir,
    cache: false,
    builtins: false,
    sources: [
      { scripts: '.', sandbox },
      { module: 'echo-pack.mjs', sandbox },
    ],
  });
  const byName = Object.fromEntries(tools.map((tool) => [tool.name, tool]));
  for (const name of ['echo_script', 'reach_outside', 'echo', 'reach', 'Echo_Text', 'Test_Reach'])
    if (byName[name] === undefined)
      throw new Error(`bench fixture tool ${name} was not discovered`);
  return byName;
}

function textOf(result: { content: { type: string; text?: string }[] }): string {
  return result.content.map((item) => item.text ?? '').join('');
}

/** A bare `bash echo_script.sh` through the launcher every tool process gets, with a plan or not. */
function spawnEcho(plan: SandboxPlan | undefined): Promise<boolean> {
  return new Promise((resolve, reject) => {
    const contained = spawnContained({
      command: 'bash',
      args: [path.join(dir, 'echo_script.sh')],
      cwd: dir,
      env: buildToolEnvironment({ source: process.env }),
      stdio: ['pipe', 'pipe', 'ignore'],
      ...(plan === undefined ? {} : { sandbox: plan }),
    });
    contained.child.stdout?.resume();
    contained.child.on('error', reject);
    contained.child.on('close', () => resolve(contained.sandboxed));
    contained.child.stdin?.end('{"text":"hi"}');
  });
}

const sandbox = describeSandbox();
const result: Record<string, unknown> = {
  calls,
  starts,
  cores: os.availableParallelism(),
  node: process.version,
  sandbox,
  targets: { addedMs: 5 },
};

if (sandbox.available) {
  const confined = await discover(true);
  const plain = await discover(false);
  const runner: ToolRunner = createToolRunner({ projectRoot: dir });
  try {
    // Each kind is checked confined before it is timed: it must not see a file outside its folder.
    const reach = async (tool: DiscoveredTool | undefined) =>
      textOf(await runner.call(tool as DiscoveredTool, {})).trim();
    const verified = {
      process: {
        confined: await reach(confined.reach_outside),
        plain: await reach(plain.reach_outside),
      },
      js: { confined: await reach(confined.reach), plain: await reach(plain.reach) },
      ...(pwshEngine === undefined
        ? {}
        : {
            pwsh: {
              confined: await reach(confined.Test_Reach),
              plain: await reach(plain.Test_Reach),
            },
          }),
    };
    for (const [kind, seen] of Object.entries(verified))
      if (seen.confined !== 'no' || seen.plain !== 'yes')
        throw new Error(
          `The sandbox did not apply to the ${kind} tool as the bench expects (sees bench/package.json: confined ${seen.confined}, unconfined ${seen.plain}).`,
        );
    result.verified = verified;

    const echoArgs = { text: 'hi' };
    const processCall = await measurePair(
      calls,
      () => runner.call(confined.echo_script as DiscoveredTool, echoArgs),
      () => runner.call(plain.echo_script as DiscoveredTool, echoArgs),
    );
    result.processCall = { confined: summarize(processCall.a), plain: summarize(processCall.b) };

    const plan = planSandbox({
      sandbox: (confined.echo_script as DiscoveredTool).source.sandbox!,
      projectRoot: dir,
    });
    if (!(await spawnEcho(plan))) throw new Error('spawnContained did not sandbox the bare spawn');
    const bare = await measurePair(
      calls,
      () => spawnEcho(plan),
      () => spawnEcho(undefined),
    );
    result.bareSpawn = { confined: summarize(bare.a), plain: summarize(bare.b) };

    const jsCall = await measurePair(
      calls,
      () => runner.call(confined.echo as DiscoveredTool, echoArgs),
      () => runner.call(plain.echo as DiscoveredTool, echoArgs),
    );
    result.jsCall = { confined: summarize(jsCall.a), plain: summarize(jsCall.b) };

    if (pwshEngine !== undefined) {
      // The pack's PowerShell host runs already (started by the check above): warm calls.
      const pwshCall = await measurePair(
        Math.min(calls, 100),
        () => runner.call(confined.Echo_Text as DiscoveredTool, { Text: 'hi' }),
        () => runner.call(plain.Echo_Text as DiscoveredTool, { Text: 'hi' }),
      );
      result.pwshCall = { confined: summarize(pwshCall.a), plain: summarize(pwshCall.b) };
    }
  } finally {
    await runner.close();
  }

  // A new runner per sample: the module's child process (or the pack's PowerShell host)
  // starts, loads the tool and answers.
  const measureFirstCalls = async (
    a: DiscoveredTool | undefined,
    b: DiscoveredTool | undefined,
    args: Record<string, unknown>,
  ) => {
    const firstCall = async (tool: DiscoveredTool) => {
      const fresh = createToolRunner({ projectRoot: dir });
      try {
        const answer = await fresh.call(tool, args, { timeoutMs: 60_000 });
        if (answer.isError === true) throw new Error(`first call failed: ${textOf(answer)}`);
      } finally {
        await fresh.close();
      }
    };
    const first = { a: [] as number[], b: [] as number[] };
    for (let i = 0; i < starts; i++) {
      for (const which of i % 2 === 0 ? (['a', 'b'] as const) : (['b', 'a'] as const)) {
        const start = process.hrtime.bigint();
        await firstCall((which === 'a' ? a : b) as DiscoveredTool);
        first[which].push(since(start));
      }
    }
    return {
      confined: { ...summarize(first.a), all: first.a },
      plain: { ...summarize(first.b), all: first.b },
    };
  };
  result.jsFirstCall = await measureFirstCalls(confined.echo, plain.echo, { text: 'hi' });
  if (pwshEngine !== undefined) {
    result.pwsh = { kind: pwshEngine.kind, description: pwshEngine.description };
    result.pwshFirstCall = await measureFirstCalls(confined.Echo_Text, plain.Echo_Text, {
      Text: 'hi',
    });
  }
}

writeFileSync(path.join(out, 'sandbox.json'), `${JSON.stringify(result, null, 2)}\n`);

const fmt = (value: unknown) => (typeof value === 'number' ? `${value.toFixed(2)} ms` : 'n/a');
const signed = (difference: number) => `${difference < 0 ? '-' : '+'}${fmt(Math.abs(difference))}`;
const pair = (key: string) => {
  const entry = result[key] as { confined: { p50: number }; plain: { p50: number } } | undefined;
  return entry === undefined
    ? 'not measured'
    : `confined ${fmt(entry.confined.p50)}, unconfined ${fmt(entry.plain.p50)} (${signed(entry.confined.p50 - entry.plain.p50)}, ${(entry.confined.p50 / entry.plain.p50).toFixed(2)}x)`;
};
console.log(
  `OS sandbox cost, ${calls} calls and ${starts} first calls each, ${os.availableParallelism()} cores, Node ${process.version}`,
);
console.log(`sandbox: ${sandbox.available ? 'available' : 'unavailable'} (${sandbox.reason})`);
console.log(`bash tool call p50: ${pair('processCall')}`);
console.log(`bare bash spawn p50: ${pair('bareSpawn')}`);
console.log(`JS pack tool warm call p50: ${pair('jsCall')}`);
console.log(`JS pack tool first call p50: ${pair('jsFirstCall')}`);
console.log(`PowerShell pack tool warm call p50: ${pair('pwshCall')}`);
console.log(`PowerShell pack tool first call p50: ${pair('pwshFirstCall')}`);

// Benchmark (issue 34): `mcp serve` serving PowerShell scripts and dotbot tool folders beside
// two floors written here that stand for the designs of the servers its users would leave,
// on the same generated 50 and 200 scripts and tool folders, all in one run:
//   - one runspace per script, no reset (MCPServerPS's design for -ScriptRoot):
//     bench/peers/powershell/one-runspace-per-script.ps1
//   - one session that dot-sources every tool folder's script.ps1 once (dotbot's server):
//     bench/peers/powershell/one-session-dot-sourced.ps1
//   - and that floor behind a Node process that relays each JSON-RPC line and does nothing
//     else (bench/peers/powershell/node-front.ts): the cost of the one more process hop a
//     server in Node with its tools in pwsh has, as `mcp serve` does
// Both floors answer the part of MCP's JSON-RPC a benchmark needs as one JSON object per line,
// with no schema, argument check, policy or isolation; `mcp serve` answers real MCP. All five
// are driven by the same client (bench/stdio-client.ts), so the comparison is the whole
// request/response round trip through each server's stdio.
// Measured, per size, with the five servers' samples interleaved so they share the noise:
//   - spawn -> initialize -> first tools/call answered (no tools/list), starts in rotating order;
//   - warm call p50 (every tool called once first), calls rotating over the tools;
//   - the CPU each server uses per warm call, over 1,000 more calls to it alone: its whole
//     process tree, and the process spawned (for a server in Node, the Node process without
//     the pwsh under it) (Linux);
//   - 8 different tools called at once, to the last answer, and the CPU each whole process
//     tree used per call over those bursts (Linux);
//   - resident memory of each server's whole process tree after `--rest` ms idle.
// Which pwsh ran (a full PowerShell or tools/pwsh-engine) is recorded; without pwsh the
// output says so and the report shows the rows as not measured.
//
//   pnpm build && pnpm --filter @toolpack/bench bench:powershell-peers
//     [--sizes 50,200] [--calls 200] [--batch 20] [--bursts 20] [--starts 5] [--rest 8000]
//     [--cli <another checkout>/packages/cli/dist/bin.mjs]
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { pwshEngine } from '@toolpack/pwsh-probe';
import { percentile, processCpuMs, treeCpuMs, treeResidentMb } from './measure.ts';
import { createStdioClient, type StdioClient } from './stdio-client.ts';

const { values } = parseArgs({
  args: process.argv.slice(2).filter((arg) => arg !== '--'),
  options: {
    sizes: { type: 'string', default: '50,200' },
    calls: { type: 'string', default: '200' },
    batch: { type: 'string', default: '20' },
    bursts: { type: 'string', default: '20' },
    starts: { type: 'string', default: '5' },
    rest: { type: 'string', default: '8000' },
    cli: { type: 'string' },
  },
});
const sizes = values.sizes.split(',').map(Number);
const calls = Number(values.calls);
const batch = Number(values.batch);
const bursts = Number(values.bursts);
const starts = Number(values.starts);
const restMs = Number(values.rest);
/** Warm calls per server over which its CPU per call is read (/proc counts 10 ms ticks). */
const cpuCalls = 1000;
const here = import.meta.dirname;
const cli = path.resolve(values.cli ?? path.join(here, '..', 'packages', 'cli', 'dist', 'bin.mjs'));
const cliArgs = cli.endsWith('.ts') ? ['--conditions=@toolpack/source', cli] : [cli];
const floors = path.join(here, 'peers', 'powershell');
const outDir = path.join(here, 'out');
mkdirSync(outDir, { recursive: true });
const outFile = path.join(outDir, 'powershell-peers.json');

const since = (start: bigint) => Number(process.hrtime.bigint() - start) / 1e6;
const summarize = (samples: number[]) => ({
  p50: percentile(samples, 50),
  p90: percentile(samples, 90),
  p99: percentile(samples, 99),
  samples: samples.length,
});

/** Script number `i`: comment-based help for the script and both parameters, a hashtable out. */
function script(i: number): string {
  return `<#
.SYNOPSIS
Returns widget number ${i}.

.PARAMETER Id
The widget id.

.PARAMETER Limit
How many widgets to return.
#>
param(
    [Parameter(Mandatory)]
    [string]$Id,

    [int]$Limit = 1
)
@{ id = $Id; tool = ${i}; limit = $Limit }
`;
}

/** Tool folder number `i` as dotbot lays it out: metadata.json and an Invoke-* function. */
function writeToolFolder(root: string, i: number): void {
  const dir = path.join(root, `widget-tool-${i}`);
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    path.join(dir, 'metadata.json'),
    `${JSON.stringify(
      {
        name: `widget_tool_${i}`,
        description: `Returns widget number ${i}.`,
        inputSchema: {
          type: 'object',
          properties: {
            id: { type: 'string', description: 'The widget id.' },
            limit: { type: 'integer', description: 'How many widgets to return.' },
          },
          required: ['id'],
        },
      },
      null,
      2,
    )}\n`,
  );
  writeFileSync(
    path.join(dir, 'script.ps1'),
    `function Invoke-WidgetTool${i} {
    param([hashtable]$Arguments)
    @{ id = $Arguments.id; tool = ${i}; limit = $Arguments.limit }
}
`,
  );
}

type ContenderId =
  'oursScripts' | 'floorScripts' | 'oursFolders' | 'floorFolders' | 'floorFoldersFront';

interface Contender {
  id: ContenderId;
  label: string;
  command: string;
  args: string[];
  cwd: string;
  /** The tool name and arguments of call number `i` (0-based) of tool `i % size`. */
  call(i: number): { name: string; arguments: Record<string, unknown> };
}

function contendersFor(work: string, size: number): Contender[] {
  const scripts = path.join(work, 'scripts');
  const folders = path.join(work, 'tools');
  mkdirSync(scripts, { recursive: true });
  mkdirSync(folders, { recursive: true });
  for (let i = 0; i < size; i++) {
    writeFileSync(path.join(scripts, `Get-Widget${i}.ps1`), script(i));
    writeToolFolder(folders, i);
  }
  const pwsh = (file: string, flag: string, dir: string) => [
    '-NoLogo',
    '-NoProfile',
    '-NonInteractive',
    '-File',
    path.join(floors, file),
    flag,
    dir,
  ];
  // mcp serve refuses more than 50 tools unless told: the scripts are all meant to be served.
  const serve = [...cliArgs, 'serve', '--no-watch', '--max-tools', String(size + 10)];
  return [
    {
      id: 'oursScripts',
      label: 'mcp serve --script-root',
      command: process.execPath,
      args: [...serve, '--script-root', scripts],
      cwd: work,
      call: (i) => ({ name: `Get_Widget${i % size}`, arguments: { Id: `w${i}`, Limit: 2 } }),
    },
    {
      id: 'floorScripts',
      label: 'floor: one runspace per script, no reset (MCPServerPS design)',
      command: 'pwsh',
      args: pwsh('one-runspace-per-script.ps1', '-ScriptRoot', scripts),
      cwd: work,
      call: (i) => ({ name: `Get-Widget${i % size}`, arguments: { Id: `w${i}`, Limit: 2 } }),
    },
    {
      id: 'oursFolders',
      label: 'mcp serve --tools-dir',
      command: process.execPath,
      args: [...serve, '--tools-dir', folders],
      cwd: work,
      call: (i) => ({ name: `widget_tool_${i % size}`, arguments: { id: `w${i}`, limit: 2 } }),
    },
    {
      id: 'floorFolders',
      label: 'floor: one session that dot-sources every tool (dotbot design)',
      command: 'pwsh',
      args: pwsh('one-session-dot-sourced.ps1', '-ToolsDir', folders),
      cwd: work,
      call: (i) => ({ name: `widget_tool_${i % size}`, arguments: { id: `w${i}`, limit: 2 } }),
    },
    {
      id: 'floorFoldersFront',
      label: 'the same floor behind a Node process that relays each JSON-RPC line',
      command: process.execPath,
      args: [
        path.join(floors, 'node-front.ts'),
        ...pwsh('one-session-dot-sourced.ps1', '-ToolsDir', folders),
      ],
      cwd: work,
      call: (i) => ({ name: `widget_tool_${i % size}`, arguments: { id: `w${i}`, limit: 2 } }),
    },
  ];
}

function start(contender: Contender): StdioClient {
  return createStdioClient({
    child: spawn(contender.command, contender.args, {
      cwd: contender.cwd,
      stdio: ['pipe', 'pipe', 'pipe'],
      env: { ...process.env, NO_COLOR: '1' },
    }),
    timeoutMs: 120_000,
  });
}

/** Calls tool `i % size` and checks the answer is that tool's, with the arguments sent. */
async function callChecked(client: StdioClient, contender: Contender, i: number): Promise<void> {
  const call = contender.call(i);
  const result = await client.request('tools/call', call);
  const text = (result.content as { type: string; text?: string }[] | undefined)?.[0]?.text ?? '';
  const tool = Number(/^\D*(\d+)$/.exec(call.name)?.[1]);
  if (
    result.isError === true ||
    !new RegExp(`"tool"\\s*:\\s*${tool}\\b`).test(text) ||
    !text.includes(`"w${i}"`)
  )
    throw new Error(
      `${contender.label} answered ${call.name} wrongly: ${JSON.stringify(result)}\n${client.stderr()}`,
    );
}

/** Spawn -> initialize -> the first tools/call answered, then the server is closed. */
async function firstCall(contender: Contender): Promise<number> {
  const begin = process.hrtime.bigint();
  const client = start(contender);
  try {
    await client.initialize();
    await callChecked(client, contender, 0);
    return since(begin);
  } finally {
    await client.close();
  }
}

interface SizeResult {
  size: number;
  contenders: Record<
    ContenderId,
    {
      label: string;
      firstCallMs: ReturnType<typeof summarize>;
      callMs: ReturnType<typeof summarize>;
      burstMs?: ReturnType<typeof summarize>;
      /** CPU of the whole process tree per call over the bursts, in ms (Linux). */
      burstCpuMsPerCall?: number | null;
      /** CPU per warm call, in ms (Linux): the whole process tree, and the process spawned. */
      warmCpuMsPerCall?: number | null;
      warmOwnCpuMsPerCall?: number | null;
      treeRssMb: number | null;
    }
  >;
}

async function measureSize(size: number): Promise<SizeResult> {
  const work = mkdtempSync(path.join(os.tmpdir(), `toolpack-bench-pwsh-peers-${size}-`));
  try {
    const contenders = contendersFor(work, size);
    // One start each first: warms the disk cache and fills Toolpack's discovery cache, as a
    // user's second start finds it.
    for (const contender of contenders) await firstCall(contender);
    const firstCalls = new Map(contenders.map((c) => [c.id, [] as number[]]));
    for (let round = 0; round < starts; round++)
      for (let k = 0; k < contenders.length; k++) {
        const contender = contenders[(round + k) % contenders.length]!;
        firstCalls.get(contender.id)!.push(await firstCall(contender));
      }

    const clients = new Map<ContenderId, StdioClient>();
    try {
      for (const contender of contenders) {
        const client = start(contender);
        clients.set(contender.id, client);
        await client.initialize();
        // Every tool once: a warm call is one to a tool already called.
        for (let i = 0; i < size; i++) await callChecked(client, contender, i);
      }
      const callSamples = new Map(contenders.map((c) => [c.id, [] as number[]]));
      let next = 0;
      for (let round = 0; round * batch < calls; round++)
        for (let k = 0; k < contenders.length; k++) {
          const contender = contenders[(round + k) % contenders.length]!;
          const client = clients.get(contender.id)!;
          for (let j = 0; j < batch; j++) {
            const begin = process.hrtime.bigint();
            await callChecked(client, contender, next + j);
            callSamples.get(contender.id)!.push(since(begin));
          }
          next += batch;
        }
      // 8 different scripts at once: the floor runs them in 8 runspaces side by side. dotbot's
      // server answers one call at a time, so the burst is measured against the first floor only.
      const bursting = contenders.filter((c) => c.id === 'oursScripts' || c.id === 'floorScripts');
      const burstSamples = new Map(bursting.map((c) => [c.id, [] as number[]]));
      // CPU of each whole tree over the bursts, the work after each answer included: on a
      // machine with few cores, what 8 calls at once cost in CPU bounds how soon they end.
      const cpuOf = (c: Contender) => treeCpuMs(clients.get(c.id)!.child.pid);
      const burstCpuBefore = new Map(bursting.map((c) => [c.id, cpuOf(c)]));
      for (let round = 0; round < bursts; round++)
        for (let k = 0; k < bursting.length; k++) {
          const contender = bursting[(round + k) % bursting.length]!;
          const client = clients.get(contender.id)!;
          const first = (round * 8) % size;
          const begin = process.hrtime.bigint();
          await Promise.all(
            Array.from({ length: 8 }, (_, j) => callChecked(client, contender, first + j)),
          );
          burstSamples.get(contender.id)!.push(since(begin));
        }
      await new Promise((resolve) => setTimeout(resolve, 250));
      const burstCpu = new Map(
        bursting.map((c) => {
          const before = burstCpuBefore.get(c.id);
          const after = cpuOf(c);
          const perCall =
            before === null || before === undefined || after === null
              ? null
              : (after - before) / (bursts * 8);
          return [c.id, perCall];
        }),
      );
      // CPU per warm call, each server alone in turn (its own background work during its calls
      // included, none of the others' turns): its whole tree, and the process spawned (for a
      // server in Node, the Node process without the pwsh under it). After the bursts, so that
      // they follow the warm calls as they always have.
      const warmCpuOf = (c: Contender) => {
        const pid = clients.get(c.id)!.child.pid;
        return { tree: treeCpuMs(pid), own: processCpuMs(pid) };
      };
      const warmCpu = new Map<ContenderId, { tree: number | null; own: number | null }>();
      for (const contender of contenders) {
        const client = clients.get(contender.id)!;
        const before = warmCpuOf(contender);
        for (let j = 0; j < cpuCalls; j++) await callChecked(client, contender, next + j);
        const after = warmCpuOf(contender);
        const perCall = (from: number | null, to: number | null) =>
          from === null || to === null ? null : (to - from) / cpuCalls;
        warmCpu.set(contender.id, {
          tree: perCall(before.tree, after.tree),
          own: perCall(before.own, after.own),
        });
      }
      // At rest: all of them idle together for the same time, then each whole tree is read.
      await new Promise((resolve) => setTimeout(resolve, restMs));
      const rss = new Map(
        contenders.map((c) => [c.id, treeResidentMb(clients.get(c.id)!.child.pid)]),
      );
      return {
        size,
        contenders: Object.fromEntries(
          contenders.map((c) => [
            c.id,
            {
              label: c.label,
              firstCallMs: summarize(firstCalls.get(c.id)!),
              callMs: summarize(callSamples.get(c.id)!),
              warmCpuMsPerCall: warmCpu.get(c.id)?.tree ?? null,
              warmOwnCpuMsPerCall: warmCpu.get(c.id)?.own ?? null,
              ...(burstSamples.has(c.id)
                ? {
                    burstMs: summarize(burstSamples.get(c.id)!),
                    burstCpuMsPerCall: burstCpu.get(c.id) ?? null,
                  }
                : {}),
              treeRssMb: rss.get(c.id) ?? null,
            },
          ]),
        ) as SizeResult['contenders'],
      };
    } finally {
      await Promise.all([...clients.values()].map((client) => client.close()));
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

const common = {
  cores: os.availableParallelism(),
  node: process.version,
  loadAverage: os.loadavg(),
  cli: path.relative(path.join(here, '..'), cli) || cli,
};
if (pwshEngine === undefined) {
  console.log('PowerShell peers: not measured (no pwsh 7.2+ on PATH).');
  writeFileSync(outFile, `${JSON.stringify({ ...common, hasPwsh: false }, null, 2)}\n`);
} else {
  console.log(`PowerShell: ${pwshEngine.description}; mcp: ${cli}`);
  const results: SizeResult[] = [];
  for (const size of sizes) {
    const result = await measureSize(size);
    results.push(result);
    console.log(
      `\n# ${size} scripts and ${size} tool folders; load ${os
        .loadavg()
        .map((n) => n.toFixed(2))
        .join(' ')}\n`,
    );
    console.log(
      '| server | spawn -> first call p50 ms | warm call p50 ms | p99 ms | CPU per warm call ms (own process) | 8 at once p50 ms | CPU per call at once ms | tree RSS at rest MB |',
    );
    console.log('| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |');
    for (const c of Object.values(result.contenders))
      console.log(
        `| ${c.label} | ${c.firstCallMs.p50.toFixed(0)} | ${c.callMs.p50.toFixed(2)} | ${c.callMs.p99.toFixed(2)} | ${c.warmCpuMsPerCall?.toFixed(2) ?? '-'} (${c.warmOwnCpuMsPerCall?.toFixed(2) ?? '-'}) | ${c.burstMs?.p50.toFixed(1) ?? '-'} | ${c.burstCpuMsPerCall?.toFixed(2) ?? '-'} | ${c.treeRssMb?.toFixed(1) ?? 'n/a'} |`,
      );
  }
  writeFileSync(
    outFile,
    `${JSON.stringify(
      {
        ...common,
        hasPwsh: true,
        pwsh: {
          kind: pwshEngine.kind,
          version: pwshEngine.version,
          description: pwshEngine.description,
        },
        calls,
        batch,
        bursts,
        starts,
        restMs,
        sizes: results,
      },
      null,
      2,
    )}\n`,
  );
}

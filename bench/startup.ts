// Benchmark: start-up of `mcp serve`, spawn -> initialize answered -> tools/list answered,
// against the bare SDK server (bench/bare-sdk-server.ts) measured in the same run:
//   - examples: `mcp serve` in a copy of the README's examples/ folder (every convention: tool
//     folders, PowerShell scripts and module, a JS module, bash/python/node scripts, workflows)
//     against the bare SDK server with its one tool: the floor; with --no-watch (the target's
//     figure) and watching (the default)
//   - 1,000 tools: `mcp serve --script-root` over 1,000 PARAM-header scripts with the discovery
//     cache warm (a first start fills .toolpack/cache, measured starts reuse it) and cold
//     (--no-cache), against the bare SDK server registering the same 1,000 tools by hand
// Every start runs in rotating order with the others, so they share the machine's noise.
//
//   pnpm build && pnpm --filter @toolpack/bench bench:startup [--starts 15] [--count 1000]
import { spawn } from 'node:child_process';
import {
  cpSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { headerScript, percentile } from './measure.ts';
import { createStdioClient } from './stdio-client.ts';

const { values } = parseArgs({
  args: process.argv.slice(2).filter((arg) => arg !== '--'),
  options: {
    starts: { type: 'string', default: '15' },
    count: { type: 'string', default: '1000' },
    // Another `mcp` entry, e.g. packages/cli/src/bin.ts to measure the sources unbuilt.
    cli: { type: 'string' },
  },
});
const starts = Number(values.starts);
const count = Number(values.count);
const here = import.meta.dirname;
const cli = path.resolve(values.cli ?? path.join(here, '..', 'packages', 'cli', 'dist', 'bin.mjs'));
const cliArgs = cli.endsWith('.ts') ? ['--conditions=@toolpack/source', cli] : [cli];
const bare = path.join(here, 'bare-sdk-server.ts');

interface Contender {
  id: 'examples' | 'examplesWatch' | 'examplesFloor' | 'manyCached' | 'manyCold' | 'manyFloor';
  label: string;
  args: string[];
  cwd: string;
  tools: number;
}

/**
 * Copies examples/ to `to`. Its node_modules hold relative links into the workspace, which a
 * copy elsewhere would break: they are linked again, absolutely, to the same targets.
 */
function copyExamples(from: string, to: string): void {
  cpSync(from, to, {
    recursive: true,
    filter: (source) =>
      path.basename(source) !== 'node_modules' && path.basename(source) !== '.toolpack',
  });
  const relink = (dir: string, target: string) => {
    mkdirSync(target, { recursive: true });
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const source = path.join(dir, entry.name);
      if (entry.name.startsWith('@') && entry.isDirectory())
        relink(source, path.join(target, entry.name));
      else symlinkSync(realpathSync(source), path.join(target, entry.name), 'junction');
    }
  };
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (!entry.isDirectory()) continue;
      const source = path.join(dir, entry.name);
      if (entry.name === 'node_modules') relink(source, path.join(to, path.relative(from, source)));
      else if (entry.name !== '.toolpack') walk(source);
    }
  };
  walk(from);
}

async function measureStart(
  contender: Contender,
): Promise<{ initializeMs: number; listMs: number; tools: number; stderr: string }> {
  const begin = process.hrtime.bigint();
  const client = createStdioClient({
    child: spawn(process.execPath, contender.args, {
      cwd: contender.cwd,
      stdio: ['pipe', 'pipe', 'pipe'],
      env: { ...process.env, NO_COLOR: '1' },
    }),
  });
  try {
    await client.initialize();
    const initializeMs = Number(process.hrtime.bigint() - begin) / 1e6;
    const { tools } = (await client.request('tools/list')) as { tools: unknown[] };
    const listMs = Number(process.hrtime.bigint() - begin) / 1e6;
    return { initializeMs, listMs, tools: tools.length, stderr: client.stderr() };
  } finally {
    await client.close();
  }
}

const work = mkdtempSync(path.join(os.tmpdir(), 'toolpack-bench-startup-'));
try {
  const examples = path.join(work, 'examples');
  copyExamples(path.join(here, '..', 'examples'), examples);
  const many = path.join(work, 'many');
  const scripts = path.join(many, 'scripts');
  mkdirSync(scripts, { recursive: true });
  for (let i = 0; i < count; i++)
    writeFileSync(path.join(scripts, `count-words-${i}.sh`), headerScript(i));
  const manyArgs = [
    ...cliArgs,
    'serve',
    '--script-root',
    scripts,
    '--max-tools',
    String(count + 10),
    '--no-watch',
  ];

  const contenders: Contender[] = [
    {
      id: 'examples',
      label: 'mcp serve --no-watch, examples/ (cache warm)',
      args: [...cliArgs, 'serve', '--no-watch'],
      cwd: examples,
      tools: 0,
    },
    {
      // Watching is the default: the server answers once the watcher's first scan is done, so
      // that a change made right after start is not missed.
      id: 'examplesWatch',
      label: 'mcp serve, examples/ (cache warm, watching)',
      args: [...cliArgs, 'serve'],
      cwd: examples,
      tools: 0,
    },
    {
      id: 'examplesFloor',
      label: 'bare SDK server, 1 tool (floor)',
      args: [bare],
      cwd: work,
      tools: 1,
    },
    {
      id: 'manyCached',
      label: `mcp serve, ${count} scripts, discovery cache warm`,
      args: manyArgs,
      cwd: many,
      tools: count,
    },
    {
      id: 'manyCold',
      label: `mcp serve, ${count} scripts, --no-cache`,
      args: [...manyArgs, '--no-cache'],
      cwd: many,
      tools: count,
    },
    {
      id: 'manyFloor',
      label: `bare SDK server, ${count} tools registered by hand (floor)`,
      args: [bare, '--tools', String(count - 1)],
      cwd: work,
      tools: count,
    },
  ];

  // One start each first: warms the disk cache, fills the discovery caches (twice, to settle
  // entries stored within the racy-mtime window) and learns how many tools each lists
  // (`mcp serve` adds its own find_tools/call_tool beside the scripts).
  for (const contender of contenders) {
    const first = await measureStart(contender);
    if (first.tools < contender.tools)
      throw new Error(
        `${contender.label} listed ${first.tools} tools, not ${contender.tools}\n${first.stderr}`,
      );
    contender.tools = first.tools;
    await measureStart(contender);
  }

  const samples = new Map(
    contenders.map((c) => [c.id, { initializeMs: [] as number[], listMs: [] as number[] }]),
  );
  for (let round = 0; round < starts; round++) {
    for (let i = 0; i < contenders.length; i++) {
      const contender = contenders[(round + i) % contenders.length]!;
      const sample = await measureStart(contender);
      if (sample.tools !== contender.tools)
        throw new Error(`${contender.label} listed ${sample.tools} tools\n${sample.stderr}`);
      samples.get(contender.id)!.initializeMs.push(sample.initializeMs);
      samples.get(contender.id)!.listMs.push(sample.listMs);
    }
  }

  const results = contenders.map((contender) => {
    const { initializeMs, listMs } = samples.get(contender.id)!;
    return {
      id: contender.id,
      label: contender.label,
      tools: contender.tools,
      initializeMs: { p50: percentile(initializeMs, 50) },
      toolsListMs: { p50: percentile(listMs, 50), p90: percentile(listMs, 90) },
      samples: listMs.length,
    };
  });
  const byId = (id: Contender['id']) => results.find((r) => r.id === id)!;
  const floorOf: Partial<Record<Contender['id'], Contender['id']>> = {
    examples: 'examplesFloor',
    examplesWatch: 'examplesFloor',
    manyCached: 'manyFloor',
    manyCold: 'manyFloor',
  };

  console.log(
    `\n# Start-up, spawn -> tools/list answered, p50 of ${starts}; ${os.availableParallelism()} cores, Node ${process.version}, load ${os
      .loadavg()
      .map((n) => n.toFixed(2))
      .join(' ')}\n`,
  );
  console.log('| server | tools | initialize p50 ms | tools/list p50 ms | p90 ms | - floor ms |');
  console.log('| --- | ---: | ---: | ---: | ---: | ---: |');
  for (const r of results) {
    const floor = floorOf[r.id];
    const over =
      floor === undefined ? '' : (r.toolsListMs.p50 - byId(floor).toolsListMs.p50).toFixed(1);
    console.log(
      `| ${r.label} | ${r.tools} | ${r.initializeMs.p50.toFixed(1)} | ${r.toolsListMs.p50.toFixed(1)} | ${r.toolsListMs.p90.toFixed(1)} | ${over} |`,
    );
  }

  const out = path.join(here, 'out');
  mkdirSync(out, { recursive: true });
  writeFileSync(
    path.join(out, 'startup.json'),
    `${JSON.stringify(
      {
        cores: os.availableParallelism(),
        node: process.version,
        loadAverage: os.loadavg(),
        starts,
        count,
        servers: results,
      },
      null,
      2,
    )}\n`,
  );
} finally {
  rmSync(work, { recursive: true, force: true });
}

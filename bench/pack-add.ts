// Benchmark: `mcp pack add` end to end (process start, resolve, download, integrity check,
// safe unpack, toolpack.yaml + toolpack.lock) for a ~100 KB pack served by a loopback
// registry, each run in a fresh empty folder with an empty pack cache. Target: < 300 ms.
// The built CLI packs the pack (`mcp pack pack --json`) and installs it.
//
//   pnpm build && pnpm --filter @toolpack/bench bench:pack-add [--runs 15] [--kb 100]
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { percentile } from './measure.ts';

const { values } = parseArgs({
  args: process.argv.slice(2).filter((arg) => arg !== '--'),
  options: { runs: { type: 'string', default: '15' }, kb: { type: 'string', default: '100' } },
});
const runs = Number(values.runs);
const targetKb = Number(values.kb);
const cli = path.join(import.meta.dirname, '..', 'packages', 'cli', 'dist', 'bin.mjs');
const TARGET_MS = 300;

function run(
  args: string[],
  cwd: string,
  env: NodeJS.ProcessEnv,
): Promise<{ ms: number; code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const start = process.hrtime.bigint();
    const child = spawn(process.execPath, [cli, ...args], {
      cwd,
      env: { ...process.env, NO_COLOR: '1', ...env },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('close', (code) =>
      resolve({ ms: Number(process.hrtime.bigint() - start) / 1e6, code, stdout, stderr }),
    );
  });
}

const work = mkdtempSync(path.join(os.tmpdir(), 'toolpack-bench-pack-add-'));
const server = createServer();
try {
  // A pack of ~targetKb KB compressed: random data does not compress, so the tarball is that big.
  const packDir = path.join(work, 'bench-pack');
  mkdirSync(path.join(packDir, 'scripts'), { recursive: true });
  mkdirSync(path.join(packDir, 'data'), { recursive: true });
  writeFileSync(
    path.join(packDir, 'toolpack.yaml'),
    'name: bench-pack\nversion: 1.0.0\ndescription: A pack for the pack-add benchmark.\ntags: [MCPTools, bench]\nsources:\n  - scripts: scripts\n',
  );
  for (let i = 0; i < 10; i++) {
    writeFileSync(
      path.join(packDir, 'scripts', `tool-${i}.mjs`),
      `// DESCRIPTION "Benchmark tool ${i}."\n// PARAM text AS string DESCRIPTION "Some text."\nconsole.log('{}');\n`,
    );
  }
  const files = 8;
  for (let i = 0; i < files; i++)
    writeFileSync(
      path.join(packDir, 'data', `blob-${i}.txt`),
      randomBytes(Math.floor((targetKb * 1024) / files)).toString('base64'),
    );

  const packed = await run(
    ['pack', 'pack', packDir, '--out', path.join(work, 'bench-pack.tgz'), '--json'],
    work,
    {},
  );
  if (packed.code !== 0) throw new Error(`mcp pack pack failed: ${packed.stderr}`);
  const info = JSON.parse(packed.stdout) as {
    integrity: string;
    size: number;
    files: string[];
    tools: string[];
  };
  const tarball = readFileSync(path.join(work, 'bench-pack.tgz'));

  // The Registry API, as little of it as `mcp pack add` asks for.
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const versionDoc = {
    name: 'bench-pack',
    version: '1.0.0',
    description: 'A pack for the pack-add benchmark.',
    tags: ['MCPTools', 'bench'],
    tools: info.tools.map((name) => ({ name, description: name, inputSchema: { type: 'object' } })),
    env: [],
    dist: {
      tarball: `${base}/v0/packs/bench-pack/-/bench-pack-1.0.0.tgz`,
      integrity: info.integrity,
      size: tarball.length,
      fileCount: info.files.length,
    },
  };
  server.on('request', (request, response) => {
    if (request.url === '/v0/packs/bench-pack') {
      const body = JSON.stringify({
        name: 'bench-pack',
        description: versionDoc.description,
        tags: versionDoc.tags,
        latest: '1.0.0',
        versions: { '1.0.0': versionDoc },
      });
      response.writeHead(200, { 'content-type': 'application/json' }).end(body);
    } else if (request.url === '/v0/packs/bench-pack/-/bench-pack-1.0.0.tgz') {
      response
        .writeHead(200, { 'content-type': 'application/gzip', 'content-length': tarball.length })
        .end(tarball);
    } else {
      response
        .writeHead(404, { 'content-type': 'application/json' })
        .end('{"error":{"code":"E_NOT_FOUND","message":"Not found."}}');
    }
  });

  const addOnce = async (cache: string) => {
    const project = mkdtempSync(path.join(work, 'project-'));
    const result = await run(['pack', 'add', 'bench-pack', '--registry', base, '--yes'], project, {
      TOOLPACK_CACHE_DIR: cache,
    });
    if (result.code !== 0) throw new Error(`mcp pack add failed: ${result.stderr}`);
    rmSync(project, { recursive: true, force: true });
    return result.ms;
  };
  const startup: number[] = [];
  for (let r = 0; r < Math.min(runs, 5); r++) startup.push((await run(['--version'], work, {})).ms);
  await addOnce(mkdtempSync(path.join(work, 'cache-'))); // warms the OS file cache and V8's compile cache
  const cold: number[] = [];
  for (let r = 0; r < runs; r++) cold.push(await addOnce(mkdtempSync(path.join(work, 'cache-'))));
  const sharedCache = mkdtempSync(path.join(work, 'cache-'));
  await addOnce(sharedCache);
  const cached: number[] = [];
  for (let r = 0; r < runs; r++) cached.push(await addOnce(sharedCache));

  const rows = [
    {
      case: 'download (empty cache)',
      median: percentile(cold, 50),
      p90: percentile(cold, 90),
      min: Math.min(...cold),
    },
    {
      case: 'from the pack cache',
      median: percentile(cached, 50),
      p90: percentile(cached, 90),
      min: Math.min(...cached),
    },
    {
      case: 'mcp --version (process start)',
      median: percentile(startup, 50),
      p90: percentile(startup, 90),
      min: Math.min(...startup),
    },
  ];
  const cores = os.cpus().length;
  console.log(
    `mcp pack add, whole process, ${(tarball.length / 1024).toFixed(0)} KB tarball (${info.files.length} files), ${runs} runs, ${cores} cores, Node ${process.version}`,
  );
  console.log('| case | median ms | p90 ms | min ms | target |');
  console.log('| --- | ---: | ---: | ---: | --- |');
  for (const row of rows) {
    const target = row.case.startsWith('download')
      ? `< ${TARGET_MS} ms (${row.median < TARGET_MS ? 'met' : 'missed'})`
      : '';
    console.log(
      `| ${row.case} | ${row.median.toFixed(0)} | ${row.p90.toFixed(0)} | ${row.min.toFixed(0)} | ${target} |`,
    );
  }
  const out = path.join(import.meta.dirname, 'out');
  mkdirSync(out, { recursive: true });
  writeFileSync(
    path.join(out, 'pack-add.json'),
    JSON.stringify(
      {
        runs,
        tarballBytes: tarball.length,
        files: info.files.length,
        cores,
        node: process.version,
        targetMs: TARGET_MS,
        rows,
      },
      null,
      2,
    ),
  );
} finally {
  server.close();
  rmSync(work, { recursive: true, force: true });
}

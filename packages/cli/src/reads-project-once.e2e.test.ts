import { spawn, spawnSync } from 'node:child_process';
import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mcpBin } from './testing/run-mcp.ts';

const preload = path.join(import.meta.dirname, 'fixtures', 'count-reads', 'count-file-reads.mjs');
let project: string;

beforeAll(async () => {
  project = await mkdtemp(path.join(tmpdir(), 'toolpack-reads-once-'));
  await mkdir(path.join(project, 'scripts'));
  await writeFile(
    path.join(project, 'scripts', 'hello.sh'),
    '#!/usr/bin/env bash\n# Says hello.\necho hello\n',
  );
  await writeFile(
    path.join(project, 'toolpack.yaml'),
    [
      'sources:',
      '  - scripts: scripts',
      'packs:',
      '  jira: ^1.0.0',
      'policy:',
      '  deny: ["*_delete*"]',
      'interpreters:',
      '  ".bas": ["my-basic"]',
      '',
    ].join('\n'),
  );
});

afterAll(async () => {
  await rm(project, { recursive: true, force: true });
});

const countingEnv = () => ({
  ...process.env,
  NO_COLOR: '1',
  TOOLPACK_COUNTED_FILE: path.join(project, 'toolpack.yaml'),
});

/**
 * `toolpack.yaml` has one reader (@toolpack/packs `loadProject`), and each command hands what
 * it read on instead of reading again, whatever the manifest holds (sources, packs, policy,
 * interpreters).
 */
describe('toolpack.yaml is read once per command', () => {
  it('mcp serve', async () => {
    const stderr = await new Promise<string>((resolve, reject) => {
      const child = spawn(process.execPath, ['--import', preload, mcpBin, 'serve', '--no-watch'], {
        cwd: project,
        env: countingEnv(),
      });
      let output = '';
      child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
        output += chunk;
        // Started: ending stdin stops the server, which then prints its count.
        if (output.includes('serving ')) child.stdin.end();
      });
      const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
      child.on('error', reject);
      child.on('close', () => {
        clearTimeout(timer);
        resolve(output);
      });
    });
    // The policy's line comes from that one read too.
    expect(stderr).toMatch(
      /serving \d+ tools? from toolpack\.yaml \(policy toolpack\.yaml:5: deny \*_delete\*\)/,
    );
    expect(stderr).toMatch(/counted reads: 1\n/);
  });

  // Each command's output proves it looked at the project: list and check name the pack that
  // is not installed, doctor the configured interpreter it could not find.
  it.each([
    ['list', /jira/],
    ['check', /jira/],
    ['doctor', /my-basic/],
  ])('mcp %s', (command, readsProject) => {
    const run = spawnSync(process.execPath, ['--import', preload, mcpBin, command], {
      cwd: project,
      env: countingEnv(),
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(`${run.stdout}${run.stderr}`).toMatch(readsProject);
    expect(run.stderr).toMatch(/counted reads: 1\n/);
  });
});

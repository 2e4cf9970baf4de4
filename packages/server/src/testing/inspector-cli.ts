import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { childEnv, cliBin, repo } from './serve-helpers.ts';

/** The MCP Inspector's own bin (a dev dependency of this package). */
export const inspectorBin = path.join(
  repo,
  'packages',
  'server',
  'node_modules',
  '.bin',
  'mcp-inspector',
);

/** Whether the Inspector is installed: title its tests with `[needs Inspector]` and skip without it. */
export const hasInspector = existsSync(inspectorBin);

export interface RunInspectorCliOptions {
  /** The folder `mcp serve` runs in. */
  cwd: string;
  /** The Inspector's request, e.g. `['--method', 'tools/list']`. */
  method: string[];
  /** Flags for `mcp serve` after `--no-cache --no-watch`. */
  serveArgs?: string[];
  /** The Inspector's `--protocol-era`: legacy (2025), auto (its default) or modern (2026-07-28). */
  protocolEra?: string;
}

export interface InspectorCliResult {
  code: number | null;
  /** What the Inspector wrote to `--output`, or `{ unreadable }` with its stdout and stderr. */
  json: Record<string, unknown>;
  stdout: string;
  stderr: string;
}

/**
 * Runs the Inspector CLI once against `mcp serve` (from sources). Its HOME is a temp folder
 * removed afterwards (it writes settings there). The Inspector gives the server a minimal
 * environment of its own, so the source condition goes on the node command line.
 */
export function runInspectorCli(options: RunInspectorCliOptions): InspectorCliResult {
  const home = mkdtempSync(path.join(os.tmpdir(), 'toolpack-inspector-'));
  try {
    const output = path.join(home, 'result.json');
    const result = spawnSync(
      inspectorBin,
      [
        '--cli',
        ...(options.protocolEra === undefined ? [] : ['--protocol-era', options.protocolEra]),
        '--cwd',
        options.cwd,
        process.execPath,
        '--conditions=@toolpack/source',
        cliBin,
        'serve',
        '--no-cache',
        '--no-watch',
        ...(options.serveArgs ?? []),
        ...options.method,
        '--output',
        output,
      ],
      {
        env: childEnv({ HOME: home, USERPROFILE: home, APPDATA: home }),
        encoding: 'utf8',
        timeout: 60_000,
      },
    );
    let json: Record<string, unknown>;
    try {
      json = JSON.parse(readFileSync(output, 'utf8')) as Record<string, unknown>;
    } catch {
      json = { unreadable: `${result.stdout}\n${result.stderr}` };
    }
    return { code: result.status, json, stdout: result.stdout, stderr: result.stderr };
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
}

import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PWSH_TEST_TAG, hasPwsh } from '@toolpack/pwsh-probe';
import { childEnv, repo, waitFor } from '@toolpack/server/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  connectAiSdk,
  connectInspector,
  connectLangChain,
  connectMastra,
  connectSdkV1,
  connectSdkV2,
  type ConnectedClient,
  type Target,
} from './mcp-clients.ts';

// Every headless MCP client from npm drives the built `mcp serve` with default settings (so the
// portable schema dialect) over stdio and Streamable HTTP: it lists the tools, binds each
// parameter set of a PowerShell script, and is told the real cause of a failing tool first.
// Run `pnpm --filter @toolpack/cli build` first: this is what a user installs.
const project = path.join(import.meta.dirname, 'fixtures', 'project');
const builtMcp = path.join(repo, 'packages', 'cli', 'bin', 'mcp.js');
const hasBuiltMcp = existsSync(path.join(repo, 'packages', 'cli', 'dist', 'bin.mjs'));
// The Inspector starts a client (and over stdio a server) per request, and each client's
// checks run side by side: generous, so a loaded CI machine fails only what is broken.
const CALL_TIMEOUT_MS = 60_000;
const MACHINE_PATHS = [project, repo, os.tmpdir(), os.homedir(), 'file://'];

/** This process's environment without the source condition: the bundle resolves as installed. */
function builtEnv(): Record<string, string> {
  const env = childEnv();
  const nodeOptions = (env.NODE_OPTIONS ?? '').replace(/--conditions[= ]@toolpack\/source/g, '');
  if (nodeOptions.trim() === '') delete env.NODE_OPTIONS;
  else env.NODE_OPTIONS = nodeOptions.trim();
  return env;
}

const stdioTarget: Target = {
  kind: 'stdio',
  command: process.execPath,
  args: [builtMcp, 'serve'],
  cwd: project,
  env: builtEnv(),
};

const CLIENTS: { name: string; connect: (target: Target) => Promise<ConnectedClient> }[] = [
  { name: 'MCP Inspector CLI 2.12.0', connect: (target) => connectInspector(target) },
  { name: 'TypeScript SDK v1 1.32.2', connect: connectSdkV1 },
  {
    name: 'MCP Inspector CLI 2.12.0 (protocol era modern, 2026-07-28)',
    connect: (target) => connectInspector(target, { protocolEra: 'modern' }),
  },
  { name: 'TypeScript SDK v2 2.4.0', connect: (target) => connectSdkV2(target) },
  {
    name: 'TypeScript SDK v2 2.4.0 (pinned to 2026-07-28)',
    connect: (target) => connectSdkV2(target, { pin: '2026-07-28' }),
  },
  { name: 'AI SDK MCP 2.0.99', connect: connectAiSdk },
  { name: 'LangChain MCP adapters 1.1.4', connect: connectLangChain },
  { name: 'Mastra MCP 2.0.0', connect: connectMastra },
];

let httpServer: ChildProcess | undefined;
let httpUrl: URL | undefined;

beforeAll(async () => {
  if (!hasBuiltMcp) return;
  const server = spawn(process.execPath, [builtMcp, 'serve', '--http', '127.0.0.1:0'], {
    cwd: project,
    env: builtEnv(),
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  httpServer = server;
  let stderr = '';
  server.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  const url = await waitFor(
    () => /on (http:\/\/\S+\/mcp)/.exec(stderr)?.[1] ?? (server.exitCode !== null ? 'exit' : false),
    'the HTTP address on stderr',
    20_000,
  );
  if (url === 'exit') throw new Error(`mcp serve --http exited:\n${stderr}`);
  httpUrl = new URL(url);
});

afterAll(() => {
  httpServer?.kill('SIGKILL');
});

for (const { name, connect } of CLIENTS) {
  for (const transport of ['stdio', 'http'] as const) {
    describe.skipIf(!hasBuiltMcp).concurrent(`${name} over ${transport} [built mcp]`, () => {
      let client: ConnectedClient | undefined;

      beforeAll(async () => {
        client = await connect(
          transport === 'stdio' ? stdioTarget : { kind: 'http', url: httpUrl! },
        );
      }, 60_000);

      afterAll(async () => {
        await client?.close().catch(() => undefined);
      });

      it(
        'lists the tools',
        async () => {
          expect((await client!.listToolNames()).sort()).toEqual(
            expect.arrayContaining(['Find_Widget', 'Get_Limits', 'read_limits', 'shout']),
          );
        },
        CALL_TIMEOUT_MS,
      );

      it(
        'calls the bash tool',
        async () => {
          const outcome = await client!.callTool('shout', { text: 'quiet please' });
          expect(outcome).toEqual({
            isError: false,
            text: expect.stringContaining('QUIET PLEASE'),
          });
        },
        CALL_TIMEOUT_MS,
      );

      it.skipIf(!hasPwsh)(
        `${PWSH_TEST_TAG} binds each parameter set`,
        async () => {
          const byName = await client!.callTool('Find_Widget', { Name: 'gear' });
          const byId = await client!.callTool('Find_Widget', { Id: 7 });
          expect(byName.isError, byName.text).toBe(false);
          expect(byId.isError, byId.text).toBe(false);
          expect(JSON.parse(byName.text)).toEqual({ ParameterSet: 'ByName', Key: 'gear' });
          expect(JSON.parse(byId.text)).toEqual({ ParameterSet: 'ById', Key: '7' });
        },
        CALL_TIMEOUT_MS,
      );

      it(
        'is told the real cause of a failure first, with no path of the server machine',
        async () => {
          const outcome = await client!.callTool('read_limits', {});
          expect(outcome.isError).toBe(true);
          expect(outcome.text).not.toContain('E_OUTPUT_MISMATCH');
          expect(outcome.text).toMatch(/(^|: )Tool "read_limits" failed: /);
          expect(outcome.text).toContain('cat: scripts/limits.json: No such file or directory');
          expect(MACHINE_PATHS.filter((found) => outcome.text.includes(found))).toEqual([]);
        },
        CALL_TIMEOUT_MS,
      );

      it.skipIf(!hasPwsh)(
        `${PWSH_TEST_TAG} is told PowerShell's own error first, not an output mismatch`,
        async () => {
          const outcome = await client!.callTool('Get_Limits', {});
          expect(outcome.isError).toBe(true);
          expect(outcome.text).not.toContain('E_OUTPUT_MISMATCH');
          // The client's own prefix (LangChain's "MCP tool … returned an error: ") may come first.
          expect(outcome.text).toMatch(
            /(^|: )PowerShell tool "Get_Limits" failed: Cannot find path 'scripts\/limits\.json' because it does not exist\. \(at scripts\/Get-Limits\.ps1:9\)/,
          );
          expect(MACHINE_PATHS.filter((found) => outcome.text.includes(found))).toEqual([]);
        },
        CALL_TIMEOUT_MS,
      );
    });
  }
}

import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { LEAST_PERMISSIONS, type PackPermissions, type SourceSpec } from '@toolpack/core';
import { createToolpackServer, type ToolpackServer } from './toolpack-server.ts';
import { refuseNetworkedToolsWithoutToken } from './withhold-tools.ts';

const NETWORK: PackPermissions = { ...LEAST_PERMISSIONS, network: { access: 'any', hosts: [] } };

let project: string;
let server: ToolpackServer | undefined;
let logs: string[];

function writeScript(folder: string, name: string): void {
  mkdirSync(path.join(project, folder), { recursive: true });
  writeFileSync(
    path.join(project, folder, `${name}.sh`),
    `#!/usr/bin/env bash\n# DESCRIPTION "${name}"\necho ${name}\n`,
    { mode: 0o755 },
  );
}

beforeEach(() => {
  project = mkdtempSync(path.join(os.tmpdir(), 'toolpack-withhold-'));
  logs = [];
  writeScript('own', 'own_tool');
  writeScript('online', 'fetch_page');
  writeScript('offline', 'count_words');
});

afterEach(async () => {
  await server?.close();
  server = undefined;
  rmSync(project, { recursive: true, force: true });
});

const sources: SourceSpec[] = [
  { scripts: 'own' },
  { scripts: 'online', sandbox: true, permissions: NETWORK, pack: 'online' },
  { scripts: 'offline', sandbox: true, permissions: LEAST_PERMISSIONS, pack: 'offline' },
];

async function start(withhold: boolean): Promise<ToolpackServer> {
  server = await createToolpackServer({
    discovery: { sources, cwd: project, cache: false },
    ...(withhold ? { admitTool: refuseNetworkedToolsWithoutToken } : {}),
    log: (line) => logs.push(line),
  });
  return server;
}

const names = (served: ToolpackServer) =>
  served.tools
    .filter((tool) => tool.source.kind !== 'builtin')
    .map((tool) => tool.name)
    .sort();

it('withholds the tools of a confined source granted the network, with one diagnostic for the source', async () => {
  const served = await start(true);
  expect(names(served)).toEqual(['offline_count_words', 'own_tool']);
  const refusals = served.diagnostics.filter((d) => d.code === 'E_HTTP_TOKEN');
  expect(refusals).toHaveLength(1);
  expect(refusals[0]).toMatchObject({ severity: 'error', path: 'online' });
  expect(refusals[0]?.message).toContain('Pack online is granted the network');
  expect(refusals[0]?.hint).toContain('TOOLPACK_TOKEN');
  expect(logs.join('\n')).toContain('E_HTTP_TOKEN');
  await expect(served.callTool('online_fetch_page', {})).rejects.toMatchObject({
    code: 'E_UNKNOWN_TOOL',
  });
});

it('serves them all when nothing is withheld (a server with a token, or over stdio)', async () => {
  const served = await start(false);
  expect(names(served)).toEqual(['offline_count_words', 'online_fetch_page', 'own_tool']);
  expect(served.diagnostics.some((d) => d.code === 'E_HTTP_TOKEN')).toBe(false);
});

it('withholds a tool a reload brings in, and keeps serving the others', async () => {
  const served = await start(true);
  writeScript('online', 'post_form');
  writeScript('own', 'second_tool');
  await served.reload();
  expect(names(served)).toEqual(['offline_count_words', 'own_tool', 'second_tool']);
  expect(served.diagnostics.filter((d) => d.code === 'E_HTTP_TOKEN')).toHaveLength(1);
});

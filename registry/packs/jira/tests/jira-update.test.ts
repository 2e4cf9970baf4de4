// An update that asks for the network, of a pack installed without it, stops at
// `mcp pack update` until someone accepts it; once accepted, the same call that could not
// reach Jira before does. The earlier version is this pack with its permissions: taken out
// (what a publisher would have shipped before adding them), served from a folder registry.
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMcp } from '@toolpack/cli/testing';
import { describeSandbox } from '../../../../apps/registry/src/testing/pack-test-kit.ts';

const packDir = path.resolve(import.meta.dirname, '..');
const temp = mkdtempSync(path.join(os.tmpdir(), 'toolpack-jira-update-'));
const registry = path.join(temp, 'registry');
const project = path.join(temp, 'project');
const sandbox = describeSandbox();
let server: Server;
let stubUrl = '';
let requests = 0;

beforeAll(async () => {
  server = createServer((_request, response) => {
    requests += 1;
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(JSON.stringify({ id: '10001', key: 'PROJ-1', fields: { summary: 'Fixed' } }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  stubUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server?.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve));
  rmSync(temp, { recursive: true, force: true });
});

/** Puts `jira` in the folder registry: this pack, or it without network as `version`. */
function publishJira(options: { withoutNetwork?: string } = {}) {
  const dir = path.join(registry, 'jira');
  rmSync(dir, { recursive: true, force: true });
  cpSync(packDir, dir, {
    recursive: true,
    filter: (source) => !source.includes(`${path.sep}tests`),
  });
  if (options.withoutNetwork === undefined) return;
  const manifest = path.join(dir, 'toolpack.yaml');
  const text = readFileSync(manifest, 'utf8');
  expect(text).toMatch(/^permissions:\n {2}network:/m);
  writeFileSync(
    manifest,
    text
      .replace(/^version: .*$/m, `version: ${options.withoutNetwork}`)
      .replace(/^(# .*\n)*permissions:\n( .*\n)*/m, ''),
  );
}

const mcp = (args: string[]) =>
  startMcp(args, {
    cwd: project,
    env: {
      ...process.env,
      TOOLPACK_CACHE_DIR: path.join(temp, 'cache'),
      JIRA_BASE_URL: stubUrl,
      JIRA_EMAIL: 'ada@example.com',
      JIRA_API_TOKEN: 'secret-token',
    },
  });
const getIssue = () => mcp(['call', 'jira_get_issue', '--arg', 'key=PROJ-1', '--require-sandbox']);

describe('an update of jira that adds network', { timeout: 120_000 }, () => {
  it('stops at mcp pack update until it is accepted; accepted, the tools reach Jira', async () => {
    mkdirSync(project);
    publishJira({ withoutNetwork: '1.0.9' });
    const added = await mcp(['pack', 'add', 'jira', '--yes', '--registry', registry]);
    expect(added.code, added.stderr).toBe(0);
    // What was approved is printed (on stdout or stderr: the command's choice).
    expect(added.stdout + added.stderr).toContain('  network: none\n');
    const lockBefore = readFileSync(path.join(project, 'toolpack.lock'), 'utf8');
    expect(JSON.parse(lockBefore).packs.jira).toMatchObject({
      version: '1.0.9',
      permissions: { network: { access: 'none' } },
    });

    publishJira();
    // Without anyone to ask (no terminal here, no --yes): it stops, showing what is new.
    const stopped = await mcp(['pack', 'update', '--registry', registry]);
    expect(stopped.code).not.toBe(0);
    expect(stopped.stdout + stopped.stderr).toContain(
      'jira@1.1.1 (from 1.0.9): asks for more: network access (any host)',
    );
    // --allow without network: shown, then refused.
    const narrow = await mcp([
      'pack',
      'update',
      '--allow',
      'env:JIRA_API_TOKEN,env:JIRA_BASE_URL,env:JIRA_EMAIL',
      '--registry',
      registry,
    ]);
    expect(narrow.code).not.toBe(0);
    expect(narrow.stdout + narrow.stderr).toContain(
      'More than you approved before:\n  + network access (any host)\n',
    );
    expect(narrow.stderr).toMatch(/asks for more than --allow grants \(network access/);
    // Nothing moved: the lock and the installed pack are 1.0.9's.
    expect(readFileSync(path.join(project, 'toolpack.lock'), 'utf8')).toBe(lockBefore);
    expect(
      readFileSync(path.join(project, '.toolpack', 'packs', 'jira', 'toolpack.yaml'), 'utf8'),
    ).toMatch(/^version: 1\.0\.9$/m);

    if (sandbox.available) {
      // 1.0.9 declared no network, and runs without it: the stub is not reached.
      const offline = await getIssue();
      expect(offline.code, offline.stderr).toBe(1);
      expect(offline.stdout + offline.stderr).toContain('ECONNREFUSED');
      expect(requests).toBe(0);
    }

    const accepted = await mcp(['pack', 'update', '--yes', '--registry', registry]);
    expect(accepted.code, accepted.stderr).toBe(0);
    expect(accepted.stdout).toContain('updated jira 1.0.9 -> 1.1.1');
    expect(
      JSON.parse(readFileSync(path.join(project, 'toolpack.lock'), 'utf8')).packs.jira,
    ).toMatchObject({
      version: '1.1.1',
      permissions: { network: { access: 'any', hosts: ['*.atlassian.net'] } },
    });

    if (sandbox.available) {
      const online = await getIssue();
      expect(online.code, online.stderr).toBe(0);
      expect(online.stdout).toContain('PROJ-1');
      expect(requests).toBe(1);
    }
  });
});

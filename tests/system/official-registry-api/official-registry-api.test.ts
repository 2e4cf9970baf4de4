// The official MCP Registry API as an outside client sees it: the real `toolpack-registry serve`
// process (seeded with the official packs, its own server namespace), packs published with the
// real `mcp`, and everything read back through a client written from the API's documentation.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMcp } from '@toolpack/cli/testing';
import { repo } from '../system-helpers.ts';
import {
  createOfficialRegistryClient,
  type OfficialRegistryClient,
  type ServerResponse,
} from './official-registry-client.ts';

const registryCli = path.join(repo, 'apps', 'registry', 'src', 'cli.ts');
const schemaFile = path.join(repo, 'packages/packs/src/server-json/fixtures/server.schema.json');
const NAMESPACE = 'com.example.packs';
const OFFICIAL = 'io.modelcontextprotocol.registry/official';

const temp = mkdtempSync(path.join(os.tmpdir(), 'toolpack-official-api-'));
const dataDir = path.join(temp, 'registry');

/** This process's environment without the machine's Toolpack settings. */
function cleanEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    NO_COLOR: '1',
    TOOLPACK_CACHE_DIR: path.join(temp, 'cache'),
  };
  for (const name of Object.keys(env)) if (name.startsWith('TOOLPACK_REGISTRY')) delete env[name];
  delete env.TOOLPACK_TOKEN;
  return env;
}

function runRegistryCli(args: string[]) {
  return spawnSync(process.execPath, [registryCli, ...args], {
    cwd: temp,
    env: cleanEnv(),
    encoding: 'utf8',
    timeout: 60_000,
  });
}

let server: ChildProcess | undefined;
let baseUrl: string;
let token: string;
let client: OfficialRegistryClient;

/** A scoped pack with a secret and a description longer than server.json allows. */
function writeHelloPack(version: string): string {
  const dir = path.join(temp, `hello-${version}`);
  cpSync(
    path.join(repo, 'packages/cli/src/commands/pack/fixtures/packs/hello/scripts'),
    path.join(dir, 'scripts'),
    {
      recursive: true,
    },
  );
  writeFileSync(
    path.join(dir, 'toolpack.yaml'),
    [
      'name: acme/hello',
      `version: ${version}`,
      `description: ${'Greets people by name, politely and at length; '.repeat(4).trim()}`,
      'tags: [MCPTools, greeting]',
      'sources:',
      '  - scripts: scripts',
      'env:',
      '  - name: HELLO_TOKEN',
      '    required: true',
      '    secret: true',
      '    description: The greeting service token.',
      '  - name: HELLO_LANGUAGE',
      '    required: false',
      '    secret: false',
      '',
    ].join('\n'),
  );
  return dir;
}

beforeAll(async () => {
  const created = runRegistryCli(['token', 'create', '--owner', 'acme', '--data', dataDir]);
  expect(created.status, created.stderr).toBe(0);
  token = created.stdout.trim();

  server = spawn(
    process.execPath,
    [
      registryCli,
      'serve',
      '--port',
      '0',
      '--data',
      dataDir,
      '--seed',
      path.join(repo, 'registry', 'packs'),
      '--server-namespace',
      NAMESPACE,
      '--no-rate-limit',
    ],
    { cwd: temp, env: cleanEnv() },
  );
  let stderr = '';
  server.stderr?.setEncoding('utf8');
  baseUrl = await new Promise<string>((resolve, reject) => {
    server!.stderr!.on('data', (chunk: string) => {
      stderr += chunk;
      const url = /listening on (http:\/\/\S+)/.exec(stderr)?.[1];
      if (url !== undefined) resolve(url);
    });
    server!.once('exit', (code) => reject(new Error(`the registry exited (${code}):\n${stderr}`)));
  });
  // Ready once seeding is over; bounded, like any wait here.
  for (let attempt = 0; attempt < 600; attempt += 1) {
    if ((await fetch(`${baseUrl}/health`)).status === 200) break;
    await delay(100);
  }
  for (const version of ['1.0.0', '1.1.0']) {
    const published = await startMcp(
      ['pack', 'publish', writeHelloPack(version), '--registry', baseUrl, '--token', token],
      { cwd: temp, env: cleanEnv() },
    );
    expect(published.code, published.stderr).toBe(0);
  }
  client = createOfficialRegistryClient(baseUrl, schemaFile);
}, 180_000);

afterAll(async () => {
  if (server?.exitCode === null) {
    server.kill('SIGTERM');
    await new Promise((resolve) => server!.once('exit', resolve));
  }
  rmSync(temp, { recursive: true, force: true });
});

const key = (entry: ServerResponse) => `${entry.server.name}@${entry.server.version}`;
const official = (entry: ServerResponse) => entry._meta?.[OFFICIAL];

describe('the official MCP Registry API, read by a client written from its documentation', () => {
  it('pages through every server with cursors to the same list one big page gives', async () => {
    const paged = await client.listAll({ limit: 2 });
    const whole = await client.listAll({ limit: 100 });
    expect(whole.pages).toBe(1);
    expect(paged.pages).toBeGreaterThan(3);
    expect(paged.servers.map(key)).toEqual(whole.servers.map(key));
    expect(new Set(paged.servers.map(key)).size).toBe(paged.servers.length);
    const names = new Set(whole.servers.map((entry) => entry.server.name));
    expect(names).toContain(`${NAMESPACE}/jira`);
    expect(names).toContain(`${NAMESPACE}.acme/hello`);
    for (const name of names) expect(name.startsWith(NAMESPACE)).toBe(true);
  });

  it('each server says how to start it: npx @toolpack/cli serving that pack version, its env with isSecret', async () => {
    const hello = await client.getVersion(`${NAMESPACE}.acme/hello`, '1.1.0');
    expect(hello.server.description.length).toBeLessThanOrEqual(100);
    const [pkg] = hello.server.packages ?? [];
    expect(pkg).toMatchObject({
      registryType: 'npm',
      identifier: '@toolpack/cli',
      runtimeHint: 'npx',
      transport: { type: 'stdio' },
    });
    expect(pkg?.packageArguments?.map((arg) => arg.name ?? arg.value)).toEqual([
      'serve',
      '--pack',
      '--registry',
    ]);
    expect(pkg?.packageArguments?.slice(1).map((arg) => arg.value)).toEqual([
      'acme/hello@1.1.0',
      baseUrl,
    ]);
    // The CLI prints the very document the registry serves.
    const printed = await startMcp(
      ['pack', 'server-json', 'acme/hello@1.1.0', '--registry', baseUrl, '--namespace', NAMESPACE],
      { cwd: temp, env: cleanEnv() },
    );
    expect(printed.code, printed.stderr).toBe(0);
    expect(JSON.parse(printed.stdout)).toEqual(hello.server);
    expect(pkg?.environmentVariables).toEqual([
      expect.objectContaining({ name: 'HELLO_TOKEN', isRequired: true, isSecret: true }),
      expect.objectContaining({ name: 'HELLO_LANGUAGE', isRequired: false, isSecret: false }),
    ]);
  });

  it('version=latest gives each server once, flagged latest; versions lists newest first', async () => {
    const latest = await client.listAll({ version: 'latest', limit: 100 });
    const names = latest.servers.map((entry) => entry.server.name);
    expect(new Set(names).size).toBe(names.length);
    expect(latest.servers.every((entry) => official(entry)?.isLatest === true)).toBe(true);
    expect(latest.servers.map(key)).toContain(`${NAMESPACE}.acme/hello@1.1.0`);
    const versions = await client.listVersions(`${NAMESPACE}.acme/hello`);
    expect(versions.servers.map((entry) => entry.server.version)).toEqual(['1.1.0', '1.0.0']);
    expect((await client.getVersion(`${NAMESPACE}.acme/hello`, 'latest')).server.version).toBe(
      '1.1.0',
    );
  });

  it('search narrows by server name', async () => {
    const found = await client.listAll({ search: 'acme/', limit: 100 });
    expect(found.servers.map(key)).toEqual([
      `${NAMESPACE}.acme/hello@1.0.0`,
      `${NAMESPACE}.acme/hello@1.1.0`,
    ]);
  });

  it('updated_since finds what a deprecation and a yank changed, with their status', async () => {
    await delay(5);
    const since = new Date().toISOString();
    await delay(5);
    for (const [version, action, body] of [
      ['1.0.0', 'deprecate', { message: 'Use 1.1.0' }],
      ['1.1.0', 'yank', {}],
    ] as const) {
      const response = await fetch(
        `${baseUrl}/v0/packs/acme%2Fhello/versions/${version}/${action}`,
        {
          method: 'POST',
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
          body: JSON.stringify(body),
        },
      );
      expect(response.status, await response.text()).toBe(200);
    }
    const changed = await client.listAll({ updatedSince: since, limit: 100 });
    expect(changed.servers.map((entry) => [key(entry), official(entry)?.status])).toEqual([
      [`${NAMESPACE}.acme/hello@1.0.0`, 'deprecated'],
      [`${NAMESPACE}.acme/hello@1.1.0`, 'deleted'],
    ]);
    for (const entry of changed.servers)
      expect(Date.parse(official(entry)?.updatedAt ?? '')).toBeGreaterThanOrEqual(
        Date.parse(since),
      );
    // With 1.1.0 yanked, latest is 1.0.0 again, deprecated but still the one to run.
    const latest = await client.getVersion(`${NAMESPACE}.acme/hello`, 'latest');
    expect([latest.server.version, official(latest)?.status, official(latest)?.isLatest]).toEqual([
      '1.0.0',
      'deprecated',
      true,
    ]);
  });

  it('lets a browser read it: preflight 204 with the CORS headers, answers with allow-origin *', async () => {
    const preflight = await client.raw('/v0.1/servers?limit=1', {
      method: 'OPTIONS',
      headers: {
        origin: 'https://editor.example',
        'access-control-request-method': 'GET',
        'access-control-request-headers': 'accept',
      },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-origin')).toBe('*');
    expect(preflight.headers.get('access-control-allow-methods')).toMatch(/\bGET\b/);
    expect(preflight.headers.get('access-control-allow-headers')?.toLowerCase()).toContain(
      'accept',
    );
    const answer = await client.raw('/v0.1/servers?limit=1', {
      headers: { origin: 'https://editor.example' },
    });
    expect(answer.headers.get('access-control-allow-origin')).toBe('*');
  });

  it('answers 404 with the documented error body for a server it does not have', async () => {
    for (const route of [
      `/v0.1/servers/${encodeURIComponent('io.github.someone/hello')}/versions`,
      `/v0.1/servers/${encodeURIComponent(`${NAMESPACE}/missing`)}/versions/latest`,
    ]) {
      const answer = await client.raw(route);
      expect(answer.status, route).toBe(404);
      expect(typeof (answer.body as { error?: unknown }).error, route).toBe('string');
    }
  });

  it('refuses a server namespace that is not reverse-DNS at start, as bad usage', () => {
    const refused = runRegistryCli([
      'serve',
      '--port',
      '0',
      '--data',
      path.join(temp, 'other'),
      '--server-namespace',
      'Not A Namespace',
    ]);
    expect(refused.status).toBe(2);
    expect(refused.stderr).toMatch(/--server-namespace/);
  });
});

// `mcp pack server-json` end to end: the real `mcp` against a loopback registry, its document
// checked against the vendored server.json schema, and then started exactly as the document
// says (the package's arguments after `npx @toolpack/cli`) and spoken to over stdio.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { Ajv } from 'ajv';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startTestRegistry, type TestRegistry } from '@toolpack/packs/testing';
import { describePackTools } from '../discover-pack-tools.ts';
import { mcpBin, startMcp } from '../../../testing/run-mcp.ts';

const repo = path.resolve(import.meta.dirname, '..', '..', '..', '..', '..', '..');
const officialPacks = path.join(repo, 'registry', 'packs');
const cliVersion = (
  JSON.parse(readFileSync(path.join(repo, 'packages', 'cli', 'package.json'), 'utf8')) as {
    version: string;
  }
).version;

const ajv = new Ajv({ allErrors: true, strict: false });
ajv.addFormat('uri', (text: string) => /^[a-z][a-z0-9+.-]*:/i.test(text) && URL.canParse(text));
ajv.addFormat('uri-template', true);
const validate = ajv.compile(
  JSON.parse(
    readFileSync(
      path.join(repo, 'packages', 'packs', 'src', 'server-json', 'fixtures', 'server.schema.json'),
      'utf8',
    ),
  ) as object,
);

interface ServerJson {
  $schema: string;
  name: string;
  version: string;
  websiteUrl?: string;
  packages: {
    registryType: string;
    identifier: string;
    version: string;
    runtimeHint: string;
    packageArguments: { type: string; name?: string; value: string }[];
    environmentVariables: { name: string; isRequired: boolean; isSecret: boolean }[];
  }[];
}

const made: string[] = [];
function tempDir(prefix: string): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), `toolpack-server-json-${prefix}-`));
  made.push(dir);
  return dir;
}

let registry: TestRegistry;
let cacheDir: string;
beforeAll(async () => {
  cacheDir = tempDir('cache');
  registry = await startTestRegistry({
    packs: ['json', 'jira'].map((name) => path.join(officialPacks, name)),
    describeTools: describePackTools,
  });
});
afterAll(async () => {
  await registry.close().catch(() => undefined);
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function env(): NodeJS.ProcessEnv {
  const clean = { ...process.env };
  for (const name of Object.keys(clean))
    if (name.startsWith('JIRA_') || name.startsWith('TOOLPACK_')) delete clean[name];
  return { ...clean, TOOLPACK_CACHE_DIR: cacheDir, NO_COLOR: '1' };
}
/** Asynchronous: the registry runs in this process and must keep answering. */
const mcp = (args: string[], cwd = tempDir('cwd')) => startMcp(args, { cwd, env: env() });

function readDocument(stdout: string): ServerJson {
  const document = JSON.parse(stdout) as ServerJson;
  const ok = validate(document);
  expect(ok ? [] : validate.errors).toEqual([]);
  return document;
}

const children: ReturnType<typeof spawn>[] = [];
afterEach(() => {
  for (const child of children.splice(0)) if (child.exitCode === null) child.kill('SIGKILL');
});

describe('mcp pack server-json', { timeout: 90_000 }, () => {
  it('prints a valid server.json: this CLI serving the latest version, env as environment variables', async () => {
    const run = await mcp(['pack', 'server-json', 'jira', '--registry', registry.url]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout.endsWith('}\n')).toBe(true);
    expect(run.stdout.split('\n')[1]).toMatch(/^ {2}"\$schema"/);
    const document = readDocument(run.stdout);
    expect(document).toMatchObject({
      $schema: 'https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json',
      name: 'dev.toolpack/jira',
      version: '1.1.1',
      websiteUrl: `${registry.url}/packs/jira?version=1.1.1`,
    });
    const [pkg] = document.packages;
    expect(pkg).toMatchObject({
      registryType: 'npm',
      identifier: '@toolpack/cli',
      version: cliVersion,
      runtimeHint: 'npx',
    });
    expect(pkg?.packageArguments).toEqual([
      { type: 'positional', value: 'serve' },
      { type: 'named', name: '--pack', value: 'jira@1.1.1' },
      { type: 'named', name: '--registry', value: registry.url },
    ]);
    expect(
      pkg?.environmentVariables.map((variable) => [
        variable.name,
        variable.isRequired,
        variable.isSecret,
      ]),
    ).toEqual([
      ['JIRA_BASE_URL', true, false],
      ['JIRA_EMAIL', true, false],
      ['JIRA_API_TOKEN', true, true],
    ]);
    // The package is not on npm yet: stderr says so, and names the mcp command that serves
    // the same version (the last test runs exactly those arguments).
    expect(run.stderr).toBe(
      `warning @toolpack/cli is not on the npm registry yet: \`npx -y @toolpack/cli@${cliVersion}\` fails (404) until it is published. ` +
        'Until then, install mcp from a Toolpack clone with scripts/install-mcp.sh (or the tarballs of `pnpm pack-tarballs`, installed with npm) and start it by path: ' +
        `\`mcp serve --pack jira@1.1.1 --registry ${registry.url}\` serves this pack version.\n`,
    );
  });

  it('takes a version and the registry’s namespace; a folder registry is named by its absolute path', async () => {
    const named = await mcp([
      'pack',
      'server-json',
      'json@~1.1',
      '--registry',
      registry.url,
      '--namespace',
      'com.example.packs',
    ]);
    expect(named.code, named.stderr).toBe(0);
    expect(readDocument(named.stdout)).toMatchObject({
      name: 'com.example.packs/json',
      version: '1.1.1',
    });

    const cwd = path.dirname(officialPacks);
    const folder = await mcp(['pack', 'server-json', 'json', '--registry', 'packs'], cwd);
    expect(folder.code, folder.stderr).toBe(0);
    const document = readDocument(folder.stdout);
    expect(document.websiteUrl).toBeUndefined();
    expect(document.packages[0]?.packageArguments.at(-1)?.value).toBe(officialPacks);
  });

  it('fails like mcp pack info for an unknown pack, and as bad usage for a bad namespace', async () => {
    const unknown = await mcp(['pack', 'server-json', 'nope', '--registry', registry.url]);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/No pack named nope/);
    expect(unknown.stdout).toBe('');
    const badNamespace = await mcp([
      'pack',
      'server-json',
      'json',
      '--registry',
      registry.url,
      '--namespace',
      'Not/A.Namespace',
    ]);
    expect(badNamespace.code).toBe(2);
    expect(badNamespace.stderr).toMatch(/not a server namespace/);
  });

  it('the document’s command serves the pack: mcp with its package arguments answers tools/list', async () => {
    const run = await mcp(['pack', 'server-json', 'json', '--registry', registry.url]);
    const [pkg] = readDocument(run.stdout).packages;
    // What a client builds from the package: positional values as they are, named as flag value.
    const args = (pkg?.packageArguments ?? []).flatMap((arg) =>
      arg.type === 'named' ? [arg.name ?? '', arg.value] : [arg.value],
    );
    const child = spawn(process.execPath, [mcpBin, ...args], {
      cwd: tempDir('client'),
      env: env(),
    });
    children.push(child);
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    const answers = new Map<
      number,
      (answer: { result?: { tools?: { name: string }[] } }) => void
    >();
    createInterface({ input: child.stdout }).on('line', (line) => {
      const answer = JSON.parse(line) as { id?: number; result?: { tools?: { name: string }[] } };
      if (answer.id !== undefined) answers.get(answer.id)?.(answer);
    });
    const request = (id: number, method: string, params: object) =>
      new Promise<{ result?: { tools?: { name: string }[] } }>((resolve, reject) => {
        answers.set(id, resolve);
        child.once('exit', () => reject(new Error(`mcp exited before answering:\n${stderr}`)));
        child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, params })}\n`);
      });
    await request(1, 'initialize', {
      protocolVersion: '2025-06-18',
      capabilities: {},
      clientInfo: { name: 'server-json-e2e', version: '1.0.0' },
    });
    child.stdin.write(
      `${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n`,
    );
    const listed = await request(2, 'tools/list', {});
    expect(listed.result?.tools?.map((tool) => tool.name)).toContain('json_format');
    child.stdin.end();
    await once(child, 'exit');
  });
});

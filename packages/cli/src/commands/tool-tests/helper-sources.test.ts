import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { discoverTools } from '@toolpack/discovery';
import { createToolpackServer, startHttpServer, type ToolpackServer } from '@toolpack/server';
import { hasPwsh, PWSH_TEST_TAG } from '@toolpack/pwsh-probe';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { renderPowerShellTest } from '../new/templates.ts';
import {
  NODE_HELPER_FILE,
  NODE_TEST_HELPER,
  POWERSHELL_HELPERS_FILE,
  POWERSHELL_TEST_HELPERS,
  POWERSHELL_TEST_RUNNER,
} from './helper-sources.ts';

const fixtures = path.join(import.meta.dirname, 'fixtures');
const run = promisify(execFile);

describe('the PowerShell sources mcp test writes', () => {
  // Without running anything (and where there is no pwsh), Toolpack's own PowerShell parser
  // proves every bracket, string and block closes, in the helpers and in the tests mcp new
  // generates.
  it('parse without syntax errors', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'toolpack-ps-syntax-'));
    try {
      const sources: Record<string, string> = {
        'helpers.ps1': POWERSHELL_TEST_HELPERS,
        'runner.ps1': POWERSHELL_TEST_RUNNER,
        'generated-folder-test.ps1': renderPowerShellTest({
          toolName: 'send_notification',
          parameter: 'text',
          runWith: 'mcp test --tools-dir tools',
        }),
        'generated-script-test.ps1': renderPowerShellTest({
          toolName: 'Send_Notification',
          parameter: 'Text',
          runWith: "mcp test --script-root 'my scripts'",
        }),
      };
      for (const [name, text] of Object.entries(sources))
        await writeFile(path.join(dir, name), text);
      const { diagnostics } = await discoverTools({
        cwd: dir,
        sources: [{ scripts: dir }],
        cache: false,
      });
      expect(diagnostics.filter((d) => d.code === 'E_PARSE')).toEqual([]);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('define the helpers a test uses and read the test server from the environment', () => {
    for (const name of [
      'Invoke-ToolpackTool',
      'Get-ToolpackTool',
      'Assert-ToolpackEqual',
      'Start-ToolpackStdioServer',
    ]) {
      expect(POWERSHELL_TEST_HELPERS).toContain(`function ${name} {`);
    }
    expect(POWERSHELL_TEST_HELPERS).toContain('$env:TOOLPACK_TEST_SERVER');
    expect(POWERSHELL_TEST_RUNNER).toContain("Parameters.ContainsKey('Process')");
    expect(POWERSHELL_TEST_RUNNER).toContain('$global:DotbotProjectRoot');
  });
});

describe('the JSON functions of the PowerShell helpers', () => {
  // Assert-ToolpackEqual compares these texts, and every message to the server is one: they
  // replace ConvertTo-Json/ConvertFrom-Json, which an engine without the built-in modules lacks.
  it.skipIf(!hasPwsh)(`write and read JSON as ConvertTo-Json would ${PWSH_TEST_TAG}`, async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'toolpack-ps-json-'));
    try {
      const helpers = path.join(dir, POWERSHELL_HELPERS_FILE);
      await writeFile(helpers, POWERSHELL_TEST_HELPERS);
      const script = [
        `. '${helpers.replace(/'/g, "''")}'`,
        "$text = 'h' + [char]0xe9 + 'llo ' + [char]0x2713 + [char]1 + [char]34 + [char]92 + [char]10",
        '$read = ConvertFrom-ToolpackJson -Json \'{"a":[1,2.5,"s",null,true,{"b":[]}],"n":9007199254740993}\'',
        '$out = [ordered]@{',
        "  nested = ConvertTo-ToolpackJson @{ b = 1; a = @(1, 'x', $null, $true); c = [ordered]@{ z = 2.5; y = $text } }",
        '  sameNumber = (ConvertTo-ToolpackJson 5) -ceq (ConvertTo-ToolpackJson 5L)',
        "  sameObject = (ConvertTo-ToolpackJson ([pscustomobject]@{ y = 1; x = 'a' })) -ceq (ConvertTo-ToolpackJson @{ x = 'a'; y = 1 })",
        '  roundTrip = (ConvertFrom-ToolpackJson -Json (ConvertTo-ToolpackJson $text)) -ceq $text',
        '  types = @($read.a[0].GetType().Name, $read.a[1].GetType().Name, $read.a.GetType().Name, $read.a[5].b.GetType().Name, $read.a[5].b.Count, $read.n.GetType().Name)',
        '}',
        '[Console]::Out.WriteLine((ConvertTo-ToolpackJson $out))',
      ].join('\n');
      const { stdout } = await run(
        'pwsh',
        ['-NoLogo', '-NoProfile', '-NonInteractive', '-Command', script],
        { timeout: 30_000 },
      );
      expect(JSON.parse(stdout)).toEqual({
        nested: JSON.stringify({
          a: [1, 'x', null, true],
          b: 1,
          c: { y: 'héllo ✓\u0001"\\\n', z: 2.5 },
        }),
        sameNumber: true,
        sameObject: true,
        roundTrip: true,
        types: ['Int64', 'Double', 'Object[]', 'Object[]', 0, 'Int64'],
      });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('the node test helper', () => {
  let toolpack: ToolpackServer;
  let server: Awaited<ReturnType<typeof startHttpServer>>;
  let dir: string;
  const token = 'test-token';

  beforeAll(async () => {
    toolpack = await createToolpackServer({
      discovery: { cwd: fixtures, sources: [{ scripts: 'helper-tools' }], cache: false },
      metrics: false,
    });
    server = await startHttpServer(toolpack, { token });
    dir = await mkdtemp(path.join(os.tmpdir(), 'toolpack-helper-'));
    await writeFile(path.join(dir, NODE_HELPER_FILE), NODE_TEST_HELPER);
  });

  afterAll(async () => {
    await server?.close();
    await toolpack?.close();
    if (dir !== undefined) await rm(dir, { recursive: true, force: true });
  });

  /** Runs `code` as an ES module in a child Node with the helper imported as `helper`. */
  async function withHelper(code: string, env: Record<string, string> = {}): Promise<unknown> {
    const script = `const helper = await import(${JSON.stringify(pathToFileURL(path.join(dir, NODE_HELPER_FILE)).href)});
const out = await (async () => { ${code} })();
console.log(JSON.stringify(out));`;
    const { stdout } = await run(process.execPath, ['--input-type=module', '-e', script], {
      env: { ...process.env, TOOLPACK_TEST_SERVER: server.url, TOOLPACK_TEST_TOKEN: token, ...env },
      timeout: 20_000,
    });
    return JSON.parse(stdout);
  }

  it('calls a tool as a client would, UTF-8 intact', async () => {
    expect(await withHelper(`return helper.callTool('echo', { text: 'héllo ✓' });`)).toEqual({
      content: [{ type: 'text', text: '{"echo":"héllo ✓"}' }],
      structuredContent: { echo: 'héllo ✓' },
      text: '{"echo":"héllo ✓"}',
    });
  });

  it('rejects an error result unless allowError, and lists the tools', async () => {
    expect(
      await withHelper(`
        const thrown = await helper.callTool('echo', { text: 'x', fail: true }).then(() => 'no', (e) => e.message);
        const allowed = await helper.callTool('echo', { text: 'x', fail: true }, { allowError: true });
        const invalid = await helper.callTool('echo', {}, { allowError: true });
        const unknown = await helper.callTool('nope', {}).then(() => 'no', (e) => e.message);
        const tools = (await helper.listTools()).map((t) => t.name);
        return { thrown, allowed: allowed.isError, invalid: invalid.text, unknown, tools };
      `),
    ).toEqual({
      thrown: expect.stringMatching(/^echo answered with an error: .*refusing to echo x/s),
      allowed: true,
      invalid: expect.stringContaining('Invalid arguments for tool "echo"'),
      unknown: expect.stringMatching(/^tools\/call nope: .*\(JSON-RPC -32602\)$/),
      tools: expect.arrayContaining(['echo']),
    });
  });

  it('says why when the server refuses it or is not set', async () => {
    expect(
      await withHelper(`return helper.listTools().then(() => 'no', (e) => e.message);`, {
        TOOLPACK_TEST_TOKEN: 'wrong',
      }),
    ).toMatch(/^initialize: the test server answered HTTP 401/);
    expect(
      await withHelper(`return helper.listTools().then(() => 'no', (e) => e.message);`, {
        TOOLPACK_TEST_SERVER: '',
      }),
    ).toBe('TOOLPACK_TEST_SERVER is not set: run this test with mcp test.');
  });
});

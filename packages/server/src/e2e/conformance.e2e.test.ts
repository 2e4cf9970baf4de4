import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHttpServe, type SpawnedServer } from '../testing/index.ts';

const CONFORMANCE_VERSION = '0.2.0-alpha.12';
const fixtures = path.join(import.meta.dirname, 'fixtures');
const project = path.join(fixtures, 'conformance');

/** The suite's CLI when `@modelcontextprotocol/conformance` is installed (a devDependency of this package). */
function findConformanceCli(): string | undefined {
  try {
    const require = createRequire(path.join(import.meta.dirname, '..', '..', 'package.json'));
    const manifestPath = require.resolve('@modelcontextprotocol/conformance/package.json');
    const manifest = JSON.parse(readFileSync(manifestPath, 'utf8')) as {
      version: string;
      bin?: string | Record<string, string>;
    };
    const bin =
      typeof manifest.bin === 'string' ? manifest.bin : Object.values(manifest.bin ?? {})[0];
    if (bin === undefined || manifest.version !== CONFORMANCE_VERSION) return undefined;
    const file = path.join(path.dirname(manifestPath), bin);
    return existsSync(file) ? file : undefined;
  } catch {
    return undefined;
  }
}

const conformanceCli = findConformanceCli();

describe('mcp serve --http with the conformance fixture tools', () => {
  let temp: string;
  let server: SpawnedServer & { url: URL };
  let client: Client;

  beforeAll(async () => {
    temp = mkdtempSync(path.join(os.tmpdir(), 'toolpack-conformance-'));
    server = await startHttpServe(['--no-cache', '--no-watch'], { cwd: project });
    client = new Client({ name: 'toolpack-conformance-e2e', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(server.url));
  });

  afterAll(async () => {
    await client?.close().catch(() => undefined);
    server?.kill();
    rmSync(temp, { recursive: true, force: true });
  });

  // The same expectations as the suite's tools-* scenarios, so the fixture and the server are
  // held to them even where the suite itself cannot be installed.
  it('returns text, image, audio, embedded resources and mixed content as given', async () => {
    const text = await client.callTool({ name: 'test_simple_text' });
    expect(text.content).toEqual([
      { type: 'text', text: 'This is a simple text response for testing.' },
    ]);
    const image = await client.callTool({ name: 'test_image_content', arguments: {} });
    expect(image.content).toMatchObject([
      { type: 'image', mimeType: 'image/png', data: expect.any(String) },
    ]);
    const audio = await client.callTool({ name: 'test_audio_content', arguments: {} });
    expect(audio.content).toMatchObject([{ type: 'audio', mimeType: 'audio/wav' }]);
    const resource = await client.callTool({ name: 'test_embedded_resource', arguments: {} });
    expect(resource.content).toMatchObject([
      { type: 'resource', resource: { uri: 'test://embedded-resource' } },
    ]);
    const mixed = await client.callTool({ name: 'test_multiple_content_types', arguments: {} });
    expect((mixed.content as { type: string }[]).map((c) => c.type)).toEqual([
      'text',
      'image',
      'resource',
    ]);
  });

  it('sends the tool’s log messages at the level the client chose', async () => {
    const messages: unknown[] = [];
    client.setNotificationHandler('notifications/message', (notification) => {
      messages.push(notification.params.data);
    });
    await client.setLoggingLevel('debug');
    await client.callTool({ name: 'test_tool_with_logging', arguments: {} });
    expect(messages).toEqual([
      'Tool execution started',
      'Tool processing data',
      'Tool execution completed',
    ]);
    messages.length = 0;
    await client.setLoggingLevel('error');
    await client.callTool({ name: 'test_tool_with_logging', arguments: {} });
    expect(messages).toEqual([]);
  });

  it('reports increasing progress and errors as isError results', async () => {
    const progress: number[] = [];
    await client.callTool(
      { name: 'test_tool_with_progress', arguments: {} },
      { onprogress: (p) => progress.push(p.progress) },
    );
    // The last update can reach an SDK client in the same read as the answer, which the
    // client then drops (see create-mcp-server.ts); the server sends all three.
    expect(progress.slice(0, 2)).toEqual([0, 50]);
    expect([
      [0, 50],
      [0, 50, 100],
    ]).toContainEqual(progress);
    const failed = await client.callTool({ name: 'test_error_handling', arguments: {} });
    expect(failed.isError).toBe(true);
    expect(JSON.stringify(failed.content)).toContain(
      'This tool intentionally returns an error for testing',
    );
  });
});

describe.skipIf(conformanceCli === undefined)(
  `official MCP conformance suite ${CONFORMANCE_VERSION} [needs @modelcontextprotocol/conformance@${CONFORMANCE_VERSION} installed]`,
  () => {
    let server: SpawnedServer & { url: URL };
    let temp: string;

    beforeAll(async () => {
      temp = mkdtempSync(path.join(os.tmpdir(), 'toolpack-conformance-run-'));
      server = await startHttpServe(['--no-cache', '--no-watch'], { cwd: project });
    });

    afterAll(() => {
      server?.kill();
      rmSync(temp, { recursive: true, force: true });
    });

    const runSuite = (args: string[]) => {
      const run = spawnSync(
        process.execPath,
        [
          conformanceCli ?? '',
          'server',
          '--url',
          server.url.href,
          ...args,
          '--expected-failures',
          path.join(project, 'conformance-baseline.yml'),
          '--output-dir',
          temp,
        ],
        { cwd: temp, encoding: 'utf8', timeout: 120_000 },
      );
      expect(run.status, `${run.stdout}\n${run.stderr}`).toBe(0);
    };

    // Both runs fail on a failure the baseline does not list, and on a listed one that passes.
    it('passes the 2025-era scenarios (initialize handshake) but the baselined ones', () => {
      runSuite([]);
    }, 150_000);

    it('passes every 2026-07-28 scenario, pending ones included, but the baselined ones', () => {
      runSuite(['--suite', 'all', '--spec-version', '2026-07-28']);
    }, 150_000);
  },
);

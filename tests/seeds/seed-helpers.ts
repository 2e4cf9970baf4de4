import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startMcp, type McpRun } from '@toolpack/cli/testing';
import { childEnv, startStdioSession, waitFor, type StdioSession } from '@toolpack/server/testing';

export { waitFor, type StdioSession };

export const fixtures = path.join(import.meta.dirname, 'fixtures');

/**
 * A copy of one seed's fixture folder in a fresh temporary directory: the tools run against
 * (and may write to) the copy, never the tracked fixtures.
 */
export function copySeedFixture(seed: string): { dir: string; remove(): void } {
  const dir = mkdtempSync(path.join(os.tmpdir(), `toolpack-seed-${seed}-`));
  cpSync(path.join(fixtures, seed), dir, { recursive: true });
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

export interface StartSeedServerOptions {
  /** The project folder (the copy); `mcp serve` runs there and takes it as project root. */
  cwd: string;
  /** Keep watching the sources (hot reload); off unless a test is about reloads. */
  watch?: boolean;
}

/**
 * The real `mcp serve` over stdio with the MCP SDK client connected, never reading a cache.
 * Schemas are listed exact: the seed tests check each tool's schema as its seed wrote it.
 */
export function startSeedServer(
  args: readonly string[],
  options: StartSeedServerOptions,
): Promise<StdioSession> {
  return startStdioSession(
    [
      '--no-cache',
      '--schema-dialect',
      'exact',
      ...(options.watch === true ? [] : ['--no-watch']),
      ...args,
    ],
    {
      cwd: options.cwd,
    },
  );
}

/** Runs the real `mcp <args>` to its end (for exits and refusals a client never sees). */
export async function runMcp(
  args: readonly string[],
  options: { cwd: string; timeoutMs?: number },
): Promise<McpRun> {
  const { code, stdout, stderr } = await startMcp(args, { ...options, env: childEnv() });
  return { code, stdout, stderr };
}

/** The text blocks of a tool result, joined. */
export function readText(result: { content?: unknown }): string {
  return ((result.content ?? []) as { type: string; text?: string }[])
    .filter((block) => block.type === 'text')
    .map((block) => block.text ?? '')
    .join('\n');
}

/** The structured content of a successful call; fails with the tool's own message otherwise. */
export function readStructured<T = Record<string, unknown>>(result: {
  content?: unknown;
  isError?: unknown;
  structuredContent?: unknown;
}): T {
  if (result.isError === true) throw new Error(`The tool failed: ${readText(result)}`);
  if (result.structuredContent === undefined)
    throw new Error(`The tool returned no structured content: ${readText(result)}`);
  return result.structuredContent as T;
}

export interface ListedTool {
  name: string;
  description?: string;
  inputSchema: Record<string, unknown> & {
    properties?: Record<string, unknown>;
    required?: string[];
  };
  annotations?: Record<string, unknown>;
}

/** tools/list as the client sees it, by name. */
export async function listToolsByName(session: StdioSession): Promise<Map<string, ListedTool>> {
  const { tools } = await session.client.listTools({}, { cacheMode: 'bypass' });
  return new Map(tools.map((tool) => [tool.name, tool as unknown as ListedTool]));
}

/** The JSON-RPC error code of a rejected request (the SDK's ProtocolError carries it). */
export function readErrorCode(error: unknown): number | undefined {
  const code = (error as { code?: unknown } | undefined)?.code;
  return typeof code === 'number' ? code : undefined;
}

// Each headless MCP client from npm, driven the way its users drive it, behind one small shape
// so the test asks every client the same questions. A call answers with the text the client
// hands its caller (the model): the result's text, or the message of what the client threw.
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createMCPClient } from '@ai-sdk/mcp';
import { Experimental_StdioMCPTransport } from '@ai-sdk/mcp/mcp-stdio';
import { MultiServerMCPClient } from '@langchain/mcp-adapters';
import { MCPClient as MastraClient } from '@mastra/mcp';
import {
  Client as ClientV2,
  StreamableHTTPClientTransport as HttpV2,
} from '@modelcontextprotocol/client';
import { StdioClientTransport as StdioV2 } from '@modelcontextprotocol/client/stdio';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport as StdioV1 } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport as HttpV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

/** How a client reaches the server: a command it spawns, or the URL of a running server. */
export type Target =
  | { kind: 'stdio'; command: string; args: string[]; cwd: string; env: Record<string, string> }
  | { kind: 'http'; url: URL };

export interface CallOutcome {
  isError: boolean;
  text: string;
}

export interface ConnectedClient {
  listToolNames(): Promise<string[]>;
  callTool(name: string, args: Record<string, unknown>): Promise<CallOutcome>;
  close(): Promise<void>;
}

/** The first text block: what a client that shows one text shows, and where the cause must be. */
function firstTextOf(content: unknown): string {
  const blocks = (Array.isArray(content) ? content : [content]) as {
    type?: string;
    text?: string;
  }[];
  return blocks.find((block) => block?.type === 'text')?.text ?? '';
}

/**
 * What the client handed back: the SDK's result (SDKs, AI SDK, Inspector), a content block or
 * string (LangChain), or the structured output alone (Mastra), which the model gets as JSON.
 */
function outcomeOf(result: unknown): CallOutcome {
  if (typeof result === 'string') return { isError: false, text: result };
  const shaped = result as { content?: unknown; isError?: unknown; type?: unknown };
  if (shaped.content !== undefined)
    return { isError: shaped.isError === true, text: firstTextOf(shaped.content) };
  if (shaped.type === 'text' || Array.isArray(result))
    return { isError: false, text: firstTextOf(result) };
  return { isError: false, text: JSON.stringify(result) };
}

function thrownOutcome(error: unknown): CallOutcome {
  return { isError: true, text: error instanceof Error ? error.message : String(error) };
}

export async function connectSdkV1(target: Target): Promise<ConnectedClient> {
  const client = new ClientV1({ name: 'toolpack-clients-v1', version: '1.0.0' });
  await client.connect(
    target.kind === 'stdio' ? new StdioV1({ ...target, stderr: 'ignore' }) : new HttpV1(target.url),
  );
  return {
    listToolNames: async () => (await client.listTools()).tools.map((tool) => tool.name),
    callTool: async (name, args) => outcomeOf(await client.callTool({ name, arguments: args })),
    close: () => client.close(),
  };
}

/** SDK v2 negotiates a 2025 version by default; `pin` makes it speak only that one. */
export async function connectSdkV2(
  target: Target,
  options: { pin?: string } = {},
): Promise<ConnectedClient> {
  const client = new ClientV2(
    { name: 'toolpack-clients-v2', version: '1.0.0' },
    options.pin === undefined ? {} : { versionNegotiation: { mode: { pin: options.pin } } },
  );
  await client.connect(
    target.kind === 'stdio' ? new StdioV2({ ...target, stderr: 'ignore' }) : new HttpV2(target.url),
  );
  return {
    listToolNames: async () => (await client.listTools()).tools.map((tool) => tool.name),
    callTool: async (name, args) => outcomeOf(await client.callTool({ name, arguments: args })),
    close: () => client.close(),
  };
}

/** AI SDK: what a model's tool call runs is each tool's `execute` from `tools()`. */
export async function connectAiSdk(target: Target): Promise<ConnectedClient> {
  const client = await createMCPClient({
    transport:
      target.kind === 'stdio'
        ? new Experimental_StdioMCPTransport({ ...target, stderr: 'ignore' })
        : { type: 'http', url: target.url.href },
  });
  return {
    listToolNames: async () => Object.keys(await client.tools()),
    callTool: async (name, args) => {
      const tool = (await client.tools())[name];
      if (tool?.execute === undefined) throw new Error(`AI SDK has no tool ${name}`);
      try {
        return outcomeOf(
          await tool.execute(args, { toolCallId: 'call-1', messages: [], context: {} }),
        );
      } catch (error) {
        return thrownOutcome(error);
      }
    },
    close: () => client.close(),
  };
}

/** LangChain: the adapters' tools are StructuredTools; a failed call throws a ToolException. */
export async function connectLangChain(target: Target): Promise<ConnectedClient> {
  const client = new MultiServerMCPClient({
    mcpServers: {
      toolpack:
        target.kind === 'stdio'
          ? { transport: 'stdio', ...target, stderr: 'ignore' }
          : { transport: 'http', url: target.url.href },
    },
  });
  const tools = await client.getTools();
  const named = (name: string) =>
    tools.find((tool) => tool.name === name || tool.name.endsWith(`__${name}`));
  return {
    listToolNames: async () => tools.map((tool) => tool.name),
    callTool: async (name, args) => {
      const tool = named(name);
      if (tool === undefined) throw new Error(`LangChain has no tool ${name}`);
      try {
        return outcomeOf(await tool.invoke(args));
      } catch (error) {
        return thrownOutcome(error);
      }
    },
    close: () => client.close(),
  };
}

/** Mastra: tools come keyed `<server>_<tool>`, each with `execute(input)`. */
export async function connectMastra(target: Target): Promise<ConnectedClient> {
  const client = new MastraClient({
    id: `toolpack-${target.kind}-${process.pid}-${Date.now()}`,
    servers: {
      toolpack:
        target.kind === 'stdio'
          ? {
              command: target.command,
              args: target.args,
              cwd: target.cwd,
              env: target.env,
              stderr: 'ignore',
            }
          : { url: target.url },
    },
  });
  const tools = await client.listTools();
  // Mastra logs a server it cannot reach and lists the others: none here means it failed.
  if (Object.keys(tools).length === 0) throw new Error('Mastra listed no tools: see its log above');
  return {
    listToolNames: async () => Object.keys(tools).map((key) => key.replace(/^toolpack_/, '')),
    callTool: async (name, args) => {
      const tool = tools[`toolpack_${name}`];
      if (tool?.execute === undefined) throw new Error(`Mastra has no tool ${name}`);
      try {
        // An agent's context carries its tracing and memory; the MCP tool reads none of it.
        const context = {} as Parameters<typeof tool.execute>[1];
        return outcomeOf(await tool.execute(args, context));
      } catch (error) {
        return thrownOutcome(error);
      }
    },
    close: () => client.disconnect(),
  };
}

const inspectorBin = path.join(import.meta.dirname, 'node_modules', '.bin', 'mcp-inspector');

/** The Inspector CLI runs one request per process, as a script or CI job uses it. */
async function runInspector(
  target: Target,
  request: string[],
  protocolEra: string | undefined,
): Promise<Record<string, unknown>> {
  const home = mkdtempSync(path.join(os.tmpdir(), 'toolpack-clients-inspector-'));
  try {
    const output = path.join(home, 'result.json');
    const server =
      target.kind === 'stdio'
        ? ['--cwd', target.cwd, target.command, ...target.args]
        : [target.url.href, '--transport', 'http'];
    const env = target.kind === 'stdio' ? { ...target.env } : { ...process.env, NODE_OPTIONS: '' };
    const era = protocolEra === undefined ? [] : ['--protocol-era', protocolEra];
    const args = ['--cli', ...era, ...server, ...request, '--output', output];
    // Not spawnSync: that would hold the test process, and every other client's calls, still.
    const run = await new Promise<{ code: number | null; stdout: string; stderr: string }>(
      (resolve) =>
        execFile(
          inspectorBin,
          args,
          { env: { ...env, HOME: home, USERPROFILE: home, APPDATA: home }, timeout: 60_000 },
          (error, stdout, stderr) =>
            resolve({ code: error === null ? 0 : (error.code as number | null), stdout, stderr }),
        ),
    );
    try {
      return JSON.parse(readFileSync(output, 'utf8')) as Record<string, unknown>;
    } catch {
      throw new Error(
        `The Inspector wrote no result (exit ${run.code}):\n${run.stdout}\n${run.stderr}`,
      );
    }
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
}

/** `protocolEra` is the Inspector's `--protocol-era`: legacy (2025), auto (its default) or modern (2026-07-28). */
export async function connectInspector(
  target: Target,
  options: { protocolEra?: string } = {},
): Promise<ConnectedClient> {
  return {
    listToolNames: async () => {
      const listed = (await runInspector(
        target,
        ['--method', 'tools/list'],
        options.protocolEra,
      )) as {
        tools?: { name: string }[];
      };
      return (listed.tools ?? []).map((tool) => tool.name);
    },
    callTool: async (name, args) =>
      outcomeOf(
        await runInspector(
          target,
          ['--method', 'tools/call', '--tool-name', name, '--tool-args-json', JSON.stringify(args)],
          options.protocolEra,
        ),
      ),
    close: async () => undefined,
  };
}

import type { Tool } from '@modelcontextprotocol/server';
import {
  DEFAULT_SCHEMA_DIALECT,
  type Diagnostic,
  type DiscoveredTool,
  type SchemaDialect,
} from '@toolpack/core';
import type { ToolRunner } from '@toolpack/runners';
import { createCallToolBuiltin } from '@toolpack/discovery';
import {
  createToolDispatcher,
  type CreateToolDispatcherOptions,
} from './call-pipeline/create-tool-dispatcher.ts';
import type { ToolDispatcher } from './call-pipeline/dispatch-types.ts';
import type { PolicyVerdict } from './policy/policy.ts';
import { listInputSchema } from './schema-dialect/list-input-schema.ts';
import { readStrictArguments } from './schema-dialect/read-strict-arguments.ts';

/** One discovery's tools as the server serves them; replaced whole by each reload. */
export interface ServedTools {
  all: DiscoveredTool[];
  allByName: Map<string, DiscoveredTool>;
  /** The tools the policy lets through: what tools/list answers. */
  allowed: DiscoveredTool[];
  verdicts: Map<string, PolicyVerdict>;
  /** The tools/list entries, prepared once per reload so listing 1,000 tools costs nothing. */
  listed: Tool[];
  /** `listed` as JSON, serialized once per reload. */
  listedJson: string;
  dispatcher: ToolDispatcher;
  diagnostics: Diagnostic[];
  /**
   * A client's arguments as the tool's exact schema means them: under `openai-strict`, a null
   * sent for a parameter the listing made nullable is "not given" and a free-form object sent
   * as JSON text is parsed; otherwise unchanged.
   */
  readListedArguments(tool: DiscoveredTool, args: unknown): unknown;
}

export interface ServeToolsOptions {
  tools: DiscoveredTool[];
  diagnostics: Diagnostic[];
  verdictOf(tool: DiscoveredTool): PolicyVerdict;
  runner: ToolRunner;
  /**
   * Progressive disclosure: above this many allowed tools, tools/list shows only the
   * built-ins find_tools, describe_tool and call_tool, which reach every other tool.
   */
  discloseAbove?: number;
  /** How tools/list writes input schemas (schema-dialect/list-input-schema.ts). Default portable. */
  schemaDialect?: SchemaDialect;
  /** How call_tool runs a tool: the server's call pipeline (see createToolDispatcher). */
  callNamedTool?: CreateToolDispatcherOptions['callNamedTool'];
}

/** The `_meta` key of a listed tool's input examples (MCP's Tool has no field for them). */
export const INPUT_EXAMPLES_META_KEY = 'dev.toolpack/inputExamples';

/** A tool's tools/list entry under a schema dialect. */
export function toListedTool(tool: DiscoveredTool, dialect: SchemaDialect): Tool {
  const listed: Record<string, unknown> = { name: tool.name };
  if (tool.title !== undefined) listed.title = tool.title;
  const { inputSchema, description } = listInputSchema(tool, dialect);
  listed.description = description;
  listed.inputSchema = inputSchema;
  if (tool.outputSchema !== undefined) listed.outputSchema = tool.outputSchema;
  if (tool.annotations !== undefined && Object.keys(tool.annotations).length > 0)
    listed.annotations = tool.annotations;
  // Optional, not required: a client without tasks still calls it the plain way.
  if (tool.longRunning === true) listed.execution = { taskSupport: 'optional' };
  if (tool.inputExamples !== undefined && tool.inputExamples.length > 0)
    listed._meta = { [INPUT_EXAMPLES_META_KEY]: tool.inputExamples };
  return listed as Tool;
}

// Keyed by the very array tools/list answers with, so a transport that meets it on the way
// out can send the JSON made at reload time instead of serializing the list again.
const listedJsonByList = new WeakMap<readonly Tool[], string>();

/** The JSON of a tools/list array made by `serveTools`; undefined for any other value. */
export function findListedJson(tools: unknown): string | undefined {
  return Array.isArray(tools) ? listedJsonByList.get(tools) : undefined;
}

export function serveTools(options: ServeToolsOptions): ServedTools {
  const { diagnostics, verdictOf, runner } = options;
  let all = options.tools;
  const verdicts = new Map<string, PolicyVerdict>();
  const allowed: DiscoveredTool[] = [];
  for (const tool of all) {
    const verdict = verdictOf(tool);
    verdicts.set(tool.name, verdict);
    if (verdict.allowed) allowed.push(tool);
  }
  const isBuiltin = (tool: DiscoveredTool) => tool.source.kind === 'builtin';
  const disclose =
    options.discloseAbove !== undefined &&
    allowed.filter((tool) => !isBuiltin(tool)).length > options.discloseAbove &&
    !verdicts.has('call_tool');
  if (disclose) {
    // call_tool reaches only what the policy allows: it runs through the call pipeline.
    const callTool = createCallToolBuiltin();
    all = [...all, callTool];
    allowed.push(callTool);
    verdicts.set(callTool.name, { allowed: true });
  }
  const dialect = options.schemaDialect ?? DEFAULT_SCHEMA_DIALECT;
  const listed = (disclose ? allowed.filter(isBuiltin) : allowed).map((tool) =>
    toListedTool(tool, dialect),
  );
  const listedJson = JSON.stringify(listed);
  listedJsonByList.set(listed, listedJson);
  return {
    all,
    allByName: new Map(all.map((tool) => [tool.name, tool])),
    allowed,
    verdicts,
    listed,
    listedJson,
    // Denied tools are not in the dispatcher at all: find_tools cannot reveal them and a
    // workflow cannot reach them.
    dispatcher: createToolDispatcher({
      tools: allowed,
      runner,
      ...(options.callNamedTool === undefined ? {} : { callNamedTool: options.callNamedTool }),
    }),
    diagnostics,
    readListedArguments: (tool, args) =>
      dialect === 'openai-strict' ? readStrictArguments(tool.inputSchema, args) : args,
  };
}

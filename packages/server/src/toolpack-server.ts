import { readFileSync } from 'node:fs';
import type { Server, Tool } from '@modelcontextprotocol/server';
import {
  ToolpackError,
  type Diagnostic,
  type DiscoveredTool,
  type SchemaDialect,
  type ToolCallResult,
  type ToolPolicy,
} from '@toolpack/core';
import { discoverTools, type DiscoverToolsOptions } from '@toolpack/discovery';
import type { ToolRunner, ToolRunnerOptions } from '@toolpack/runners';
import { createCallPipeline } from './call-pipeline/call-tool.ts';
import type { DispatchCallOptions } from './call-pipeline/dispatch-types.ts';
import { createDiagnosticLog } from './diagnostic-log.ts';
import { findRefusal } from './find-refusal.ts';
import { mayServePowerShell } from './may-serve-powershell.ts';
import {
  createServerPathRewriter,
  findSourceRoots,
  findToolpackFolder,
  hideServerPaths,
} from './mcp/hide-server-paths.ts';
import { createLiveServers } from './mcp/live-servers.ts';
import type { IdleCollectorOptions } from './memory/idle-collector.ts';
import type { ServerMetrics } from './metrics/server-metrics.ts';
import { createPolicyFilter } from './policy/policy.ts';
import { createReloadQueue } from './reload/reload-queue.ts';
import { reloadTools, type ReloadReport } from './reload/reload-tools.ts';
import { openServerResources } from './server-resources.ts';
import { serveTools, type ServedTools } from './served-tools.ts';
import { findWatchRoots, type SourceWatcher } from './watch/source-watcher.ts';
import { findModuleFiles, watchSources } from './watch/watch-sources.ts';
import { withholdTools, type AdmitTool } from './withhold-tools.ts';

export interface ToolpackServerOptions {
  /** What to serve: the sources and composition settings `discoverTools` takes. */
  discovery: DiscoverToolsOptions;
  /**
   * A runner of your own (you close it), or settings for the one the server creates and
   * closes (its `projectRoot` defaults to `discovery.cwd`).
   */
  runner?: ToolRunner | (Omit<ToolRunnerOptions, 'projectRoot'> & { projectRoot?: string });
  /** allow/deny/readOnly; denied tools are absent from tools/list and refused when called. */
  policy?: ToolPolicy;
  /** Append one JSON line per call (`{time, tool, argumentKeys, outcome, ms}`) to this file. */
  audit?: string;
  /**
   * A call whose arguments object has more top-level keys is refused before validation
   * (`isError`). Default 1,000: a tool's parameters are a handful; maps belong in a value.
   */
  maxArgumentKeys?: number;
  /** The name clients see in `serverInfo`. Default `toolpack`. */
  name?: string;
  version?: string;
  instructions?: string;
  /**
   * Progressive disclosure: when more than this many tools are allowed, tools/list shows only
   * find_tools, describe_tool and call_tool (which runs any allowed tool through the same
   * policy, audit and metrics), and the instructions tell the client so. Default: list all.
   */
  discloseAbove?: number;
  /**
   * How tools/list writes input schemas: `portable` (default; no root combinators, a PowerShell
   * command's parameter sets spelled out in its description, nothing the Anthropic, OpenAI or
   * Gemini function-calling rules refuse), `exact` (the full JSON Schema) or `openai-strict`.
   * Calls are validated and bound against the exact schema whichever is listed.
   */
  schemaDialect?: SchemaDialect;
  /**
   * How long a tool's question waits for its answer: a 2025-era client's answer to
   * elicitation/create (then the tool is told nobody answered), or a 2026-07-28 client's retry
   * while the call is suspended (then it is stopped as on a timeout). Default 10 minutes.
   */
  questionTimeoutMs?: number;
  /** Re-discover when files under the sources change, and tell clients. Default false. */
  watch?: boolean | { debounceMs?: number };
  /**
   * Start what the tools need (workers, the PowerShell host) before the first call: `true` right
   * away; `'after-list'` once a client has been answered its first tools/list (or sends its
   * first call), so the hosts' own start-up does not compete for the CPU with the answers a
   * client waits on at start. Either way the shared PowerShell host itself starts while
   * discovery runs when the sources may hold PowerShell tools (its start-up is the longest a
   * first call waits for); modules and tool-folder sessions load into it as above. Default false.
   */
  warm?: boolean | 'after-list';
  /**
   * Keep Prometheus metrics (default true). `mcp serve` turns them off over stdio, where
   * nothing could scrape them, to spare the memory.
   */
  metrics?: boolean;
  /**
   * Give memory back once calls stop: a full GC after `idleMs` without calls, when the heap
   * grew by `minGrowthBytes` since the last one. Default off for embedders (it collects the
   * whole process); `mcp serve` turns it on.
   */
  collectWhenIdle?: boolean | Pick<IdleCollectorOptions, 'idleMs' | 'minGrowthBytes'>;
  /**
   * Judges every discovered tool, at start and at each reload: one it answers a diagnostic
   * for is not served (not listed, not callable) and the diagnostic is reported with the
   * discovery's. `mcp serve --http` without a token passes `refuseNetworkedToolsWithoutToken`.
   */
  admitTool?: AdmitTool;
  /**
   * Where the server's own messages go (diagnostics, reloads), one line per call. The
   * library prints nothing by itself; `mcp serve` passes stderr.
   */
  log?: (line: string) => void;
}

/** Aborting `signal` cancels the call; progress and log lines reach the callbacks. */
export type CallToolOptions = DispatchCallOptions;

export interface ToolpackServer {
  readonly name: string;
  readonly version: string;
  /** What tools/list answers: the composed tools the policy allows. */
  readonly tools: readonly DiscoveredTool[];
  /**
   * The tools/list entries as clients receive them: input schemas in the server's dialect,
   * only the built-ins under progressive disclosure.
   */
  readonly listed: readonly Tool[];
  /** Diagnostics of the latest discovery. */
  readonly diagnostics: readonly Diagnostic[];
  readonly metrics: ServerMetrics;
  readonly policy: ToolPolicy | undefined;
  readonly runner: ToolRunner;
  /** Calls with more top-level argument keys are refused; the transports decide it as they read. */
  readonly maxArgumentKeys: number;
  /**
   * A fresh low-level SDK `Server` wired to this toolpack: the factory for `serveStdio`,
   * Streamable HTTP sessions or any transport. With `track` (the default) it receives
   * `notifications/tools/list_changed` after reloads until it closes.
   */
  createMcpServer(options?: { track?: boolean }): Server;
  /**
   * Applies the policy, runs the tool through the dispatcher, records metrics and the audit
   * line. Tool failures are `isError` results; throws `E_UNKNOWN_TOOL` for an unknown name.
   */
  callTool(name: string, args: unknown, options?: CallToolOptions): Promise<ToolCallResult>;
  /** Re-discovers now (the watcher calls this after a debounced batch of changes). */
  reload(changedPaths?: readonly string[]): Promise<ReloadReport>;
  /** Called after every reload that changed the tool list. Returns an unsubscribe function. */
  onToolsChanged(listener: () => void): () => void;
  /** Resolves when the watcher is watching (immediately without `watch`). */
  readonly watching: Promise<void>;
  /** Stops watching, closes every connection and the runner (when the server made it). */
  close(): Promise<void>;
}

function readOwnVersion(): string {
  try {
    const manifest = JSON.parse(
      readFileSync(new URL('../package.json', import.meta.url), 'utf8'),
    ) as {
      version?: string;
    };
    return manifest.version ?? '0.0.0';
  } catch {
    return '0.0.0';
  }
}

const DEFAULT_MAX_ARGUMENT_KEYS = 1_000;

/**
 * The `ttlMs` of tools/list for 2026-07-28 clients. Not watching, the list changes only
 * when the embedder calls reload(); watching, it changes as files are saved, and a client
 * that does not listen for tools/list_changed should see the change within seconds.
 */
const TOOLS_LIST_TTL_MS = { fixed: 60 * 60 * 1000, watching: 10 * 1000 } as const;

/**
 * Discovers the tools, refuses to start on a composition error in `REFUSING_CODES` (above
 * `maxTools`, a name collision involving a pack, any collision under `strict`), and returns a
 * server that any number of MCP connections can share: one tool list, one runner, one
 * policy, one audit log, one set of metrics. Other discovery errors do not stop it: the
 * good tools are served and the diagnostics are in `server.diagnostics` (and `log`).
 */
export async function createToolpackServer(
  options: ToolpackServerOptions,
): Promise<ToolpackServer> {
  const log = options.log ?? (() => undefined);
  const { cwd, sources } = options.discovery;
  const diagnosticLog = createDiagnosticLog(cwd, log);

  // Watching starts before discovery: chokidar's load and first scan overlap it (a JS
  // module's listing child leaves this process idle), and a change made while discovery
  // reads the files is reported (and reloaded once the server exists) instead of missed.
  const watchOptions = options.watch === true ? {} : options.watch || undefined;
  const changedEarly: string[] = [];
  let onSourcesChanged = (paths: string[]): void => {
    changedEarly.push(...paths);
  };
  const startWatching = (tools: readonly DiscoveredTool[]) =>
    watchSources({
      sources,
      cwd,
      tools,
      ...(watchOptions?.debounceMs === undefined ? {} : { debounceMs: watchOptions.debounceMs }),
      onChange: (paths) => onSourcesChanged(paths),
      log,
    });
  let watcher: SourceWatcher | undefined =
    watchOptions === undefined ? undefined : startWatching([]);

  const discover = async () =>
    withholdTools(await discoverTools(options.discovery), options.admitTool);
  let first: Awaited<ReturnType<typeof discover>>;
  let resources: Awaited<ReturnType<typeof openServerResources>> | undefined;
  try {
    resources = await openServerResources(options, log);
    // The PowerShell host takes longer to start than discovery takes to read the files: it
    // starts now, so a first call made right after the list finds it up or nearly.
    if (options.warm !== undefined && options.warm !== false && mayServePowerShell(sources, cwd))
      void resources.runner.warm();
    first = await discover();
    const refusal = findRefusal(first.diagnostics);
    if (refusal !== undefined) {
      throw new ToolpackError(refusal.code, `Refusing to start: ${refusal.message}`, {
        ...(refusal.hint === undefined ? {} : { hint: refusal.hint }),
      });
    }
  } catch (error) {
    await resources?.close();
    await watcher?.close();
    throw error;
  }
  const { runner, metrics } = resources;

  // A PowerShell module found on PSModulePath has its folder known only now: watching that
  // began without it (or did not begin, having no folder) starts again with it, so `watching`
  // still covers every folder.
  if (watchOptions !== undefined) {
    const before = findWatchRoots({ sources, cwd });
    const after = findWatchRoots({ sources, cwd, moduleFiles: findModuleFiles(first.tools) });
    if (after.some((root) => !before.includes(root))) {
      await watcher?.close();
      watcher = startWatching(first.tools);
    }
  }
  const name = options.name ?? 'toolpack';
  const version = options.version ?? readOwnVersion();

  const verdictOf = createPolicyFilter(options.policy);
  let served: ServedTools;
  const serve = (tools: DiscoveredTool[], diagnostics: Diagnostic[]): ServedTools => {
    served = serveTools({
      tools,
      diagnostics,
      verdictOf,
      runner,
      ...(options.discloseAbove === undefined ? {} : { discloseAbove: options.discloseAbove }),
      ...(options.schemaDialect === undefined ? {} : { schemaDialect: options.schemaDialect }),
      callNamedTool: async (toolName, args, callOptions) => {
        const answer = await callTool(toolName, args, callOptions);
        if (!('unknownTool' in answer)) return answer.result;
        const { message, hint } = answer.unknownTool;
        return {
          content: [{ type: 'text', text: `${message} ${hint ?? ''}`.trim() }],
          isError: true,
        };
      },
    });
    metrics.setToolCount(served.allowed.length);
    watcher?.add(findWatchRoots({ sources, cwd, moduleFiles: findModuleFiles(served.all) }));
    return served;
  };
  served = serve(first.tools, first.diagnostics);
  diagnosticLog.report(first.diagnostics);

  let warmPending = options.warm === true || options.warm === 'after-list';
  const warmNow = () => {
    if (!warmPending) return;
    warmPending = false;
    void runner.warm(served.allowed);
  };
  // After the current answer is written: the list a client waits on goes out first.
  const warmSoon = () => {
    if (warmPending) setImmediate(warmNow);
  };

  const maxArgumentKeys = options.maxArgumentKeys ?? DEFAULT_MAX_ARGUMENT_KEYS;
  const callTool = createCallPipeline({
    served: () => served,
    metrics,
    audit: resources.audit,
    idleCollector: resources.idleCollector,
    maxArgumentKeys,
  });
  const instructions = [
    options.instructions,
    options.discloseAbove === undefined
      ? undefined
      : `When this server offers more than ${options.discloseAbove} tools, tools/list shows only find_tools, describe_tool and call_tool: search with find_tools, read a tool's arguments with describe_tool, and run it with call_tool {"name", "arguments"}.`,
  ].filter((part) => part !== undefined);
  // What leaves for a client names no folder of this machine: paths relative to the project.
  const rewritePaths = createServerPathRewriter({
    projectRoot: cwd,
    sourceRoots: findSourceRoots(cwd, sources),
    toolpackFolder: findToolpackFolder(),
  });
  const liveServers = createLiveServers(
    hideServerPaths(
      {
        info: { name, version },
        ...(instructions.length === 0 ? {} : { instructions: instructions.join('\n\n') }),
        listTools: () => {
          warmSoon();
          return served.listed;
        },
        listTtlMs:
          watchOptions === undefined ? TOOLS_LIST_TTL_MS.fixed : TOOLS_LIST_TTL_MS.watching,
        outputSchemaOf: (toolName) => served.allByName.get(toolName)?.outputSchema,
        callTool: (toolName, args, callOptions) => {
          warmSoon();
          const tool = served.allByName.get(toolName);
          // A client's arguments follow the listed schema; the call pipeline the exact one.
          const exact = tool === undefined ? args : served.readListedArguments(tool, args);
          return callTool(toolName, exact, callOptions);
        },
      },
      rewritePaths,
      {
        // call_tool answers with the result of the tool it ran: that tool's data.
        answersForServer: (toolName) =>
          toolName !== 'call_tool' && served.allByName.get(toolName)?.source.kind === 'builtin',
      },
    ),
    log,
    options.questionTimeoutMs === undefined ? {} : { questionTimeoutMs: options.questionTimeoutMs },
  );

  const reload = createReloadQueue(async (changed: readonly string[]) => {
    const report = await reloadTools(
      {
        discover,
        served: () => served,
        serve,
        runner,
        metrics,
        diagnosticLog,
        log,
      },
      changed,
    );
    if (report.changed) liveServers.notifyToolsChanged();
    return report;
  });

  onSourcesChanged = (paths) => {
    reload(paths).catch((error: unknown) =>
      log(`reload failed: ${(error as Error)?.message ?? String(error)}`),
    );
  };
  if (changedEarly.length > 0) onSourcesChanged(changedEarly.splice(0));
  const watching = watcher?.ready ?? Promise.resolve();

  if (options.warm === true) warmNow();

  let closing: Promise<void> | undefined;
  const close = () => {
    closing ??= (async () => {
      await watcher?.close();
      await liveServers.closeAll();
      await resources.close();
    })();
    return closing;
  };

  return {
    name,
    version,
    get tools() {
      return served.allowed;
    },
    get listed() {
      return served.listed;
    },
    get diagnostics() {
      return served.diagnostics;
    },
    metrics,
    policy: options.policy,
    runner,
    maxArgumentKeys,
    createMcpServer: liveServers.create,
    async callTool(toolName, args, callOptions) {
      const answer = await callTool(toolName, args, callOptions);
      if ('unknownTool' in answer) throw answer.unknownTool;
      return answer.result;
    },
    reload,
    onToolsChanged: liveServers.onToolsChanged,
    watching,
    close,
  };
}

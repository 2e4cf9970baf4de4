import { readFileSync } from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import type { Server, Tool } from '@modelcontextprotocol/server';
import {
  ToolpackError,
  formatDiagnostic,
  isToolpackError,
  type Diagnostic,
  type DiscoveredTool,
  type ToolCallResult,
} from '@toolpack/core';
import {
  discoverTools,
  REFUSING_CODES,
  type DiscoverToolsOptions,
  type DiscoveryResult,
} from '@toolpack/discovery';
import { createToolRunner, type ToolRunner, type ToolRunnerOptions } from '@toolpack/runners';
import {
  createAuditLog,
  summarizeArgumentKeys,
  type AuditLog,
  type CallOutcome,
} from './audit/audit-log.ts';
import {
  createToolDispatcher,
  type DispatchCallOptions,
  type ToolDispatcher,
} from './dispatch/index.ts';
import { createMcpServerInstance } from './mcp/create-mcp-server.ts';
import {
  createDisabledMetrics,
  createServerMetrics,
  type ServerMetrics,
} from './metrics/server-metrics.ts';
import { createPolicyFilter, type PolicyVerdict, type ToolPolicy } from './policy/policy.ts';
import { createIdleCollector, type IdleCollectorOptions } from './memory/idle-collector.ts';
import { keepLastGoodTools } from './reload/keep-last-good.ts';
import { createSourceWatcher, findWatchRoots, type SourceWatcher } from './watch/source-watcher.ts';

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
  /** Re-discover when files under the sources change, and tell clients. Default false. */
  watch?: boolean | { debounceMs?: number };
  /** Start what the tools need (workers, the PowerShell host) right away. Default false. */
  warm?: boolean;
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
   * Where the server's own messages go (diagnostics, reloads), one line per call. The
   * library prints nothing by itself; `mcp serve` passes stderr.
   */
  log?: (line: string) => void;
}

export interface ReloadReport {
  /** Whether the tool list clients see changed (and `list_changed` was sent). */
  changed: boolean;
  /** Tools whose previous definition was kept because the new one was refused. */
  kept: string[];
  diagnostics: Diagnostic[];
  /** Set when the whole reload was refused (E_MAX_TOOLS, a pack collision, a source that disappeared). */
  refused?: string;
}

/** Aborting `signal` cancels the call; progress and log lines reach the callbacks. */
export type CallToolOptions = DispatchCallOptions;

export interface ToolpackServer {
  readonly name: string;
  readonly version: string;
  /** What tools/list answers: the composed tools the policy allows. */
  readonly tools: readonly DiscoveredTool[];
  /** Diagnostics of the latest discovery. */
  readonly diagnostics: readonly Diagnostic[];
  readonly metrics: ServerMetrics;
  readonly policy: ToolPolicy | undefined;
  readonly runner: ToolRunner;
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
  /**
   * The JSON line for a tools/list response, when `message` is exactly the current list in
   * the 2025 wire shape: transports use it to send the list serialized once per reload
   * instead of once per request. Undefined for any other message.
   */
  serializeToolsListResponse(message: unknown): string | undefined;
  /** Resolves when the watcher is watching (immediately without `watch`). */
  readonly watching: Promise<void>;
  /** Stops watching, closes every connection and the runner (when the server made it). */
  close(): Promise<void>;
}

interface ServedState {
  all: DiscoveredTool[];
  allByName: Map<string, DiscoveredTool>;
  allowed: DiscoveredTool[];
  verdicts: Map<string, PolicyVerdict>;
  listed: Tool[];
  listedJson: string;
  dispatcher: ToolDispatcher;
  diagnostics: Diagnostic[];
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

function toListedTool(tool: DiscoveredTool): Tool {
  const listed: Record<string, unknown> = { name: tool.name };
  if (tool.title !== undefined) listed.title = tool.title;
  listed.description = tool.description;
  listed.inputSchema = tool.inputSchema;
  if (tool.outputSchema !== undefined) listed.outputSchema = tool.outputSchema;
  if (tool.annotations !== undefined && Object.keys(tool.annotations).length > 0)
    listed.annotations = tool.annotations;
  return listed as Tool;
}

function moduleFileOf(tool: DiscoveredTool): string | undefined {
  const invocation = tool.invocation;
  if (invocation.runner === 'node-worker') return invocation.modulePath;
  if (invocation.runner === 'pwsh' && invocation.mode === 'module') return invocation.modulePath;
  return undefined;
}

const DEFAULT_MAX_ARGUMENT_KEYS = 1_000;

/** Whether `args` is an object with more than `limit` own keys; stops counting past it. */
function hasMoreKeysThan(args: unknown, limit: number): boolean {
  if (typeof args !== 'object' || args === null || Array.isArray(args)) return false;
  let count = 0;
  for (const key in args) {
    if (Object.hasOwn(args, key) && ++count > limit) return true;
  }
  return false;
}

function isWithin(file: string, folder: string): boolean {
  const relative = path.relative(folder, file);
  return relative === '' || (!relative.startsWith('..') && !path.isAbsolute(relative));
}

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
  const cwd = options.discovery.cwd;
  const display = (file: string) => {
    if (!path.isAbsolute(file)) return file;
    const relative = path.relative(cwd, file);
    return relative === '' || path.isAbsolute(relative) ? file : relative.split(path.sep).join('/');
  };
  const formatForLog = (d: Diagnostic) => formatDiagnostic({ ...d, path: display(d.path) });

  const first = await discoverTools(options.discovery);
  const tooMany = first.diagnostics.find((d) => REFUSING_CODES.has(d.code));
  if (tooMany !== undefined) {
    throw new ToolpackError(tooMany.code, `Refusing to start: ${tooMany.message}`, {
      ...(tooMany.hint === undefined ? {} : { hint: tooMany.hint }),
    });
  }

  const ownsRunner = options.runner === undefined || !('call' in options.runner);
  const runner: ToolRunner =
    options.runner !== undefined && 'call' in options.runner
      ? options.runner
      : createToolRunner({
          ...(options.runner ?? {}),
          projectRoot: options.runner?.projectRoot ?? cwd,
        });
  const metrics = options.metrics === false ? createDisabledMetrics() : await createServerMetrics();
  const audit: AuditLog | undefined =
    options.audit === undefined
      ? undefined
      : createAuditLog(options.audit, (error) =>
          log(`audit log ${options.audit} cannot be written: ${error.message}`),
        );
  const verdictOf = createPolicyFilter(options.policy);
  const maxArgumentKeys = options.maxArgumentKeys ?? DEFAULT_MAX_ARGUMENT_KEYS;
  const idleCollector =
    options.collectWhenIdle === undefined || options.collectWhenIdle === false
      ? undefined
      : createIdleCollector(options.collectWhenIdle === true ? {} : options.collectWhenIdle);
  const name = options.name ?? 'toolpack';
  const version = options.version ?? readOwnVersion();
  const listeners = new Set<() => void>();
  const liveServers = new Set<Server>();

  const buildState = (all: DiscoveredTool[], diagnostics: Diagnostic[]): ServedState => {
    const verdicts = new Map<string, PolicyVerdict>();
    const allowed: DiscoveredTool[] = [];
    for (const tool of all) {
      const verdict = verdictOf(tool);
      verdicts.set(tool.name, verdict);
      if (verdict.allowed) allowed.push(tool);
    }
    const listed = allowed.map(toListedTool);
    return {
      all,
      allByName: new Map(all.map((tool) => [tool.name, tool])),
      allowed,
      verdicts,
      listed,
      listedJson: JSON.stringify(listed),
      // Denied tools are not in the dispatcher at all: find_tools cannot reveal them and a
      // workflow cannot reach them.
      dispatcher: createToolDispatcher({ tools: allowed, runner }),
      diagnostics,
    };
  };

  let state = buildState(first.tools, first.diagnostics);
  metrics.setToolCount(state.allowed.length);
  let reported = new Set(first.diagnostics.filter((d) => d.severity !== 'info').map(formatForLog));
  for (const line of reported) log(line);

  const notifyChanged = () => {
    for (const listener of [...listeners]) {
      try {
        listener();
      } catch (error) {
        log(`a tools-changed listener failed: ${(error as Error).message}`);
      }
    }
  };

  const callTool = async (
    toolName: string,
    args: unknown,
    callOptions: CallToolOptions = {},
  ): Promise<ToolCallResult> => {
    const started = performance.now();
    const snapshot = state;
    idleCollector?.callStarted();
    const finish = (outcome: CallOutcome) => {
      idleCollector?.callEnded();
      const ms = performance.now() - started;
      metrics.recordCall(toolName, outcome, ms / 1000);
      audit?.record({
        time: new Date().toISOString(),
        tool: toolName.slice(0, 200),
        ...summarizeArgumentKeys(args),
        outcome,
        ms: Math.round(ms),
      });
    };
    const verdict = snapshot.verdicts.get(toolName);
    if (verdict !== undefined && !verdict.allowed) {
      finish('denied');
      return {
        content: [
          {
            type: 'text',
            text: `${verdict.reason} It cannot be called on this server; use another tool, or ask whoever runs the server to change the policy.`,
          },
        ],
        isError: true,
      };
    }
    // Checked before validation: its cost (and the answer's size) grows with the keys, and
    // that cost is the server's, not the client's. An unknown tool stays -32602.
    if (hasMoreKeysThan(args, maxArgumentKeys) && snapshot.allByName.has(toolName)) {
      finish('error');
      return {
        content: [
          {
            type: 'text',
            text: `Invalid arguments for tool "${toolName}": more than ${maxArgumentKeys} argument keys; send the tool's own parameters (tools/list shows them) and put collections in a value.`,
          },
        ],
        isError: true,
      };
    }
    try {
      const result = await snapshot.dispatcher.call(toolName, args, callOptions);
      finish(callOptions.signal?.aborted ? 'cancelled' : result.isError ? 'error' : 'ok');
      return result;
    } catch (error) {
      if (isToolpackError(error) && error.code === 'E_UNKNOWN_TOOL') {
        finish('unknown_tool');
        throw error;
      }
      finish('error');
      const message = isToolpackError(error)
        ? error.message
        : String((error as Error)?.message ?? error);
      return {
        content: [{ type: 'text', text: `Tool ${toolName} failed: ${message}` }],
        isError: true,
      };
    }
  };

  const host = {
    info: { name, version },
    ...(options.instructions === undefined ? {} : { instructions: options.instructions }),
    listTools: () => state.listed,
    outputSchemaOf: (toolName: string) => state.allByName.get(toolName)?.outputSchema,
    callTool: (toolName: string, args: unknown, callOptions: CallToolOptions) =>
      callTool(toolName, args, callOptions),
  };

  const createMcpServer = (serverOptions: { track?: boolean } = {}): Server => {
    const server = createMcpServerInstance(host);
    if (serverOptions.track !== false) {
      const listener = () => {
        server.sendToolListChanged().catch(() => undefined);
      };
      listeners.add(listener);
      liveServers.add(server);
      server.onclose = () => {
        listeners.delete(listener);
        liveServers.delete(server);
      };
    }
    return server;
  };

  let watcher: SourceWatcher | undefined;
  const moduleFiles = (tools: readonly DiscoveredTool[]) => [
    ...new Set(tools.map(moduleFileOf).filter((file): file is string => file !== undefined)),
  ];

  const reloadNow = async (changed: readonly string[]): Promise<ReloadReport> => {
    let result: DiscoveryResult;
    try {
      result = await discoverTools(options.discovery);
    } catch (error) {
      const message = isToolpackError(error)
        ? `${error.message}${error.hint ? ` (${error.hint})` : ''}`
        : String(error);
      log(`reload refused, still serving the previous ${state.allowed.length} tools: ${message}`);
      metrics.recordReload('kept');
      return { changed: false, kept: [], diagnostics: [], refused: message };
    }
    const tooManyNow = result.diagnostics.find((d) => REFUSING_CODES.has(d.code));
    if (tooManyNow !== undefined) {
      log(
        `reload refused, still serving the previous ${state.allowed.length} tools: ${formatForLog(tooManyNow)}`,
      );
      metrics.recordReload('kept');
      return {
        changed: false,
        kept: [],
        diagnostics: result.diagnostics,
        refused: tooManyNow.message,
      };
    }
    const merged = keepLastGoodTools(state.all, result);
    const current = new Set(
      result.diagnostics.filter((d) => d.severity !== 'info').map(formatForLog),
    );
    for (const line of current) if (!reported.has(line)) log(line);
    reported = current;
    for (const tool of merged.kept) {
      log(
        `${display(tool.source.path)}: keeping the last good definition of ${tool.name} until the errors above are fixed`,
      );
    }
    // A module whose new version fails to load keeps its old worker (and so its last good
    // code); the others get a fresh one on their next call.
    const broken = new Set(
      result.diagnostics.filter((d) => d.severity === 'error').map((d) => d.path),
    );
    const toReload = moduleFiles(merged.tools).filter(
      (file) =>
        !broken.has(file) &&
        changed.some((changedPath) => isWithin(changedPath, path.dirname(file))),
    );
    if (toReload.length > 0) runner.reloadModules(toReload);

    const previousJson = state.listedJson;
    state = buildState(merged.tools, result.diagnostics);
    metrics.setToolCount(state.allowed.length);
    metrics.recordReload('ok');
    watcher?.add(
      findWatchRoots({
        sources: options.discovery.sources,
        cwd,
        moduleFiles: moduleFiles(state.all),
      }),
    );
    const changedList = state.listedJson !== previousJson;
    if (changedList) notifyChanged();
    return {
      changed: changedList,
      kept: merged.kept.map((tool) => tool.name),
      diagnostics: result.diagnostics,
    };
  };

  // One reload at a time; changes that arrive meanwhile are folded into the next one.
  let running: Promise<ReloadReport> | undefined;
  let queued: { paths: Set<string>; promise: Promise<ReloadReport> } | undefined;
  const reload = (changedPaths: readonly string[] = []): Promise<ReloadReport> => {
    if (running === undefined) {
      running = reloadNow(changedPaths).finally(() => {
        running = undefined;
      });
      return running;
    }
    if (queued !== undefined) {
      for (const changedPath of changedPaths) queued.paths.add(changedPath);
      return queued.promise;
    }
    const paths = new Set(changedPaths);
    const promise = running.then(
      () => {
        queued = undefined;
        return reload([...paths]);
      },
      () => {
        queued = undefined;
        return reload([...paths]);
      },
    );
    queued = { paths, promise };
    return promise;
  };

  let watching: Promise<void> = Promise.resolve();
  if (options.watch !== undefined && options.watch !== false) {
    const roots = findWatchRoots({
      sources: options.discovery.sources,
      cwd,
      moduleFiles: moduleFiles(state.all),
    });
    if (roots.length > 0) {
      watcher = createSourceWatcher({
        roots,
        ...(typeof options.watch === 'object' && options.watch.debounceMs !== undefined
          ? { debounceMs: options.watch.debounceMs }
          : {}),
        onChange: (paths) => {
          reload(paths).catch((error: unknown) =>
            log(`reload failed: ${(error as Error)?.message ?? String(error)}`),
          );
        },
        onError: (error) => log(`watching the sources failed: ${error.message}`),
      });
      watching = watcher.ready;
    }
  }

  if (options.warm === true) void runner.warm(state.allowed);

  let closing: Promise<void> | undefined;
  const close = () => {
    closing ??= (async () => {
      idleCollector?.close();
      await watcher?.close();
      listeners.clear();
      await Promise.allSettled([...liveServers].map((server) => server.close()));
      liveServers.clear();
      if (ownsRunner) await runner.close();
      await audit?.close();
    })();
    return closing;
  };

  return {
    name,
    version,
    get tools() {
      return state.allowed;
    },
    get diagnostics() {
      return state.diagnostics;
    },
    metrics,
    policy: options.policy,
    runner,
    createMcpServer,
    callTool,
    reload,
    serializeToolsListResponse(message) {
      if (typeof message !== 'object' || message === null) return undefined;
      const { id, jsonrpc, result, ...rest } = message as Record<string, unknown>;
      if (jsonrpc !== '2.0' || Object.keys(rest).length > 0) return undefined;
      if (typeof id !== 'number' && typeof id !== 'string') return undefined;
      if (typeof result !== 'object' || result === null) return undefined;
      const { tools, ...others } = result as Record<string, unknown>;
      if (tools !== state.listed || Object.keys(others).length > 0) return undefined;
      return `{"result":{"tools":${state.listedJson}},"jsonrpc":"2.0","id":${JSON.stringify(id)}}\n`;
    },
    onToolsChanged(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    get watching() {
      return watching;
    },
    close,
  };
}

export { createToolpackServer } from './toolpack-server.ts';
export type { CallToolOptions, ToolpackServer, ToolpackServerOptions } from './toolpack-server.ts';
export type { ReloadReport } from './reload/reload-tools.ts';

export { startStdioServer } from './transports/stdio.ts';
export type { StartStdioServerOptions, StdioServerHandle } from './transports/stdio.ts';
export { allowedHostnamesFor, isLoopbackHost, startHttpServer } from './transports/http.ts';
export type { HttpServerHandle, StartHttpServerOptions } from './transports/http.ts';

export { createPolicyFilter, isRestrictive } from './policy/policy.ts';
export type { PolicyVerdict } from './policy/policy.ts';

export {
  createAuditLog,
  MAX_AUDITED_KEYS,
  MAX_AUDITED_KEY_CHARS,
  summarizeArgumentKeys,
} from './audit/audit-log.ts';
export type { AuditEntry, AuditLog, CallOutcome } from './audit/audit-log.ts';

export { createServerMetrics } from './metrics/server-metrics.ts';
export type { CreateServerMetricsOptions, ServerMetrics } from './metrics/server-metrics.ts';

export { collectGarbageFully, createIdleCollector } from './memory/idle-collector.ts';
export type { IdleCollector, IdleCollectorOptions } from './memory/idle-collector.ts';

export { keepLastGoodTools } from './reload/keep-last-good.ts';
export type { KeepLastGoodResult } from './reload/keep-last-good.ts';
export {
  createSourceWatcher,
  DEFAULT_WATCH_DEBOUNCE_MS,
  findWatchRoots,
} from './watch/source-watcher.ts';
export type {
  SourceWatcher,
  SourceWatcherOptions,
  WatchRootsOptions,
} from './watch/source-watcher.ts';

export { createMcpServerInstance } from './mcp/create-mcp-server.ts';
export type { McpToolHost } from './mcp/create-mcp-server.ts';

export { createToolDispatcher } from './call-pipeline/create-tool-dispatcher.ts';
export type { CreateToolDispatcherOptions } from './call-pipeline/create-tool-dispatcher.ts';
export type { DispatchCallOptions, ToolDispatcher } from './call-pipeline/dispatch-types.ts';
export { resolveReferences } from './call-pipeline/resolve-references.ts';
export type { ReferenceScope } from './call-pipeline/resolve-references.ts';
export { textOf, toCallResult } from './call-pipeline/call-results.ts';

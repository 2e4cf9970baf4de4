export { createToolpackServer } from './toolpack-server.ts';
export type { CallToolOptions, ToolpackServer, ToolpackServerOptions } from './toolpack-server.ts';
export type { ReloadReport } from './reload/reload-tools.ts';
export { refuseNetworkedToolsWithoutToken } from './withhold-tools.ts';
export type { AdmitTool } from './withhold-tools.ts';
export type { ServerMetrics } from './metrics/server-metrics.ts';

export { startStdioServer } from './transports/stdio.ts';
export type { StartStdioServerOptions, StdioServerHandle } from './transports/stdio.ts';
export { startHttpServer } from './start-http-server.ts';
export type { HttpServerHandle, StartHttpServerOptions } from './transports/http.ts';

export { toListedTool } from './served-tools.ts';
export {
  DIALECT_PROVIDERS,
  PROVIDER_RULES,
  findRuleViolations,
  findToolRuleViolations,
} from './schema-dialect/provider-rules.ts';
export type { ProviderRules, SchemaProvider } from './schema-dialect/provider-rules.ts';

export { DEFAULT_WATCH_DEBOUNCE_MS } from './watch/source-watcher.ts';

export { createToolDispatcher } from './call-pipeline/create-tool-dispatcher.ts';
export type { CreateToolDispatcherOptions } from './call-pipeline/create-tool-dispatcher.ts';
export type { DispatchCallOptions, ToolDispatcher } from './call-pipeline/dispatch-types.ts';

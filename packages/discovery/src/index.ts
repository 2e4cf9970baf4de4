export { discoverTools } from './discover-tools.ts';
export type { DiscoverToolsOptions, DiscoveryResult } from './discover-tools.ts';

export { DEFAULT_MAX_TOOLS, REFUSING_CODES, composeTools } from './compose-tools.ts';
export type { ComposeOptions, ComposedSource, Composition } from './compose-tools.ts';

export { FileParseCache } from './cache/file-parse-cache.ts';
export type { FileParseCacheOptions, FileParseCacheStats } from './cache/file-parse-cache.ts';

export {
  BUILTIN_TOOL_NAMES,
  createBuiltinTools,
  describeTool,
  findTools,
} from './builtins/builtin-tools.ts';
export type { ToolMatch } from './builtins/builtin-tools.ts';

export {
  SCRIPT_EXTENSIONS,
  discoverScriptRoot,
} from './adapters/script-root/discover-script-root.ts';
export type { DiscoverScriptRootOptions } from './adapters/script-root/discover-script-root.ts';
export { JS_MODULE_EXTENSIONS, discoverJsModule } from './adapters/js-module/discover-js-module.ts';
export type { DiscoverJsModuleOptions } from './adapters/js-module/discover-js-module.ts';

export { parseReference, scanReferences } from './adapters/workflows/index.ts';
export type { ReferenceScan, WorkflowReference } from './adapters/workflows/index.ts';

export type { ParseCache, SourceResult } from './types.ts';

export { discoverTools } from './discover-tools.ts';
export type { DiscoverToolsOptions, DiscoveryResult } from './discover-tools.ts';

export { REFUSING_CODES, composeTools } from './compose-tools.ts';
export type { ComposeOptions, ComposedSource, Composition } from './compose-tools.ts';

export type { FileParseCacheStats } from './cache/file-parse-cache.ts';

export { describeTool, findTools } from './builtins/builtin-tools.ts';
export type { ToolMatch } from './builtins/builtin-tools.ts';

export { parseReference } from './adapters/workflows/index.ts';
export type { WorkflowReference } from './adapters/workflows/index.ts';

export type { ParseCache, SourceResult } from './types.ts';

export { discoverTools } from './discover-tools.ts';
export type { DiscoverToolsOptions, DiscoveryResult } from './discover-tools.ts';

export { REFUSING_CODES, composeTools } from './compose-tools.ts';
export type { ComposeOptions, ComposedSource, Composition } from './compose-tools.ts';

export type { FileParseCacheStats } from './cache/file-parse-cache.ts';

export { createCallToolBuiltin, describeTool, findTools } from './builtins/builtin-tools.ts';
export { createToolSearchIndex } from './tool-search/tool-search-index.ts';
export type { ToolMatch, ToolSearchIndex } from './tool-search/tool-search-index.ts';
export { splitWords } from './tool-search/split-words.ts';
export { suggestToolNames } from './tool-search/suggest-tool-names.ts';

export { parseReference } from './adapters/workflows/index.ts';
export type { WorkflowReference } from './adapters/workflows/index.ts';

export type { ParseCache, SourceResult } from './types.ts';

export { createToolRunner } from './tool-runner.ts';
export type {
  ToolCallOptions,
  ToolRunner,
  ToolRunnerOptions,
  ToolRunnerStats,
} from './tool-runner.ts';
export type { ToolProgress } from './runner-types.ts';

export {
  DEFAULT_ENV_ALLOW_LIST,
  WITHHELD_ENV_NAMES,
  buildToolEnvironment,
  findWithheldAllowListEntries,
} from './environment.ts';
export type { BuildToolEnvironmentOptions } from './environment.ts';
// How this process contains the children it starts, for `mcp doctor`.
export { describeContainment } from '@toolpack/containment';
export type { ContainmentDescription, ContainmentMode } from '@toolpack/containment';

export { getDefaultInterpreters } from './process/process-runner.ts';
export { formatMissingPwshMessage } from './pwsh/pwsh-runner.ts';
export { resolveHostScriptPath } from './asset-paths.ts';

export { createToolRunner } from './tool-runner.ts';
export type {
  ToolCallOptions,
  ToolRunner,
  ToolRunnerOptions,
  ToolRunnerStats,
} from './tool-runner.ts';
export type { ToolProgress } from './runner-types.ts';

export { DEFAULT_ENV_ALLOW_LIST, buildToolEnvironment } from './environment.ts';
export type { BuildToolEnvironmentOptions } from './environment.ts';

export { getDefaultInterpreters } from './process/process-runner.ts';
export { formatMissingPwshMessage } from './pwsh/pwsh-runner.ts';
export { resolveHostScriptPath } from './asset-paths.ts';

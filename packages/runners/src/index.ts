export { createToolRunner } from './tool-runner.ts';
export { bindParameterSet } from './bind-parameter-set.ts';
export type { ParameterSetBinding } from './bind-parameter-set.ts';
export { checkToolArguments } from './check-tool-arguments.ts';
export { checkToolResult } from './check-tool-result.ts';
export type {
  ToolCallOptions,
  ToolRunner,
  ToolRunnerOptions,
  ToolRunnerStats,
} from './tool-runner.ts';
export type {
  ToolProgress,
  ToolQuestion,
  ToolQuestionAnswer,
  ToolQuestionField,
} from './runner-types.ts';

// The allow-list, the containment mode and the sandbox's state live in @toolpack/containment,
// with the rest of what a child may inherit; re-exported so that whoever configures a runner
// (requireSandbox) can say beforehand what will happen to confined tools.
export {
  DEFAULT_ENV_ALLOW_LIST,
  WITHHELD_ENV_NAMES,
  buildToolEnvironment,
  describeContainment,
  describeSandbox,
  findWithheldAllowListEntries,
} from '@toolpack/containment';
export type {
  BuildToolEnvironmentOptions,
  ContainmentDescription,
  ContainmentMode,
  SandboxDescription,
} from '@toolpack/containment';

export { getDefaultInterpreters } from './process/process-runner.ts';
export { formatMissingPwshMessage } from './pwsh/pwsh-runner.ts';
export { resolveHostScriptPath } from './asset-paths.ts';

export { spawnContained } from './spawn-contained.ts';
export type { ContainedProcess, SpawnContainedOptions } from './spawn-contained.ts';

export {
  CONTAINMENT_ENV_VARIABLE,
  describeContainment,
  readContainmentRequest,
} from './containment-mode.ts';
export type {
  ContainmentDescription,
  ContainmentMode,
  ContainmentRequest,
} from './containment-mode.ts';

export { killProcessTree } from './kill-process-tree.ts';

export { planSandbox } from './sandbox/plan-sandbox.ts';
export { findInstallFolder } from './sandbox/find-install-folder.ts';
export type { PlanSandboxOptions, SandboxHomeFile, SandboxPlan } from './sandbox/plan-sandbox.ts';
// The runtime folder's own entry (`@toolpack/containment/runtime-folder`) locates and checks
// it without loading the rest; these are what the runners need of it.
export {
  buildCompileCacheEnvironment,
  createChannelFolder,
  openCacheFolder,
} from './runtime-folder/run-folder.ts';
export { SANDBOX_ENV_VARIABLE, describeSandbox } from './sandbox/probe-sandbox.ts';
export type { SandboxDescription, SandboxRequest } from './sandbox/probe-sandbox.ts';

export {
  DEFAULT_ENV_ALLOW_LIST,
  WITHHELD_ENV_NAMES,
  buildToolEnvironment,
  findWithheldAllowListEntries,
} from './environment.ts';
export type { BuildToolEnvironmentOptions } from './environment.ts';

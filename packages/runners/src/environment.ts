// The allow-list lives with the rest of what a child may inherit, in @toolpack/containment;
// re-exported here so `@toolpack/runners` keeps its public names.
export {
  DEFAULT_ENV_ALLOW_LIST,
  WITHHELD_ENV_NAMES,
  buildToolEnvironment,
  findWithheldAllowListEntries,
} from '@toolpack/containment';
export type { BuildToolEnvironmentOptions } from '@toolpack/containment';

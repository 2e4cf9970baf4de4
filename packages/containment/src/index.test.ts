import { expect, it } from 'vitest';
import * as entry from './index.ts';

// The public surface as a literal list: adding or removing a name is a visible change here,
// made on purpose, never a side effect of exporting something for a neighbour inside.
it('@toolpack/containment exports exactly these runtime names', () => {
  expect(Object.keys(entry).sort()).toEqual([
    'CONTAINMENT_ENV_VARIABLE',
    'DEFAULT_ENV_ALLOW_LIST',
    'SANDBOX_ENV_VARIABLE',
    'WITHHELD_ENV_NAMES',
    'buildCompileCacheEnvironment',
    'buildToolEnvironment',
    'createChannelFolder',
    'describeContainment',
    'describeSandbox',
    'findInstallFolder',
    'findWithheldAllowListEntries',
    'killProcessTree',
    'openCacheFolder',
    'planSandbox',
    'readContainmentRequest',
    'spawnContained',
  ]);
});
